package core

import (
	"fmt"
	"sort"
)

// ZKClientHost is the simulated network's host for outside ZooKeeper
// clients (zkCli.sh, kazoo, ... connected to `kafkasim serve`). It exists
// in ZooKeeper-mode clusters once a client connects or a net command names
// it; like every host, it reaches everyone unless a split or drop says
// otherwise (`net split zk | 1,2,3,zkcli` cuts it off).
const ZKClientHost = "zkcli"

// Limits on outside ZooKeeper clients.
const (
	MaxZKSessions = 256    // outside sessions open at once
	MaxZKWatches  = 10_000 // watches one outside session holds
	// ZKMinSessionTimeout and ZKMaxSessionTimeout bound the session
	// timeout a client asks for, as a ZooKeeper server with the default
	// tickTime of 2000 ms does (2 and 20 ticks).
	ZKMinSessionTimeout = 4000
	ZKMaxSessionTimeout = 40000
)

// ZKEventType is a watch event's type (Watcher.Event.EventType).
type ZKEventType int32

// Watch event types, with ZooKeeper's codes.
const (
	ZKNone                ZKEventType = -1
	ZKNodeCreated         ZKEventType = 1
	ZKNodeDeleted         ZKEventType = 2
	ZKNodeDataChanged     ZKEventType = 3
	ZKNodeChildrenChanged ZKEventType = 4
)

var zkEventNames = map[ZKEventType]string{ZKNone: "None", ZKNodeCreated: "NodeCreated", ZKNodeDeleted: "NodeDeleted",
	ZKNodeDataChanged: "NodeDataChanged", ZKNodeChildrenChanged: "NodeChildrenChanged"}

func (t ZKEventType) String() string { return zkEventNames[t] }

// ZKWatchEvent is what reaches an outside session: a fired watch (Type,
// Path, and the Zxid of the transaction that fired it), or, with Type
// ZKNone and Expired set, the ensemble closing the connection of a session
// it expired.
type ZKWatchEvent struct {
	Type    ZKEventType
	Path    string
	Zxid    int64
	Expired bool
	// Reply, when set, makes this the answer to a write the session sent
	// (ZKDelete) instead of a watch event.
	Reply *ZKReply
}

// ZKSession is an outside session as the ensemble granted it: its id,
// password and negotiated timeout (ms).
type ZKSession struct {
	ID      int64
	Passwd  []byte
	Timeout int64
}

// zkObserver is an outside client's session. Outside sessions only look:
// they take no zxid and change no znode, so a run is the same, znode Stats
// included, whether anyone watches it or not.
type zkObserver struct {
	id        int64
	conn      string // the client's connection as the listener names it (its address)
	timeout   int64
	lastHeard int64
	armed     bool // an expiry check is scheduled
	watches   int
	notify    func(ZKWatchEvent)
}

// zkOutside holds the outside sessions and, like ZooKeeper's WatchManager,
// the data watches (getData, exists) and child watches (getChildren) by
// path.
type zkOutside struct {
	sessions map[int64]*zkObserver
	data     map[string]map[int64]bool
	child    map[string]map[int64]bool
}

// ZooKeeper is the simulated ensemble as outside ZooKeeper clients see it:
// read-only views of the tree, outside sessions and their watches, and the
// network between ZKClientHost and "zk". Use it on the cluster's goroutine
// only, like the Cluster.
type ZooKeeper struct {
	z    *zkTree
	conn string // As: the connection and session its messages are from
	sid  int64
	// command: the requests Send carries come from a command (ZKDelete),
	// so they are the simulation's own events; otherwise Outside.
	command bool
}

// As returns the ensemble as seen from one client connection (conn, its
// address) holding session sid (0 before the session exists): the
// messages Send carries name them (Event.Conn, Event.Session), so the
// browser draws each outside client apart.
func (k *ZooKeeper) As(conn string, sid int64) *ZooKeeper {
	return &ZooKeeper{z: k.z, conn: conn, sid: sid, command: k.command}
}

// ZooKeeper returns the ensemble, or nil when the cluster runs KRaft.
func (c *Cluster) ZooKeeper() *ZooKeeper {
	if c.md.zk == nil {
		return nil
	}
	return &ZooKeeper{z: c.md.zk}
}

// Get returns a znode's data and Stat.
func (k *ZooKeeper) Get(path string) (string, ZKStat, bool) {
	n, ok := k.z.nodes[path]
	if !ok {
		return "", ZKStat{}, false
	}
	return n.data, statOf(n), true
}

// Children returns a znode's children (sorted) and its Stat.
func (k *ZooKeeper) Children(path string) ([]string, ZKStat, bool) {
	n, ok := k.z.nodes[path]
	if !ok {
		return nil, ZKStat{}, false
	}
	return k.z.children(path), statOf(n), true
}

// Exists returns a znode's Stat.
func (k *ZooKeeper) Exists(path string) (ZKStat, bool) {
	n, ok := k.z.nodes[path]
	if !ok {
		return ZKStat{}, false
	}
	return statOf(n), true
}

// LastZxid is the zxid of the ensemble's last transaction.
func (k *ZooKeeper) LastZxid() int64 { return k.z.zxid }

// Now is the cluster's virtual time (ms).
func (k *ZooKeeper) Now() int64 { return k.z.c.now }

// Send carries an outside client's request from ZKClientHost to zk over
// the simulated network (kind names the message, path what it is about).
// When it arrives, serve runs at zk, against the tree as it is then, and
// returns what runs back at the client when the reply arrives (nil: no
// reply). A split, a drop or a delay on the way applies as to any message;
// a lost request or reply never comes back, and the client, as a real one
// would, times out.
func (k *ZooKeeper) Send(kind, path string, serve func() (reply func())) {
	n := &k.z.c.net
	cli, zk := k.z.clientNode(), k.z.c.md.node
	req := zkMsg{kind: kind, path: path, conn: k.conn, session: k.sid, outside: !k.command}
	n.sendFixed(cli, zk, req, func() {
		if back := serve(); back != nil {
			// A reply reaches an outside session: only the live run has one.
			resp := req
			resp.kind, resp.outside = kind+"Response", true
			if resp.session == 0 { // the connect: its reply carries the new session
				if s := k.z.bySessionConn(k.conn); s != nil {
					resp.session = s.id
				}
			}
			n.sendFixed(zk, cli, resp, back)
		}
	})
}

// clientNode returns ZKClientHost, adding it to the network on first use.
func (z *zkTree) clientNode() *node {
	if nd := z.c.net.byName[ZKClientHost]; nd != nil {
		return nd
	}
	nd := z.c.net.add(ZKClientHost, nil)
	nd.outside = true
	return nd
}

// negotiate clamps a requested session timeout as the server does.
func negotiate(timeout int64) int64 {
	return min(max(timeout, ZKMinSessionTimeout), ZKMaxSessionTimeout)
}

// OpenSession creates an outside session (at zk: call it from Send's
// serve) for the connection As named. notify receives its watch events
// at the client.
func (k *ZooKeeper) OpenSession(timeout int64, notify func(ZKWatchEvent)) (ZKSession, error) {
	z := k.z
	o := z.outside()
	if len(o.sessions) >= MaxZKSessions {
		return ZKSession{}, fmt.Errorf("too many ZooKeeper sessions (at most %d)", MaxZKSessions)
	}
	s := &zkObserver{id: z.nextSID, conn: k.conn, timeout: negotiate(timeout), notify: notify}
	z.nextSID++
	o.sessions[s.id] = s
	z.touch(s)
	z.c.emitOutside(Event{Type: EvZK, Op: "createSession", Session: s.id, Conn: s.conn, Detail: fmt.Sprintf("session %s opened by %s (timeout %d ms)", sessionHex(s.id), clientName(s.conn), s.timeout)})
	return ZKSession{ID: s.id, Passwd: zkPasswd(s.id), Timeout: s.timeout}, nil
}

// ResumeSession takes up a session again on a new connection, as
// ZooKeeperServer.reopenSession does: false if it expired or the password
// is wrong (the client then learns its session expired).
func (k *ZooKeeper) ResumeSession(id int64, passwd []byte, timeout int64, notify func(ZKWatchEvent)) (ZKSession, bool) {
	s := k.z.outside().sessions[id]
	if s == nil || string(passwd) != string(zkPasswd(id)) {
		return ZKSession{}, false
	}
	s.timeout, s.notify, s.conn = negotiate(timeout), notify, k.conn
	k.z.touch(s)
	return ZKSession{ID: id, Passwd: zkPasswd(id), Timeout: s.timeout}, true
}

// Touch renews a session on any request; false if it has expired.
func (k *ZooKeeper) Touch(id int64) bool {
	s := k.z.outside().sessions[id]
	if s == nil {
		return false
	}
	k.z.touch(s)
	return true
}

// CloseSession ends an outside session (closeSession): its watches go.
func (k *ZooKeeper) CloseSession(id int64) {
	if s := k.z.outside().sessions[id]; s != nil {
		k.z.dropObserver(s, "closed")
	}
}

// Watch leaves a one-shot watch for session id on path: a child watch
// (getChildren) or a data watch (getData, exists, also on a znode that
// does not exist yet).
func (k *ZooKeeper) Watch(id int64, path string, child bool) error {
	o := k.z.outside()
	s := o.sessions[id]
	if s == nil {
		return fmt.Errorf("session %s expired", sessionHex(id))
	}
	table := o.data
	if child {
		table = o.child
	}
	if table[path][id] {
		return nil
	}
	if s.watches >= MaxZKWatches {
		return fmt.Errorf("session %s holds %d watches (the limit)", sessionHex(id), MaxZKWatches)
	}
	if table[path] == nil {
		table[path] = map[int64]bool{}
	}
	table[path][id] = true
	s.watches++
	return nil
}

// RemoveWatches reports whether session id holds a child and/or data
// watch on path (checkWatches), and with remove set drops them
// (removeWatches).
func (k *ZooKeeper) RemoveWatches(id int64, path string, child, data, remove bool) bool {
	o := k.z.outside()
	s := o.sessions[id]
	if s == nil {
		return false
	}
	found := false
	for _, t := range []struct {
		on    bool
		table map[string]map[int64]bool
	}{{child, o.child}, {data, o.data}} {
		if !t.on || !t.table[path][id] {
			continue
		}
		found = true
		if remove {
			delete(t.table[path], id)
			if len(t.table[path]) == 0 {
				delete(t.table, path)
			}
			s.watches--
		}
	}
	return found
}

// SetWatches re-registers a reconnected client's watches, as
// DataTree.setWatches does: one whose znode changed after relZxid (the
// last zxid the client saw) fires at once, the others are set again.
func (k *ZooKeeper) SetWatches(id, relZxid int64, data, exist, child []string) error {
	z := k.z
	s := z.outside().sessions[id]
	if s == nil {
		return fmt.Errorf("session %s expired", sessionHex(id))
	}
	for _, p := range data {
		n, ok := z.nodes[p]
		switch {
		case !ok:
			z.notify(s, ZKWatchEvent{Type: ZKNodeDeleted, Path: p, Zxid: relZxid})
		case n.stat.Mzxid > relZxid:
			z.notify(s, ZKWatchEvent{Type: ZKNodeDataChanged, Path: p, Zxid: n.stat.Mzxid})
		default:
			if err := k.Watch(id, p, false); err != nil {
				return err
			}
		}
	}
	for _, p := range exist {
		if n, ok := z.nodes[p]; ok {
			z.notify(s, ZKWatchEvent{Type: ZKNodeCreated, Path: p, Zxid: n.stat.Czxid})
		} else if err := k.Watch(id, p, false); err != nil {
			return err
		}
	}
	for _, p := range child {
		n, ok := z.nodes[p]
		switch {
		case !ok:
			z.notify(s, ZKWatchEvent{Type: ZKNodeDeleted, Path: p, Zxid: relZxid})
		case n.stat.Pzxid > relZxid:
			z.notify(s, ZKWatchEvent{Type: ZKNodeChildrenChanged, Path: p, Zxid: n.stat.Pzxid})
		default:
			if err := k.Watch(id, p, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// Sessions counts the outside sessions open.
func (k *ZooKeeper) Sessions() int { return len(k.z.out.sessions) }

// ZKClientInfo is an open outside session: its id and the connection
// (address) it was last on.
type ZKClientInfo struct {
	Session int64
	Conn    string
}

// Clients lists the open outside sessions, by id.
func (k *ZooKeeper) Clients() []ZKClientInfo {
	out := make([]ZKClientInfo, 0, len(k.z.out.sessions))
	for _, s := range k.z.out.sessions {
		out = append(out, ZKClientInfo{Session: s.id, Conn: s.conn})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Session < out[j].Session })
	return out
}

func (z *zkTree) outside() *zkOutside {
	if z.out.sessions == nil {
		z.out = zkOutside{sessions: map[int64]*zkObserver{}, data: map[string]map[int64]bool{}, child: map[string]map[int64]bool{}}
	}
	return &z.out
}

// touch renews s and keeps one expiry check scheduled for it.
func (z *zkTree) touch(s *zkObserver) {
	s.lastHeard = z.c.now
	z.arm(s)
}

func (z *zkTree) arm(s *zkObserver) {
	if s.armed {
		return
	}
	s.armed = true
	z.c.after(s.lastHeard+s.timeout-z.c.now, func() {
		s.armed = false
		if z.out.sessions[s.id] != s {
			return
		}
		if z.c.now-s.lastHeard >= s.timeout {
			z.dropObserver(s, "expired")
			z.notify(s, ZKWatchEvent{Type: ZKNone, Expired: true})
			return
		}
		z.arm(s)
	})
}

// dropObserver ends an outside session and removes its watches.
func (z *zkTree) dropObserver(s *zkObserver, why string) {
	o := z.outside()
	delete(o.sessions, s.id)
	for _, table := range []map[string]map[int64]bool{o.data, o.child} {
		for p, ids := range table {
			delete(ids, s.id)
			if len(ids) == 0 {
				delete(table, p)
			}
		}
	}
	z.c.emitOutside(Event{Type: EvZK, Op: "closeSession", Session: s.id, Conn: s.conn, Detail: fmt.Sprintf("session %s of %s %s", sessionHex(s.id), clientName(s.conn), why)})
}

// fire triggers the outside watches a change to path sets off, once each
// (a deleted znode's data and child watchers hear one NodeDeleted).
func (z *zkTree) fire(path string, typ ZKEventType, zxid int64) {
	o := &z.out
	if len(o.sessions) == 0 {
		return
	}
	hit := map[int64]bool{}
	take := func(table map[string]map[int64]bool) {
		for id := range table[path] {
			hit[id] = true
			if s := o.sessions[id]; s != nil {
				s.watches--
			}
		}
		delete(table, path)
	}
	switch typ {
	case ZKNodeCreated, ZKNodeDataChanged:
		take(o.data)
	case ZKNodeChildrenChanged:
		take(o.child)
	case ZKNodeDeleted:
		take(o.data)
		take(o.child)
	}
	ids := make([]int64, 0, len(hit))
	for id := range hit {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		if s := o.sessions[id]; s != nil {
			z.notify(s, ZKWatchEvent{Type: typ, Path: path, Zxid: zxid})
		}
	}
}

// notify sends a watch event to the client over the simulated network; it
// reaches the connection the session had when the event was sent.
func (z *zkTree) notify(s *zkObserver, ev ZKWatchEvent) {
	deliver := s.notify
	m := zkMsg{kind: "ZkWatchEvent", path: ev.Path, op: ev.Type.String(), conn: s.conn, session: s.id, outside: true}
	if ev.Expired {
		m.kind, m.op = "ZkSessionExpired", ""
	}
	z.c.net.sendFixed(z.c.md.node, z.clientNode(), m, func() {
		if deliver != nil {
			deliver(ev)
		}
	})
}

// zkPasswd is a session's password, a function of its id as in
// ZooKeeperServer.generatePasswd (which seeds java.util.Random with it).
func zkPasswd(id int64) []byte {
	out := make([]byte, 16)
	x := uint64(id) ^ 0xB3415C00
	for i := 0; i < 16; i += 8 {
		x += 0x9e3779b97f4a7c15
		v := (x ^ x>>30) * 0xbf58476d1ce4e5b9
		v = (v ^ v>>27) * 0x94d049bb133111eb
		v ^= v >> 31
		for j := 0; j < 8; j++ {
			out[i+j] = byte(v >> (8 * j))
		}
	}
	return out
}

// zkMsg is a ZooKeeper message's kind and what its event says about it:
// the znode, the watch event's type (Op), and the outside connection and
// session it belongs to.
type zkMsg struct {
	kind, path, op, conn string
	session              int64
	jitter               bool // draw the network's jitter (brokers' traffic; never outside clients')
	outside              bool // an outside observer's message (Event.Outside)
}

// OutsideMsgIDs is the first message id of outside observers' messages,
// apart from the simulation's own (below 2^53: exact in JavaScript too).
const OutsideMsgIDs = uint64(1) << 52

// emitOutside records an outside observer's event (Event.Outside): it
// takes no number of the simulation's sequence, its Seq repeats the last
// one's, so the simulation's own events are numbered as a replay of the
// command history numbers them.
func (c *Cluster) emitOutside(e Event) {
	if c.quiet {
		return
	}
	e.Outside = true
	seq := c.evSeq
	c.emit(e)
	c.evSeq = seq
	if n := len(c.events); n > 0 && !c.muted {
		c.events[n-1].Seq = seq
	}
}

// bySessionConn finds the outside session opened by connection conn.
func (z *zkTree) bySessionConn(conn string) *zkObserver {
	var found *zkObserver
	for _, s := range z.out.sessions {
		if s.conn == conn && conn != "" && (found == nil || s.id > found.id) {
			found = s
		}
	}
	return found
}

// clientName names an outside client in events: its connection, or
// ZKClientHost when it has none (a scenario's zk command).
func clientName(conn string) string {
	if conn == "" {
		return ZKClientHost
	}
	return ZKClientHost + " " + conn
}

// sendFixed is network.send for ZooKeeper traffic: without m.jitter no
// jitter, so looking at a run never draws from its random generator
// (splits, drops and delays still apply). The event carries m's path,
// op, connection and session.
func (n *network) sendFixed(from, to *node, m zkMsg, deliver func()) {
	c := n.c
	l := n.link(from, to)
	lat := n.latency(from, to, l)
	if m.jitter && c.bc.jitter > 0 {
		lat += c.rng.Int63n(c.bc.jitter + 1)
	}
	at := max(c.now+lat, l.lastDeliver)
	l.lastDeliver = at
	var id uint64
	if m.outside {
		n.outsideSeq++
		id = OutsideMsgIDs + n.outsideSeq
	} else {
		n.seq++
		id = n.seq
	}
	msg := &message{id: id, from: from, to: to, kind: m.kind, sentAt: c.now, deliverAt: at, deliver: deliver, outside: m.outside}
	switch {
	case l.dropAll:
		msg.dropped = "dropped (net drop)"
	case l.drop > 0:
		l.drop--
		msg.dropped = "dropped (net drop)"
	}
	e := Event{Type: EvMsgSend, From: from.name, To: to.name, Msg: m.kind, Path: m.path, Op: m.op, Conn: m.conn, Session: m.session,
		MsgID: msg.id, SentAt: msg.sentAt, DeliverAt: at}
	if m.outside {
		c.emitOutside(e)
	} else {
		c.emit(e)
	}
	c.after(at-c.now, func() { n.arrive(msg) })
}
