package kafka

import (
	"errors"
	"net"
	"time"
)

// Backoff for a failed Accept that is not the listener closing (EMFILE,
// too many open files, say): the accept loop waits acceptRetryMin,
// doubling to acceptRetryMax while it keeps failing, as net/http's
// Server.Serve does for a temporary error, so a broker whose process ran
// out of file descriptors serves again once some close, instead of
// ending its accept loop for good or spinning on the error. Kafka's
// Acceptor too logs a failed accept and goes on selecting
// (SocketServer.Acceptor.acceptNewConnections: "Error while accepting
// connection").
const (
	acceptRetryMin = 5 * time.Millisecond
	acceptRetryMax = time.Second
)

// acceptFailed handles err from broker id's listener ln after waiting
// last for the previous failure (0 if Accept last succeeded). It returns
// how long it waited, or 0 when the accept loop should end: ln was
// closed (the broker crashed, the cluster was replaced or the server
// closed), or stopped being broker id's socket meanwhile.
func (s *Server) acceptFailed(id int, ln net.Listener, err error, last time.Duration) time.Duration {
	if errors.Is(err, net.ErrClosed) || !s.serving(id, ln) {
		return 0
	}
	wait := min(max(2*last, acceptRetryMin), acceptRetryMax)
	s.logf("kafka: broker %d: accept: %v; retrying in %v", id, err, wait)
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-s.done:
		return 0
	case <-t.C:
	}
	if !s.serving(id, ln) {
		return 0
	}
	return wait
}

// serving reports whether ln is broker id's listening socket of an open
// server.
func (s *Server) serving(id int, ln net.Listener) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.closed && s.listeners[id] == ln
}
