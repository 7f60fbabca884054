package kafka

import (
	"context"
	"net"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"
)

// failingListener is a net.Listener whose Accept fails with EMFILE
// fails times, then hands out conns, then blocks until Close.
type failingListener struct {
	mu     sync.Mutex
	fails  int
	calls  int
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func newFailingListener(fails int) *failingListener {
	return &failingListener{fails: fails, conns: make(chan net.Conn, 1), closed: make(chan struct{})}
}

func (l *failingListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	l.calls++
	fail := l.calls <= l.fails
	l.mu.Unlock()
	if fail {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: net.ErrClosed}
	}
}

func (l *failingListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *failingListener) Addr() net.Addr {
	return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9092}
}

func (l *failingListener) accepts() int { l.mu.Lock(); defer l.mu.Unlock(); return l.calls }

// serveFake makes ln broker 1's listening socket of a server on a step
// backend and runs its accept loop, as listen does.
func serveFake(t *testing.T, ln net.Listener) (*Server, *logLines) {
	logs := &logLines{t: t}
	s := NewServer(newStepBackend(t), Config{Logf: logs.logf})
	if _, err := s.attach(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	s.mu.Lock()
	s.listeners[1] = ln
	s.mu.Unlock()
	go s.accept(1, ln)
	return s, logs
}

// TestAcceptRetries: an Accept that fails (EMFILE) is logged and tried
// again after a backoff, so the connection accepted after it is served;
// the accept loop ended at the first failure before.
func TestAcceptRetries(t *testing.T) {
	ln := newFailingListener(4)
	start := time.Now()
	_, logs := serveFake(t, ln)
	cli, srv := net.Pipe()
	defer cli.Close()
	ln.conns <- srv
	cli.SetDeadline(time.Now().Add(5 * time.Second)) // a pipe's Write waits for a reader
	if !askVersions(cli, 5*time.Second) {
		t.Fatalf("the connection accepted after %d failed accepts was not answered", ln.fails)
	}
	// 5+10+20+40 ms of backoff: it waited, not spun.
	if took := time.Since(start); took < 75*time.Millisecond {
		t.Errorf("four failed accepts retried within %v, want the backoff (75 ms)", took)
	}
	if !logs.has("too many open files") {
		t.Errorf("the accept error was not logged")
	}
}

// TestAcceptBackoffBounded: an Accept that keeps failing is retried at
// most every acceptRetryMax, never in a spin, and the loop ends when the
// server closes.
func TestAcceptBackoffBounded(t *testing.T) {
	ln := newFailingListener(1 << 30)
	s, _ := serveFake(t, ln)
	time.Sleep(1500 * time.Millisecond)
	// 5, 10, ..., 640 ms, then 1 s: 8 accepts in the first 1.5 s.
	if n := ln.accepts(); n < 5 || n > 10 {
		t.Errorf("%d accepts in 1.5 s of EMFILE, want about 8", n)
	}
	s.Close()
	n := ln.accepts()
	time.Sleep(1100 * time.Millisecond)
	if m := ln.accepts(); m > n {
		t.Errorf("accepted %d times after the server closed", m-n)
	}
}
