package kafka

import (
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kafkasim/kafkasim/core"
)

// Config sets the listeners up.
type Config struct {
	// Host and BasePort: broker N listens on Host:BasePort+N-1 (9092,
	// 9093, ... by default; "0.0.0.0" or "::" is every interface).
	Host     string
	BasePort int
	// Advertise is the host Metadata, FindCoordinator and a Fetch's
	// current-leader endpoint name for every broker, each with its own
	// listener's port (Kafka's advertised.listeners); "" is Host. See
	// AdvertisedHost for what Kafka would advertise.
	Advertise string
	// MaxConns bounds open connections over all brokers: past it the
	// listeners accept no more until one closes (acceptWait). MaxInFlight
	// bounds one connection's unanswered requests, MaxFrameBytes one
	// request. Zero means the defaults.
	MaxConns      int
	MaxInFlight   int
	MaxFrameBytes int
	// IdleTimeout closes a connection that sends nothing for that long
	// (Kafka's connections.max.idle.ms, 10 minutes).
	IdleTimeout time.Duration
	// ClockOffset, if set, gives the Unix ms minus virtual ms that maps
	// the brokers' clock to clients' timestamps for cluster c (the
	// --data-dir store's, so the files and the wire agree); nil: fixed
	// from the wall clock when the cluster starts.
	ClockOffset func(c *core.Cluster) int64
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

	backend Backend
	stop    func()
	clock   brokerClock
	// versions is the preset's version table (versions.go), replaced
	// with the cluster.
	versions atomic.Pointer[versionTable]
	// topicIDs names the topic ids Fetch v13+ asks for (topic_ids.go).
	topicIDs topicIDs
	// sessions is each simulated broker's fetch session cache
	// (fetch_session.go).
	sessions fetchSessions

	mu        sync.Mutex
	listeners map[int]net.Listener
	// want says which brokers have a listening socket (listener_follow.go):
	// false for a crashed broker's, whose process is gone, and for ids the
	// cluster has no broker of; busy marks the brokers whose follow loop
	// runs, so one goroutine at a time opens or closes a broker's socket.
	want map[int]bool
	busy map[int]bool
	done chan struct{} // closed by Close: retries stop
	// slots holds a token per open connection, MaxConns at most
	// (acceptWait).
	slots    chan struct{}
	conns    map[*conn]struct{}
	byName   map[string]*conn
	nextConn int
	closed   bool
}

// NewServer makes a server for the cluster behind b; Start opens the
// listeners.
func NewServer(b Backend, cfg Config) *Server {
	if cfg.Host == "" {
		cfg.Host = DefaultHost
	}
	if cfg.Advertise == "" {
		cfg.Advertise = cfg.Host
	}
	if cfg.BasePort == 0 {
		cfg.BasePort = DefaultBasePort
	}
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = DefaultMaxConns
	}
	if cfg.MaxInFlight <= 0 {
		cfg.MaxInFlight = MaxInFlight
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
		logf: logf, backend: b, listeners: map[int]net.Listener{}, want: map[int]bool{}, busy: map[int]bool{},
		done: make(chan struct{}), slots: make(chan struct{}, cfg.MaxConns), conns: map[*conn]struct{}{}, byName: map[string]*conn{}}
}

// Start opens a listener for every broker of the cluster and follows the
// cluster: replies reach their connections, a connection the simulated
// broker closes is closed, and when the cluster is replaced (reset, a new
// scenario) every connection closes and listeners follow the new broker
// count. It returns the first listen error (a port in use, say), with the
// listeners that did open left serving.
func (s *Server) Start(ctx context.Context) error {
	want, err := s.attach(ctx)
	if err != nil {
		return err
	}
	return s.listenAll(want)
}

// attach follows the cluster (Start without the listeners) and returns
// which brokers listen.
func (s *Server) attach(ctx context.Context) (map[int]bool, error) {
	stop, err := s.backend.Watch(s.watch)
	if err != nil {
		return nil, err
	}
	s.stop = stop
	var want map[int]bool
	if err := s.backend.Do(ctx, func(c *core.Cluster) {
		want = listening(c)
		s.clock.reset(c, s.cfg.ClockOffset)
		s.setVersions(c)
		s.sessions.reset(c)
	}); err != nil {
		return nil, err
	}
	return want, nil
}

// watch runs on the cluster's goroutine: it routes the core's answers
// to connections and must never block.
func (s *Server) watch(c *core.Cluster, events []core.Event, reset bool) {
	if reset {
		s.clock.reset(c, s.cfg.ClockOffset)
		s.setVersions(c)
		s.topicIDs.names.Store(nil)
		s.sessions.reset(c)
		s.mu.Lock()
		var cs []*conn
		for cn := range s.conns {
			cs = append(cs, cn)
		}
		s.mu.Unlock()
		for _, cn := range cs {
			go cn.end("the simulated cluster was replaced", false)
		}
		s.followAll(listening(c))
		return
	}
	s.sessions.now.Store(c.Now())
	for i := range events {
		e := &events[i]
		if e.Type == core.EvBrokerState {
			s.follow(e.Broker, brokerListens(e.State))
			// A broker's fetch sessions live in its process's memory.
			switch {
			case e.State == "crashed" || e.State == "powered off":
				s.sessions.lost(e.Broker)
			case e.Detail == "restarted":
				s.sessions.started(c, e.Broker)
			}
		}
		if e.Conn == "" {
			continue
		}
		s.mu.Lock()
		cn := s.byName[e.Conn]
		s.mu.Unlock()
		if cn == nil {
			continue
		}
		switch e.Type {
		case core.EvConnOpen:
			close(cn.opened)
		case core.EvConnClose:
			go cn.end("closed by the simulated broker: "+e.Reason, false)
		case core.EvResponse:
			select {
			case cn.replies <- e.Reply:
			default: // more replies than requests: the connection is broken
				go cn.end("too many replies", true)
			}
		}
	}
}

// Addr is what Metadata advertises for broker id: the advertised host
// and the port broker id listens on.
func (s *Server) Addr(id int) (host string, port int) {
	return s.cfg.Advertise, s.cfg.BasePort + id - 1
}

// listen opens broker id's listener and serves it in the background;
// only Start and broker id's follow loop call it.
func (s *Server) listen(id int) error {
	ln, err := net.Listen("tcp", s.listenAddr(id))
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

// accept is broker id's accept loop on ln; it ends when ln closes. A
// failed Accept is retried after a backoff (acceptFailed).
func (s *Server) accept(id int, ln net.Listener) {
	var wait time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if wait = s.acceptFailed(id, ln, err, wait); wait == 0 {
				return
			}
			continue
		}
		wait = 0
		if !s.acceptWait(id, ln) {
			nc.Close()
			return
		}
		c := s.addConn(id, nc, true)
		if c == nil {
			nc.Close()
			return
		}
		go c.serve()
	}
}

// addConn makes nc a connection to broker id, named in the simulated
// network, or nil once the server is closed (then a slot it holds is
// given back).
func (s *Server) addConn(id int, nc net.Conn, slot bool) *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		if slot {
			<-s.slots
		}
		return nil
	}
	s.nextConn++
	c := newConn(s, id, nc, fmt.Sprintf("k%d", s.nextConn))
	c.slot = slot
	s.conns[c] = struct{}{}
	s.byName[c.name] = c
	return c
}

// acceptWait takes a connection slot for a connection broker id's
// listener ln just accepted, waiting while MaxConns are open: Kafka's
// Acceptor does the same past max.connections (ConnectionQuotas.inc,
// waitForConnectionSlot), so the connection sits accepted and unread, and
// the ones after it in the kernel's backlog, until one closes; only the
// per-IP limit (max.connections.per.ip, unlimited by default) closes a
// new connection. It reports false if the server closed or ln did (the
// broker crashed) meanwhile.
func (s *Server) acceptWait(id int, ln net.Listener) bool {
	select {
	case s.slots <- struct{}{}:
		return true
	default:
	}
	s.logf("kafka: broker %d: %d connections open (the limit): new connections wait for one to close, as past Kafka's max.connections", id, s.cfg.MaxConns)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case s.slots <- struct{}{}:
			return true
		case <-s.done:
			return false
		case <-tick.C:
			s.mu.Lock()
			open := s.listeners[id] == ln
			s.mu.Unlock()
			if !open {
				return false
			}
		}
	}
}

// dropConn forgets c and frees its connection slot; conn.end calls it
// once per connection.
func (s *Server) dropConn(c *conn) {
	s.mu.Lock()
	delete(s.conns, c)
	delete(s.byName, c.name)
	s.mu.Unlock()
	if c.slot {
		<-s.slots
	}
}

// Close stops every listener and connection.
func (s *Server) Close() error {
	if s.stop != nil {
		s.stop()
	}
	s.mu.Lock()
	if !s.closed {
		close(s.done)
	}
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
		c.end("server closed", true)
	}
	return nil
}
