package core

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// ZKStat is a znode's Stat as ZooKeeper keeps it (org.apache.zookeeper.data.Stat):
// the zxids of the transactions that created it (Czxid), last set its data
// (Mzxid) and last added or removed a child (Pzxid); virtual ms of creation
// and of the last data change; the data, child-list and ACL versions; the
// session owning it when ephemeral (0 otherwise); data length and child
// count. It is a copy.
type ZKStat struct {
	Czxid          int64 `json:"czxid"`
	Mzxid          int64 `json:"mzxid"`
	Ctime          int64 `json:"ctime"`
	Mtime          int64 `json:"mtime"`
	Version        int32 `json:"version"`
	Cversion       int32 `json:"cversion"`
	Aversion       int32 `json:"aversion"`
	EphemeralOwner int64 `json:"ephemeralOwner"`
	DataLength     int32 `json:"dataLength"`
	NumChildren    int32 `json:"numChildren"`
	Pzxid          int64 `json:"pzxid"`
}

// znode is one ZooKeeper node. kids holds the names of its children;
// stat's DataLength and NumChildren are filled in when it is read.
type znode struct {
	data  string
	owner string // session owning an ephemeral node ("broker 1", "consumer c1"); "" = persistent
	stat  ZKStat
	kids  map[string]bool
}

// zkTree is the ZooKeeper data tree of a ZK-mode cluster, with the
// ensemble's transaction counter (zxid) and its sessions. Every
// transaction takes the next zxid: each create, set and delete, and the
// creation and close of a session (the ephemeral znodes a closing session
// owned go in its close transaction, all with one zxid). writes counts the
// znode writes its leader handled, which is what made Kafka move consumer
// offsets out of ZooKeeper.
type zkTree struct {
	c      *Cluster
	nodes  map[string]*znode
	writes int64
	zxid   int64 // the last transaction's zxid
	// sessions maps the simulated clients' sessions (brokers, 0.8
	// consumers) to their ids; an entry exists from the session's first
	// ephemeral znode until it closes or expires.
	sessions map[string]int64
	nextSID  int64
	out      zkOutside // outside clients' sessions and watches (zk_outside.go)
}

const (
	maxZNodes = 200_000
	// zkEpoch is the high half of every zxid: the ensemble's leader epoch.
	// The simulated ensemble elects its leader once, so it stays 1.
	zkEpoch = int64(1) << 32
	// zkFirstSession is the first session id ZooKeeper's SessionTrackerImpl
	// hands out: server id 1 in the top byte, then the start time (here
	// virtual time 0) shifted in, then a counter.
	zkFirstSession = int64(1) << 56
)

func newZKTree(c *Cluster) *zkTree {
	z := &zkTree{c: c, nodes: map[string]*znode{}, zxid: zkEpoch, sessions: map[string]int64{}, nextSID: zkFirstSession}
	// Every ensemble has /zookeeper and /zookeeper/quota from the start,
	// made by no transaction (zxid 0).
	z.nodes["/"] = &znode{kids: map[string]bool{"zookeeper": true}, stat: ZKStat{Cversion: 1}}
	z.nodes["/zookeeper"] = &znode{kids: map[string]bool{"quota": true}, stat: ZKStat{Cversion: 1}}
	z.nodes["/zookeeper/quota"] = &znode{}
	return z
}

// txn starts a transaction and returns its zxid.
func (z *zkTree) txn() int64 {
	z.zxid++
	return z.zxid
}

// session returns owner's session id, opening the session (a createSession
// transaction) if it has none.
func (z *zkTree) session(owner string) int64 {
	if id, ok := z.sessions[owner]; ok {
		return id
	}
	z.txn()
	id := z.nextSID
	z.nextSID++
	z.sessions[owner] = id
	return id
}

func (z *zkTree) exists(path string) bool { _, ok := z.nodes[path]; return ok }

// get returns a znode's data.
func (z *zkTree) get(path string) (string, bool) {
	n, ok := z.nodes[path]
	if !ok {
		return "", false
	}
	return n.data, true
}

// owner returns the session name owning an ephemeral znode ("" if
// persistent or absent).
func (z *zkTree) owner(path string) string {
	if n, ok := z.nodes[path]; ok {
		return n.owner
	}
	return ""
}

// statOf returns n's Stat with the derived fields filled in.
func statOf(n *znode) ZKStat {
	s := n.stat
	s.DataLength = int32(len(n.data))
	s.NumChildren = int32(len(n.kids))
	return s
}

// create makes path (and missing parents, each its own transaction, like
// Kafka's createRecursive). A path that exists is replaced (a delete and a
// create).
func (z *zkTree) create(path, data, owner string) {
	if len(z.nodes) >= maxZNodes {
		return
	}
	var sid int64
	if owner != "" {
		sid = z.session(owner)
	}
	var missing []string
	for parent := parentPath(path); parent != "/" && !z.exists(parent); parent = parentPath(parent) {
		missing = append(missing, parent)
	}
	for i := len(missing) - 1; i >= 0; i-- {
		z.add(missing[i], "", "", 0, z.txn())
	}
	if z.exists(path) {
		z.remove(path, z.txn())
	}
	zxid := z.txn()
	z.add(path, data, owner, sid, zxid)
	z.writes++
	z.c.emit(Event{Type: EvZK, Op: "create", Path: path, Zxid: zxid, Detail: "create " + path + " " + data})
}

// add links a new znode under its (existing) parent in transaction zxid.
func (z *zkTree) add(path, data, owner string, sid, zxid int64) {
	now := z.c.now
	z.nodes[path] = &znode{data: data, owner: owner,
		stat: ZKStat{Czxid: zxid, Mzxid: zxid, Pzxid: zxid, Ctime: now, Mtime: now, EphemeralOwner: sid}}
	parent := parentPath(path)
	p := z.nodes[parent]
	if p.kids == nil {
		p.kids = map[string]bool{}
	}
	p.kids[baseName(path)] = true
	p.stat.Cversion++
	p.stat.Pzxid = zxid
	z.fire(path, ZKNodeCreated, zxid)
	z.fire(parent, ZKNodeChildrenChanged, zxid)
}

// set writes a znode's data, creating it if needed.
func (z *zkTree) set(path, data string) {
	n, ok := z.nodes[path]
	if !ok {
		z.create(path, data, "")
		return
	}
	zxid := z.txn()
	n.data = data
	n.stat.Version++
	n.stat.Mzxid = zxid
	n.stat.Mtime = z.c.now
	z.writes++
	z.c.emit(Event{Type: EvZK, Op: "set", Path: path, Zxid: zxid, Detail: "set " + path + " " + data})
	z.fire(path, ZKNodeDataChanged, zxid)
}

// delete removes a znode (and, like Kafka's deleteRecursive, its children
// first) in its own transaction.
func (z *zkTree) delete(path string) {
	if _, ok := z.nodes[path]; !ok || path == "/" {
		return
	}
	z.deleteIn(path, z.txn())
}

// deleteIn removes path and its subtree as part of transaction zxid.
func (z *zkTree) deleteIn(path string, zxid int64) {
	n := z.nodes[path]
	for _, k := range slices.Sorted(maps.Keys(n.kids)) {
		z.deleteIn(path+"/"+k, zxid)
	}
	z.remove(path, zxid)
	z.writes++
	z.c.emit(Event{Type: EvZK, Op: "delete", Path: path, Zxid: zxid, Detail: "delete " + path})
}

// remove unlinks a childless znode from its parent.
func (z *zkTree) remove(path string, zxid int64) {
	delete(z.nodes, path)
	parent := parentPath(path)
	if p := z.nodes[parent]; p != nil {
		delete(p.kids, baseName(path))
		p.stat.Cversion++
		p.stat.Pzxid = zxid
	}
	z.fire(path, ZKNodeDeleted, zxid)
	z.fire(parent, ZKNodeChildrenChanged, zxid)
}

// endSession closes or expires a session: one closeSession transaction
// that deletes every znode the session owns.
func (z *zkTree) endSession(owner string) {
	if _, ok := z.sessions[owner]; !ok {
		return
	}
	delete(z.sessions, owner)
	zxid := z.txn()
	for _, p := range z.paths() {
		if n := z.nodes[p]; n != nil && n.owner == owner {
			z.deleteIn(p, zxid)
		}
	}
}

// children returns the names of path's children, sorted.
func (z *zkTree) children(path string) []string {
	n, ok := z.nodes[path]
	if !ok || len(n.kids) == 0 {
		return nil
	}
	return slices.Sorted(maps.Keys(n.kids))
}

// paths returns every path, sorted.
func (z *zkTree) paths() []string {
	out := make([]string, 0, len(z.nodes))
	for p := range z.nodes {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func parentPath(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "/"
	}
	return p[:i]
}

func baseName(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }

// sessionHex formats a session id as ZooKeeper's logs and tools do.
func sessionHex(id int64) string { return fmt.Sprintf("0x%x", id) }
