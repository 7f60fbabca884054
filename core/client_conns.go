package core

import "fmt"

const (
	reconnectBackoffMs    = 50    // reconnect.backoff.ms
	reconnectBackoffMaxMs = 1000  // reconnect.backoff.max.ms
	connectTimeoutMs      = 10000 // socket.connection.setup.timeout.ms (2.7+)
)

// conns is a client's view of its connections to brokers (Kafka's
// NetworkClient/ClusterConnectionStates). After a connection fails the
// client does not use that broker until a reconnect attempt succeeds;
// attempts back off from reconnect.backoff.ms, doubling up to
// reconnect.backoff.max.ms. A connect attempt is a message on the wire:
// refused if the broker's process is dead, lost if the host is unreachable.
type conns struct {
	c       *Cluster
	owner   string
	from    *node
	state   map[int]*connState
	onReady func()
	onDown  func() // a failed connection triggers a metadata refresh
	alive   func() bool
	// apiTimeout, if > 0, is the client's request.timeout.ms for the
	// ApiVersions request a new connection starts with (see probe).
	apiTimeout int64
}

type connState struct {
	down    bool
	until   int64
	backoff int64
	probing bool
	seq     int
}

func newConns(c *Cluster, owner string, from *node, onReady, onDown func(), alive func() bool) *conns {
	return &conns{c: c, owner: owner, from: from, state: map[int]*connState{}, onReady: onReady, onDown: onDown, alive: alive}
}

func (cs *conns) get(id int) *connState {
	s := cs.state[id]
	if s == nil {
		s = &connState{}
		cs.state[id] = s
	}
	return s
}

// ready reports whether the client may send to broker id now; if the
// connection is down and its backoff is over, it starts a reconnect.
func (cs *conns) ready(id int) bool {
	s := cs.get(id)
	if !s.down {
		return true
	}
	if !s.probing && cs.c.now >= s.until {
		cs.probe(id, s)
	}
	return false
}

// failed marks the connection to broker id down (a reset, refusal or
// timeout) and schedules the next attempt.
func (cs *conns) failed(id int, why string) {
	s := cs.get(id)
	s.probing = false
	s.seq++
	if s.backoff == 0 {
		s.backoff = reconnectBackoffMs
	} else if s.down {
		s.backoff = min(s.backoff*2, reconnectBackoffMaxMs)
	}
	if !s.down {
		cs.c.emit(Event{Type: EvConn, From: cs.owner, Broker: id, State: ConnLost, Reason: why, Detail: fmt.Sprintf("%s lost its connection to broker %d: %s", cs.owner, id, why)})
	}
	s.down = true
	s.until = cs.c.now + s.backoff
	cs.onDown()
	cs.c.after(s.backoff, func() {
		if cs.alive() && s.down && !s.probing {
			cs.onReady()
		}
	})
}

func (cs *conns) probe(id int, s *connState) {
	s.probing = true
	s.seq++
	seq := s.seq
	b := cs.c.Broker(id)
	fail := func(why string) func() {
		return func() {
			if cs.alive() && s.probing && s.seq == seq {
				cs.failed(id, why)
			}
		}
	}
	established := false
	// A paused broker's kernel completes the TCP handshake: the
	// connection leaves CONNECTING (ClusterConnectionStates
	// .checkingApiVersions drops it from the setup timeout) and its
	// ApiVersions request, held by the paused process, times out after
	// request.timeout.ms like any request (NetworkClient
	// .handleTimedOutRequests). Without this a reconnect to a paused
	// leader waited socket.connection.setup.timeout.ms (10 s) whatever
	// request.timeout.ms said.
	accepted := func() {
		if cs.apiTimeout <= 0 || !cs.alive() || !s.probing || s.seq != seq {
			return
		}
		established = true
		cs.c.after(cs.apiTimeout, fail("request timed out (ApiVersions)"))
	}
	cs.c.net.sendConnect(cs.from, b.node, func() {
		cs.c.net.send(b.node, cs.from, "Connected", func() {
			if !cs.alive() || !s.probing || s.seq != seq {
				return
			}
			s.down, s.probing, s.backoff = false, false, 0
			cs.c.emit(Event{Type: EvConn, From: cs.owner, Broker: id, State: ConnConnected, Detail: fmt.Sprintf("%s connected to broker %d", cs.owner, id)})
			cs.onReady()
		}, nil)
	}, fail("connection refused"), accepted)
	timedOut := fail("connection timed out")
	cs.c.after(connectTimeoutMs, func() {
		if !established {
			timedOut()
		}
	})
}
