// Package zookeeper lets real ZooKeeper clients (zkCli.sh, kazoo, Curator,
// go-zookeeper) open a served cluster's simulated ensemble: it speaks the
// ZooKeeper client protocol (jute over TCP) and answers from the core's
// ZooKeeper model, whose Stat fields, zxids and session ids are the
// simulation's own. Every request and reply travels the simulated network
// between the hosts "zkcli" and "zk", so the browser shows them as
// messages, and a split, drop or delay there applies to them: a client cut
// off from zk hears nothing, and after its session timeout (virtual time)
// finds its session expired, as a real client would.
//
// Outside clients only read: every write is refused with NOAUTH, as a
// Kafka ensemble with zookeeper.set.acl=true refuses an unauthenticated
// client, except deleting /controller, which forces a controller election:
// it becomes a core.ZKDelete command, recorded by a driver that records
// (Applier). In KRaft mode there is no ZooKeeper: a connecting client gets a
// read-only view that says so and shows the KRaft metadata log.
//
// Supported: connect (new and resumed sessions, timeout negotiation,
// passwords), ping, exists, getData, getChildren, getChildren2, getACL,
// sync, getAllChildrenNumber, getEphemerals, checkWatches, removeWatches,
// setWatches, setWatches2, auth (digest), closeSession; data and child
// watches, one-shot. See docs/zookeeper.md.
package zookeeper

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/kafkasim/kafkasim/core"
)

// Driver runs functions on the goroutine that owns the served cluster and
// waits for them (server/room.Room is one). Functions the listener hands
// to the core (replies, watch events) also run there, from within the
// cluster's steps.
type Driver interface {
	Do(ctx context.Context, fn func(c *core.Cluster)) error
}

// Config configures a listener.
type Config struct {
	// MaxConns bounds open connections (default 60, ZooKeeper's
	// maxClientCnxns); past it a new connection is closed at once.
	MaxConns int
	// MaxQueue bounds the frames waiting to be written to one client
	// (default 1024); a client that falls further behind is disconnected.
	MaxQueue int
	// Idle closes a connection that sends nothing for this long (default
	// 90 s, more than twice the longest session timeout).
	Idle time.Duration
	// Logf reports connections, refusals and protocol errors; nil discards.
	Logf func(format string, args ...any)
}

// Server is a running ZooKeeper-protocol listener.
type Server struct {
	d     Driver
	cfg   Config
	ln    net.Listener
	mu    sync.Mutex
	conns map[*conn]bool
	wg    sync.WaitGroup
	quit  chan struct{}
	once  sync.Once
	kraft kraftSessions
	// bound maps a session to the connection holding it (on the cluster's
	// goroutine only).
	bound map[int64]*conn
}

// Listen starts a listener on addr (e.g. "127.0.0.1:2181") for the cluster
// d drives.
func Listen(addr string, d Driver, cfg Config) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return Serve(ln, d, cfg), nil
}

// Serve serves ZooKeeper clients on ln until Close.
func Serve(ln net.Listener, d Driver, cfg Config) *Server {
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = 60
	}
	if cfg.MaxQueue <= 0 {
		cfg.MaxQueue = 1024
	}
	if cfg.Idle <= 0 {
		cfg.Idle = 90 * time.Second
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	s := &Server{d: d, cfg: cfg, ln: ln, conns: map[*conn]bool{}, bound: map[int64]*conn{}, quit: make(chan struct{})}
	s.wg.Add(1)
	go s.accept()
	return s
}

// Addr is the address the listener is bound to.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Close stops listening, closes every connection and waits for their
// goroutines.
func (s *Server) Close() error {
	var err error
	s.once.Do(func() {
		close(s.quit)
		err = s.ln.Close()
		s.mu.Lock()
		conns := make([]*conn, 0, len(s.conns))
		for c := range s.conns {
			conns = append(conns, c)
		}
		s.mu.Unlock()
		for _, c := range conns {
			c.close("listener closed")
		}
	})
	s.wg.Wait()
	return err
}

// Conns counts open connections.
func (s *Server) Conns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			select {
			case <-s.quit:
				return
			default:
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			s.cfg.Logf("zookeeper: accept: %v", err)
			time.Sleep(50 * time.Millisecond)
			continue
		}
		c := newConn(s, nc)
		s.mu.Lock()
		full := len(s.conns) >= s.cfg.MaxConns
		if !full {
			s.conns[c] = true
		}
		s.mu.Unlock()
		if full {
			s.cfg.Logf("zookeeper: too many connections (max %d): closing %s", s.cfg.MaxConns, nc.RemoteAddr())
			nc.Close()
			continue
		}
		s.wg.Add(2)
		go c.readLoop()
		go c.writeLoop()
	}
}

func (s *Server) forget(c *conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

// do runs fn on the cluster's goroutine.
func (s *Server) do(fn func(c *core.Cluster)) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.d.Do(ctx, fn); err != nil {
		return fmt.Errorf("cluster unavailable: %w", err)
	}
	return nil
}
