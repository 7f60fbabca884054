package core

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Outside connections: a real client's TCP connection to one broker, as
// the core sees it (commands in command_conn.go, types in
// external_api.go; Produce and Fetch in external_produce.go and
// external_fetch.go).
//
//   - The client's host is a node of the simulated network: every request
//     and reply is a message on it, so latency, `net split`, `net delay`
//     and `net drop` apply, and a paused broker holds them.
//   - A broker handles one request per connection at a time, in order,
//     and reads the next only once the reply is sent (Kafka mutes the
//     channel meanwhile), so replies come in request order and an
//     acks=all produce waiting for the ISR holds back what follows it.
//   - A crashed broker's OS resets its connections: a Reset message goes
//     to the host and the connection closes when it arrives (EvConnClose,
//     reason "reset", listing the unanswered correlation ids). Connecting
//     to a crashed broker is refused ("refused"); to a powered-off or
//     unreachable one it times out after socket.connection.setup.timeout.ms
//     ("timeout"). A request reaching a process other than the one that
//     accepted the connection (the broker restarted meanwhile) is reset.
//   - acks=0 gets no reply; if its append failed the broker closes the
//     connection instead ("closed by broker"), as KafkaApis does so the
//     producer notices.
//   - The protocol layer must time requests out itself (request.timeout.ms
//     is the client's): a reply lost to a split never comes.

// Limits on outside connections.
const (
	// MaxConns is the most outside connections open at once.
	MaxConns = 1000
	// MaxConnPending is the most requests one connection may have
	// unanswered; more is an error (the protocol layer stops reading).
	MaxConnPending = 1000
	// MaxRequestBytes bounds one request's record bytes, like the broker's
	// socket.request.max.bytes (Kafka closes the connection past it).
	MaxRequestBytes = 100 << 20
	// MaxRequestPartitions bounds the partitions of one request.
	MaxRequestPartitions = 10_000

	maxMessageBytes     = 1048588  // message.max.bytes: the largest batch a broker takes
	brokerFetchMaxBytes = 57671680 // the broker's fetch.max.bytes: the largest fetch response
)

// Reasons an outside connection closes (Event.Reason of EvConnClose).
const (
	ConnClosedByClient = "client"           // CloseConn
	ConnRefused        = "refused"          // the broker's process is down
	ConnReset          = "reset"            // the broker's process died or restarted
	ConnTimedOut       = "timeout"          // the connect got no answer
	ConnClosedByBroker = "closed by broker" // an acks=0 produce failed
)

// extConns is the cluster's table of outside connections.
type extConns struct {
	c     *Cluster
	conns map[string]*extConn
	hosts map[string]*extHost
	seq   int
	// records is what real clients produced and were answered
	// (external_counts.go).
	records OutsideRecords
}

// extHost is an outside client host: a network node shared by its
// connections, removed when the last one closes.
type extHost struct {
	node  *node
	conns int
}

// extConn is one outside connection.
type extConn struct {
	id      int // distinguishes a reopened name
	name    string
	host    *extHost
	broker  *Broker
	open    bool // the connect was answered
	closed  bool
	closing bool      // the client closed it: no new requests; FIN on its way
	finAt   bool      // the FIN reached the broker
	inc     int       // the broker process that accepted it; -1 before
	pending []*extReq // sent and not answered, oldest first
	queue   []*extReq // arrived at the broker, waiting their turn
	busy    bool      // the broker is handling one of its requests
}

// extReq is one request on an outside connection.
type extReq struct {
	correlation int32
	api         string
	label       string // BrokerRequest.Label
	body        extBody
}

// MaxLabelBytes bounds BrokerRequest.Label.
const MaxLabelBytes = 96

func newExtConns(c *Cluster) *extConns {
	return &extConns{c: c, conns: map[string]*extConn{}, hosts: map[string]*extHost{}}
}

// checkConnName validates a connection or host name: it names a node of
// the simulated network and appears in traces.
func checkConnName(what, name string) error {
	switch {
	case name == "" || len(name) > 64:
		return fmt.Errorf("%s name %q: want 1 to 64 characters", what, name)
	case strings.ContainsAny(name, " \t\r\n,|=#@\"'"):
		return fmt.Errorf("%s name %q: no spaces, quotes or , | = # @", what, name)
	case name[0] >= '0' && name[0] <= '9':
		return fmt.Errorf("%s name %q: must not start with a digit (broker ids are numbers)", what, name)
	}
	return nil
}

// open handles OpenConn.
func (x *extConns) open(cmd OpenConn) error {
	c := x.c
	hostName := cmd.Host
	if hostName == "" {
		hostName = cmd.Conn
	}
	if err := checkConnName("connection", cmd.Conn); err != nil {
		return err
	}
	if err := checkConnName("host", hostName); err != nil {
		return err
	}
	b := c.Broker(cmd.Broker)
	switch {
	case b == nil:
		return fmt.Errorf("connection %s: no broker %d", cmd.Conn, cmd.Broker)
	case x.conns[cmd.Conn] != nil:
		return fmt.Errorf("connection %s is already open", cmd.Conn)
	case len(x.conns) >= MaxConns:
		return fmt.Errorf("too many open connections (limit %d)", MaxConns)
	}
	h := x.hosts[hostName]
	if h == nil {
		if c.net.byName[hostName] != nil {
			return fmt.Errorf("host %q is already taken by a simulated host", hostName)
		}
		h = &extHost{node: c.net.add(hostName, nil)}
		h.node.outside = true
		x.hosts[hostName] = h
	}
	h.conns++
	x.seq++
	cn := &extConn{id: x.seq, name: cmd.Conn, host: h, broker: b, inc: -1}
	x.conns[cn.name] = cn
	c.net.send(h.node, b.node, "Connect", func() {
		if cn.closed {
			return
		}
		cn.inc = b.incarnation
		c.net.send(b.node, h.node, "Connected", func() {
			if cn.closed || cn.open || cn.inc != b.incarnation {
				return
			}
			cn.open = true
			c.emit(Event{Type: EvConnOpen, Conn: cn.name, From: h.node.name, Broker: b.ID})
		}, nil)
	}, func() { x.close(cn, ConnRefused) })
	c.after(connectTimeoutMs, func() {
		if !cn.open && !cn.closed {
			x.close(cn, ConnTimedOut)
		}
	})
	return nil
}

// closeByClient handles CloseConn.
func (x *extConns) closeByClient(name string) error {
	cn := x.conns[name]
	if cn == nil {
		return fmt.Errorf("unknown connection %q", name)
	}
	if cn.closing {
		return fmt.Errorf("connection %q is already closing", name)
	}
	// The client's FIN travels the connection behind the requests it
	// sent before it (TCP is FIFO): the broker reads and serves those
	// first, so an acks=0 produce written just before the close is still
	// appended, as in Kafka. Replies to a closed socket go nowhere.
	cn.closing = true
	b := cn.broker
	x.c.net.send(cn.host.node, b.node, "Close", func() {
		cn.finAt = true
		x.maybeFinish(cn)
	}, func() { x.close(cn, ConnClosedByClient) })
	// A FIN lost to a split: the broker's side closes once the client's
	// host is gone anyway (connections.max.idle.ms, shortened).
	x.c.after(connectTimeoutMs, func() { x.close(cn, ConnClosedByClient) })
	return nil
}

// maybeFinish closes a connection whose FIN has arrived once the broker
// has nothing of it left to serve.
func (x *extConns) maybeFinish(cn *extConn) {
	if cn.finAt && !cn.busy && len(cn.queue) == 0 {
		x.close(cn, ConnClosedByClient)
	}
}

// close ends a connection once: EvConnClose lists what stays unanswered.
func (x *extConns) close(cn *extConn, reason string) {
	if cn.closed {
		return
	}
	cn.closed = true
	var ids []int32
	for _, r := range cn.pending {
		ids = append(ids, r.correlation)
	}
	cn.pending, cn.queue = nil, nil
	delete(x.conns, cn.name)
	x.c.emit(Event{Type: EvConnClose, Conn: cn.name, From: cn.host.node.name, Broker: cn.broker.ID, Reason: reason, Pending: ids})
	cn.host.conns--
	if cn.host.conns == 0 {
		delete(x.hosts, cn.host.node.name)
		x.c.net.remove(cn.host.node)
	}
}

// brokerReset: broker b's process died (b.incarnation is already the
// next one); its OS resets the connections that process had accepted.
func (x *extConns) brokerReset(b *Broker) {
	for _, name := range slices.Sorted(maps.Keys(x.conns)) {
		cn := x.conns[name]
		if cn.broker != b || cn.inc != b.incarnation-1 {
			continue
		}
		x.c.net.send(b.node, cn.host.node, "Reset", func() { x.close(cn, ConnReset) }, nil)
	}
}

// request handles BrokerRequest: checks, then the request on the wire.
func (x *extConns) request(cmd BrokerRequest) error {
	cn := x.conns[cmd.Conn]
	if cn == nil {
		return fmt.Errorf("unknown connection %q", cmd.Conn)
	}
	if cn.closing {
		return fmt.Errorf("connection %q is closing", cmd.Conn)
	}
	body, err := cmd.body()
	if err == nil {
		err = body.check()
	}
	if err != nil {
		return fmt.Errorf("request %d on %s: %v", cmd.Correlation, cmd.Conn, err)
	}
	if len(cmd.Label) > MaxLabelBytes {
		return fmt.Errorf("request %d on %s: label of %d bytes (limit %d)", cmd.Correlation, cmd.Conn, len(cmd.Label), MaxLabelBytes)
	}
	r := &extReq{correlation: cmd.Correlation, api: body.api(), label: cmd.Label, body: body}
	if len(cn.pending) >= MaxConnPending {
		return fmt.Errorf("connection %s has %d requests unanswered (limit %d)", cn.name, len(cn.pending), MaxConnPending)
	}
	if body.answered() {
		cn.pending = append(cn.pending, r)
	}
	b := cn.broker
	x.c.net.sendLabelled(cn.host.node, b.node, r.api, cn.name, r.label, func() {
		if cn.closed {
			return
		}
		if cn.inc != b.incarnation {
			// Not a connection this process accepted: its OS answers RST.
			x.c.net.send(b.node, cn.host.node, "Reset", func() { x.close(cn, ConnReset) }, nil)
			return
		}
		cn.queue = append(cn.queue, r)
		x.next(cn)
		x.maybeFinish(cn)
	}, func() { x.close(cn, ConnReset) })
	return nil
}

// partKey names a partition in a request, for duplicate checks.
type partKey struct {
	topic     string
	partition int32
}

// next has the broker handle the connection's next request, if it is not
// busy with one: Kafka reads a connection's next request only after the
// previous one's response is sent. The next one starts in a task of its
// own (a later timer at the same instant), never inside the callback that
// answered the previous one: that callback may run inside the replica's
// purgatory or parked-fetch loops, which a new request would change under
// them.
func (x *extConns) next(cn *extConn) {
	for !cn.busy && !cn.closed && len(cn.queue) > 0 {
		r := cn.queue[0]
		cn.queue = cn.queue[1:]
		cn.busy = true
		inc := cn.broker.incarnation
		done := func(rep *Reply) {
			if cn.closed || cn.broker.incarnation != inc {
				return
			}
			cn.busy = false
			if rep != nil {
				x.reply(cn, r, rep)
			}
			cn.broker.after(0, func() {
				x.next(cn)
				x.maybeFinish(cn)
			})
		}
		r.body.serve(x, cn, done)
	}
}

// reply sends a response to the client's host; EvResponse when it arrives.
func (x *extConns) reply(cn *extConn, r *extReq, rep *Reply) {
	rep.Conn, rep.Correlation, rep.API = cn.name, r.correlation, r.api
	x.c.net.sendLabelled(cn.broker.node, cn.host.node, r.api+"Response", cn.name, r.label, func() {
		if cn.closed {
			return
		}
		for i, p := range cn.pending {
			if p == r {
				cn.pending = append(cn.pending[:i], cn.pending[i+1:]...)
				break
			}
		}
		x.c.emit(Event{Type: EvResponse, Conn: cn.name, From: cn.host.node.name, Broker: cn.broker.ID, Reply: rep})
	}, nil)
}

// partition resolves a partition named in a request, or gives Kafka's error.
func (x *extConns) partition(topic string, id int32) (*Partition, string) {
	t := x.c.topics[topic]
	if t == nil || id < 0 || int(id) >= len(t.parts) {
		return nil, "UNKNOWN_TOPIC_OR_PARTITION"
	}
	return t.parts[id], ""
}

// ConnView is one outside connection in a Snapshot. State is connecting
// or open; Pending counts requests not answered yet.
type ConnView struct {
	Conn    string `json:"conn"`
	Host    string `json:"host"`
	Broker  int    `json:"broker"`
	State   string `json:"state"`
	Pending int    `json:"pending"`
}

// views lists the open connections by name.
func (x *extConns) views() []ConnView {
	out := []ConnView{}
	for _, name := range slices.Sorted(maps.Keys(x.conns)) {
		cn := x.conns[name]
		st := "connecting"
		if cn.open {
			st = "open"
		}
		out = append(out, ConnView{Conn: cn.name, Host: cn.host.node.name, Broker: cn.broker.ID, State: st, Pending: len(cn.pending)})
	}
	return out
}
