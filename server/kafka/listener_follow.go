package kafka

import (
	"net"
	"slices"
	"strconv"
	"time"

	"github.com/kafkasim/kafkasim/core"
)

// A simulated broker's listening socket follows its process. Kafka's
// SocketServer binds its Acceptor's ServerSocketChannel when the broker
// starts and the socket dies with the process, so a client connecting to
// a crashed broker's port gets ECONNREFUSED from the kernel at once
// (librdkafka: "Connection refused"), where a listener that accepted and
// then closed would read as a protocol mismatch ("Disconnected while
// requesting ApiVersion: might be caused by incorrect security.protocol").
//
// A paused broker (SIGSTOP) keeps its socket: the kernel still completes
// handshakes into the backlog and nothing answers, which the core models
// by holding the messages. A powered-off broker keeps it too: its machine
// answers nothing, so a real connect times out (no RST comes from a
// machine without power), and the core models exactly that: the
// connection's OpenConn times out after socket.connection.setup.timeout.ms
// and the connection closes (core/external.go). A closed socket would
// make it "refused" instead, which no powered-off Kafka host answers.

// Retry bounds for a socket that cannot be opened (its port taken by
// another process): the follow loop tries again until it can, from
// listenRetryMin doubling to listenRetryMax, and reminds the log every
// listenRetryLog.
const (
	listenRetryMin = 100 * time.Millisecond
	listenRetryMax = 2 * time.Second
	listenRetryLog = 30 * time.Second
)

// brokerListens reports whether a broker in state (core.Broker.State)
// has a listening socket: every state but crashed (see above).
func brokerListens(state string) bool { return state != "crashed" }

// listening is which of c's brokers have a listening socket.
func listening(c *core.Cluster) map[int]bool {
	want := map[int]bool{}
	for _, b := range c.Brokers() {
		want[b.ID] = brokerListens(b.State())
	}
	return want
}

// follow records whether broker id should have a listening socket and
// makes it so in the background. It runs on the cluster's goroutine and
// never blocks: at most one loop per broker opens or closes its socket.
func (s *Server) follow(id int, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.want[id] = on
	if s.busy[id] || s.closed {
		return // the running loop reads want again before it ends
	}
	s.busy[id] = true
	go s.reconcile(id, nil)
}

// followAll is follow for a replaced cluster: its brokers' sockets as
// want says, and none for ids it has no broker of.
func (s *Server) followAll(want map[int]bool) {
	s.mu.Lock()
	var gone []int
	for id := range s.want {
		if _, ok := want[id]; !ok {
			gone = append(gone, id)
		}
	}
	s.mu.Unlock()
	for _, id := range gone {
		s.follow(id, false)
	}
	for id, on := range want {
		s.follow(id, on)
	}
}

// listenAll is Start's followAll for the first cluster: it opens the
// sockets itself, in broker order, and returns the first error (a port
// in use), whose broker's loop then retries in the background.
func (s *Server) listenAll(want map[int]bool) error {
	var first error
	ids := make([]int, 0, len(want))
	for id := range want {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		s.mu.Lock()
		s.want[id] = want[id]
		if s.busy[id] || s.closed || !want[id] || s.listeners[id] != nil {
			s.mu.Unlock()
			continue
		}
		s.busy[id] = true
		s.mu.Unlock()
		err := s.listen(id)
		if err != nil && first == nil {
			first = err
		}
		go s.reconcile(id, err)
	}
	return first
}

// reconcile is broker id's follow loop (busy[id] is set): it opens or
// closes the socket until it matches want[id] or the server closes. A
// socket that cannot be opened is retried, never given up on, and said
// in the log; failed is an error the caller already reported.
func (s *Server) reconcile(id int, failed error) {
	delay, lastLog, troubled := listenRetryMin, time.Now(), failed != nil
	for {
		if failed != nil {
			select {
			case <-s.done:
			case <-time.After(delay):
			}
			delay = min(2*delay, listenRetryMax)
		}
		s.mu.Lock()
		want, ln := s.want[id], s.listeners[id]
		if s.closed || want == (ln != nil) {
			delete(s.busy, id)
			s.mu.Unlock()
			if troubled && want && ln != nil {
				s.logf("kafka: broker %d: listening on %s again", id, s.listenAddr(id))
			}
			return
		}
		if !want {
			delete(s.listeners, id)
		}
		s.mu.Unlock()
		if !want {
			ln.Close() // its accept loop ends; open connections close as the core resets them
			failed = nil
			continue
		}
		if failed = s.listen(id); failed != nil && (!troubled || time.Since(lastLog) >= listenRetryLog) {
			s.logf("kafka: %v; retrying until the port is free", failed)
			troubled, lastLog = true, time.Now()
		}
	}
}

// listenAddr is where broker id's socket listens.
func (s *Server) listenAddr(id int) string {
	return net.JoinHostPort(s.cfg.Host, strconv.Itoa(s.cfg.BasePort+id-1))
}
