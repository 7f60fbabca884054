package kafka

import (
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"
)

// Config sets the listeners up.
type Config struct {
	// Host and BasePort: broker N listens on Host:BasePort+N-1 (9092,
	// 9093, ... by default) and Metadata advertises exactly that.
	Host     string
	BasePort int
	// MaxConns bounds open connections over all brokers; MaxFrameBytes
	// one request. Zero means the defaults.
	MaxConns      int
	MaxFrameBytes int
	// IdleTimeout closes a connection that sends nothing for that long
	// (Kafka's connections.max.idle.ms, 10 minutes).
	IdleTimeout time.Duration
	// Logf reports what a learner or operator should know (a bad frame,
	// a port in use); nil means silent.
	Logf func(format string, args ...any)
}

// Defaults.
const (
	DefaultHost     = "127.0.0.1"
	DefaultBasePort = 9092
	DefaultMaxConns = 1024
)

// Server is the set of Kafka listeners, one per simulated broker.
type Server struct {
	cfg          Config
	maxFrame     int
	idle         time.Duration
	writeTimeout time.Duration
	logf         func(string, ...any)

	mu        sync.Mutex
	listeners map[int]net.Listener
	conns     map[*conn]struct{}
	nextConn  int
	closed    bool
}

// NewServer makes a server; Listen starts each broker's listener.
func NewServer(cfg Config) *Server {
	if cfg.Host == "" {
		cfg.Host = DefaultHost
	}
	if cfg.BasePort == 0 {
		cfg.BasePort = DefaultBasePort
	}
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = DefaultMaxConns
	}
	if cfg.MaxFrameBytes <= 0 {
		cfg.MaxFrameBytes = MaxFrameBytes
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = 10 * time.Minute
	}
	logf := cfg.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	return &Server{cfg: cfg, maxFrame: cfg.MaxFrameBytes, idle: cfg.IdleTimeout, writeTimeout: 30 * time.Second,
		logf: logf, listeners: map[int]net.Listener{}, conns: map[*conn]struct{}{}}
}

// Addr is where broker id listens and what Metadata advertises for it.
func (s *Server) Addr(id int) (host string, port int) {
	return s.cfg.Host, s.cfg.BasePort + id - 1
}

// Listen opens broker id's listener and serves it in the background.
func (s *Server) Listen(id int) error {
	host, port := s.Addr(id)
	ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return fmt.Errorf("broker %d: %w", id, err)
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ln.Close()
		return fmt.Errorf("server closed")
	}
	s.listeners[id] = ln
	s.mu.Unlock()
	go s.accept(id, ln)
	return nil
}

func (s *Server) accept(id int, ln net.Listener) {
	for {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		if len(s.conns) >= s.cfg.MaxConns {
			s.mu.Unlock()
			s.logf("kafka: broker %d: %d connections open (the limit): refusing %s", id, s.cfg.MaxConns, nc.RemoteAddr())
			nc.Close()
			continue
		}
		s.nextConn++
		c := &conn{s: s, broker: id, nc: nc, name: fmt.Sprintf("kafka:%d", s.nextConn)}
		s.conns[c] = struct{}{}
		s.mu.Unlock()
		go c.serve()
	}
}

func (s *Server) dropConn(c *conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

// CloseBroker closes every connection to broker id, as a crashed
// broker's sockets reset.
func (s *Server) CloseBroker(id int) {
	s.mu.Lock()
	var cs []*conn
	for c := range s.conns {
		if c.broker == id {
			cs = append(cs, c)
		}
	}
	s.mu.Unlock()
	for _, c := range cs {
		c.close()
	}
}

// Close stops every listener and connection.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	lns := s.listeners
	s.listeners = map[int]net.Listener{}
	var cs []*conn
	for c := range s.conns {
		cs = append(cs, c)
	}
	s.mu.Unlock()
	for _, ln := range lns {
		ln.Close()
	}
	for _, c := range cs {
		c.close()
	}
	return nil
}
