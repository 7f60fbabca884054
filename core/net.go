package core

import (
	"fmt"
	"strings"
)

// node is a host on the simulated network: a broker, a client, or the
// metadata service ("zk" or "controller").
type node struct {
	id     int
	name   string
	broker *Broker // set for brokers
	// outside marks a real client's host (a Kafka or ZooKeeper client
	// outside the simulation): its links take net.client.latency.ms.
	outside bool
	out     []*link // links from this host by the other end's id: network.links' entries, cached
}

// link is the one-way path between two hosts. Delivery on a link is FIFO,
// like a TCP connection: deliverAt never goes below the previous message's.
type link struct {
	delay       int64 // extra one-way latency from `net delay`
	drop        int   // drop the next drop messages
	dropAll     bool  // drop everything until heal
	lastDeliver int64
}

// message is one request or response on the wire.
type message struct {
	id        uint64
	from, to  *node
	kind      string
	sentAt    int64
	deliverAt int64
	dropped   string // why it will be dropped, decided at send time
	deliver   func()
	refused   func() // run at the sender if the receiver's process is dead (TCP reset)
	// accepted, for a connect, runs back at the sender when a paused
	// receiver's kernel completes the handshake (the connect itself waits
	// in the listen backlog until the process resumes).
	accepted func()
	outside  bool // an outside observer's (Event.Outside)
}

// network holds the hosts, links and the current split.
type network struct {
	c      *Cluster
	nodes  []*node
	byName map[string]*node
	links  map[[2]int]*link
	group  map[int]int // host -> split group (1-based); absent = reaches all
	seq    uint64
	// outsideSeq numbers outside observers' messages (OutsideMsgIDs and up).
	outsideSeq uint64
	nextID     int // ids are never reused, so a removed host's links stay its own
}

func (n *network) init(c *Cluster) {
	n.c = c
	n.byName = map[string]*node{}
	n.links = map[[2]int]*link{}
	n.group = map[int]int{}
}

func (n *network) add(name string, b *Broker) *node {
	nd := &node{id: n.nextID, name: name, broker: b}
	n.nextID++
	n.nodes = append(n.nodes, nd)
	n.byName[name] = nd
	return nd
}

func (n *network) link(from, to *node) *link {
	if to.id < len(from.out) {
		if l := from.out[to.id]; l != nil {
			return l
		}
	}
	k := [2]int{from.id, to.id}
	l := n.links[k]
	if l == nil {
		l = &link{}
		n.links[k] = l
	}
	if to.id >= len(from.out) {
		from.out = append(from.out, make([]*link, to.id+1-len(from.out))...)
	}
	from.out[to.id] = l
	return l
}

// cut reports whether a split separates from and to.
func (n *network) cut(from, to *node) bool {
	g1, ok1 := n.group[from.id]
	g2, ok2 := n.group[to.id]
	return ok1 && ok2 && g1 != g2
}

// send puts a message on the wire. deliver runs at the receiver when it
// arrives (later, if the receiver is paused); refused runs back at the
// sender if the receiver's process is dead.
func (n *network) send(from, to *node, kind string, deliver, refused func()) {
	n.sendLabelled(from, to, kind, "", "", deliver, refused)
}

// sendConnect is send for a client's TCP connect: accepted runs back at
// the client if the receiver is paused (see message.accepted).
func (n *network) sendConnect(from, to *node, deliver, refused, accepted func()) {
	n.sendMsg(from, to, "Connect", "", "", deliver, refused, accepted)
}

// sendLabelled is send for an outside client's message: its msg.send
// event also names the connection and carries the label the protocol
// layer gave the request (API, version, client software).
func (n *network) sendLabelled(from, to *node, kind, conn, label string, deliver, refused func()) {
	n.sendMsg(from, to, kind, conn, label, deliver, refused, nil)
}

func (n *network) sendMsg(from, to *node, kind, conn, label string, deliver, refused, accepted func()) {
	c := n.c
	l := n.link(from, to)
	lat := n.latency(from, to, l)
	if c.bc.jitter > 0 {
		lat += c.rng.Int63n(c.bc.jitter + 1)
	}
	at := c.now + lat
	if at < l.lastDeliver {
		at = l.lastDeliver
	}
	l.lastDeliver = at
	n.seq++
	m := &message{id: n.seq, from: from, to: to, kind: kind, sentAt: c.now, deliverAt: at, deliver: deliver, refused: refused, accepted: accepted}
	switch {
	case l.dropAll:
		m.dropped = "dropped (net drop)"
	case l.drop > 0:
		l.drop--
		m.dropped = "dropped (net drop)"
	}
	if c.recording() {
		c.emit(Event{Type: EvMsgSend, From: from.name, To: to.name, Msg: kind, MsgID: m.id, SentAt: m.sentAt, DeliverAt: at, Conn: conn, Label: label})
	} else {
		c.skipEvent()
	}
	c.scheduled(c.sched.pushMsg(at, m))
}

// latency is the one-way latency of link l from from to to before
// jitter: net.latency.ms, or net.client.latency.ms (when not -1) if
// either end is a real client's host, plus the link's `net delay`.
func (n *network) latency(from, to *node, l *link) int64 {
	bc := &n.c.bc
	if bc.clientLatency >= 0 && (from.outside || to.outside) {
		return bc.clientLatency + l.delay
	}
	return bc.latency + l.delay
}

func (n *network) arrive(m *message) {
	c := n.c
	switch {
	case m.dropped != "":
		n.drop(m, m.dropped)
	case n.cut(m.from, m.to):
		n.drop(m, "dropped (network split)")
	case m.to.broker != nil && !m.to.broker.processUp():
		b := m.to.broker
		if b.state == stateCrashed && m.refused != nil && !n.cut(m.to, m.from) {
			n.drop(m, "connection refused (broker down)")
			back := n.latency(m.to, m.from, n.link(m.to, m.from))
			c.after(back, m.refused)
			return
		}
		n.drop(m, "lost (broker down)")
	case m.to.broker != nil && m.to.broker.state == statePaused:
		if m.accepted != nil && !n.cut(m.to, m.from) {
			back := n.latency(m.to, m.from, n.link(m.to, m.from))
			c.after(back, m.accepted)
		}
		m.to.broker.hold(m)
	default:
		m.deliver()
	}
}

func (n *network) drop(m *message, why string) {
	if !m.outside && !n.c.recording() {
		n.c.skipEvent()
		return
	}
	e := Event{Type: EvMsgDrop, From: m.from.name, To: m.to.name, Msg: m.kind, MsgID: m.id, Detail: why}
	if m.outside {
		n.c.emitOutside(e)
		return
	}
	n.c.emit(e)
}

// host resolves a host name used in net commands.
func (n *network) host(name string) (*node, error) {
	nd := n.byName[name]
	if nd == nil && name == ZKClientHost && n.c.md != nil && n.c.md.zk != nil {
		nd = n.c.md.zk.clientNode() // outside ZooKeeper clients' host, named before any connects
	}
	if nd == nil {
		return nil, fmt.Errorf("unknown host %q (hosts: %s)", name, strings.Join(n.names(), ", "))
	}
	return nd, nil
}

func (n *network) names() []string {
	var s []string
	for _, nd := range n.nodes {
		s = append(s, nd.name)
	}
	return s
}

func (n *network) split(groups [][]string) error {
	g := map[int]int{}
	for i, grp := range groups {
		for _, h := range grp {
			nd, err := n.host(h)
			if err != nil {
				return err
			}
			if _, dup := g[nd.id]; dup {
				return fmt.Errorf("host %s is in two groups", h)
			}
			g[nd.id] = i + 1
		}
	}
	n.group = g
	n.c.emit(Event{Type: EvNet, Detail: "split " + describeGroups(groups)})
	return nil
}

func describeGroups(groups [][]string) string {
	parts := make([]string, len(groups))
	for i, g := range groups {
		parts[i] = strings.Join(g, ",")
	}
	return strings.Join(parts, " | ")
}

func (n *network) heal() {
	n.group = map[int]int{}
	for _, l := range n.links { // order-free: no events, no randomness
		l.delay, l.drop, l.dropAll = 0, 0, false
	}
	n.c.emit(Event{Type: EvNet, Detail: "heal"})
}

// remove takes a host off the network (an outside client host whose last
// connection closed): its name is free again and its links are gone.
// Messages still on their way to it arrive at a node nobody listens on.
func (n *network) remove(nd *node) {
	if n.byName[nd.name] == nd {
		delete(n.byName, nd.name)
	}
	for i, x := range n.nodes {
		if x == nd {
			n.nodes = append(n.nodes[:i], n.nodes[i+1:]...)
			break
		}
	}
	for _, other := range n.nodes {
		delete(n.links, [2]int{nd.id, other.id})
		delete(n.links, [2]int{other.id, nd.id})
		if nd.id < len(other.out) {
			other.out[nd.id] = nil
		}
	}
	nd.out = nil
	delete(n.group, nd.id)
}
