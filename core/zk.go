package core

import (
	"sort"
	"strings"
)

// znode is one ZooKeeper node: data, data version and, for ephemeral nodes,
// the broker whose session owns it.
type znode struct {
	data    string
	version int32
	owner   string // session owning an ephemeral node ("broker 1", "consumer c1"); "" = persistent
	ctime   int64
	mtime   int64
}

// zkTree is the ZooKeeper data tree of a ZK-mode cluster. It counts the
// writes its leader handles, which is what made Kafka move consumer offsets
// out of ZooKeeper.
type zkTree struct {
	c      *Cluster
	nodes  map[string]*znode
	writes int64
}

const maxZNodes = 200_000

func newZKTree(c *Cluster) *zkTree {
	return &zkTree{c: c, nodes: map[string]*znode{"/": {}}}
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

// create makes path (and missing parents, like kafka's createRecursive).
func (z *zkTree) create(path, data, owner string) {
	if len(z.nodes) >= maxZNodes {
		return
	}
	for parent := parentPath(path); parent != "/" && !z.exists(parent); parent = parentPath(parent) {
		z.nodes[parent] = &znode{ctime: z.c.now, mtime: z.c.now}
	}
	z.nodes[path] = &znode{data: data, owner: owner, ctime: z.c.now, mtime: z.c.now}
	z.writes++
	z.c.emit(Event{Type: EvZK, Detail: "create " + path + " " + data})
}

// set writes a znode's data, creating it if needed.
func (z *zkTree) set(path, data string) {
	n, ok := z.nodes[path]
	if !ok {
		z.create(path, data, "")
		return
	}
	n.data = data
	n.version++
	n.mtime = z.c.now
	z.writes++
	z.c.emit(Event{Type: EvZK, Detail: "set " + path + " " + data})
}

func (z *zkTree) delete(path string) {
	if _, ok := z.nodes[path]; !ok {
		return
	}
	delete(z.nodes, path)
	z.writes++
	z.c.emit(Event{Type: EvZK, Detail: "delete " + path})
}

// deleteEphemerals removes every znode owned by a session.
func (z *zkTree) deleteEphemerals(owner string) {
	for _, p := range z.paths() {
		if z.nodes[p].owner == owner {
			z.delete(p)
		}
	}
}

// children returns the names of path's children, sorted.
func (z *zkTree) children(path string) []string {
	var out []string
	prefix := path + "/"
	for _, p := range z.paths() {
		if strings.HasPrefix(p, prefix) && !strings.Contains(p[len(prefix):], "/") {
			out = append(out, p[len(prefix):])
		}
	}
	return out
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
