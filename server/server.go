// Package server is kafkasim's native server: the HTTP mux (the browser
// app at "/", the rooms API, scenario sharing), the websocket bridge that
// lets clients drive and watch a room's cluster (docs/protocol.md), and
// the classroom around rooms (join codes, control tokens, lesson steps,
// predictions). Every queue, table and message has a limit (Limits).
//
// Protocol listeners (ZooKeeper, Kafka) attach to a room's cluster through
// Server.DefaultRoom (or Server.Room) and the room package's Do, Apply and
// AddHook.
package server

import (
	"fmt"
	"log"
	"net/http"
	"sync"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/server/room"
)

// Limits bound everything the server keeps or accepts. Zero fields take
// the defaults of DefaultLimits.
type Limits struct {
	MaxRooms          int           // rooms at once, the default room included
	MaxClientsPerRoom int           // websocket connections in one room
	MaxMessageBytes   int           // one client message (a frame); larger ones get a too_large error
	MaxFrameBytes     int           // past this a frame is not even read to its end: the connection closes (1009)
	CommandsPerSecond float64       // client messages per second per connection (a token bucket) ...
	CommandBurst      int           // ... with this burst
	SendBuffer        int           // frames queued for one client; when full it is resynced by snapshot
	SocketBuffer      int           // bytes of the kernel's send buffer per client (0: the OS's); smaller finds a slow client sooner
	MaxHistory        int           // commands a room's history keeps (then commands are refused until a reset)
	MaxJobs           int           // scripts in progress in one room
	RoomIdle          time.Duration // a created room with nobody in it this long is closed
	MaxShares         int           // scenarios the share store keeps (oldest dropped first)
	MaxShareBytes     int           // one shared scenario
	MaxShareTotal     int           // bytes of all shared scenarios
	WriteWait         time.Duration // deadline of one write to a client
	PongWait          time.Duration // a client silent (no pong) this long is dropped
	MaxChoices        int           // choices of one prediction
}

// DefaultLimits are the limits used for zero fields.
var DefaultLimits = Limits{
	MaxRooms:          64,
	MaxClientsPerRoom: 500,
	MaxMessageBytes:   1 << 20,
	MaxFrameBytes:     8 << 20,
	CommandsPerSecond: 20,
	CommandBurst:      40,
	SendBuffer:        256,
	MaxHistory:        room.DefaultMaxHistory,
	MaxJobs:           room.DefaultMaxJobs,
	RoomIdle:          2 * time.Hour,
	MaxShares:         10_000,
	MaxShareBytes:     1 << 20,
	MaxShareTotal:     64 << 20,
	WriteWait:         10 * time.Second,
	PongWait:          60 * time.Second,
	MaxChoices:        8,
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	pick := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	pick(&l.MaxRooms, d.MaxRooms)
	pick(&l.MaxClientsPerRoom, d.MaxClientsPerRoom)
	pick(&l.MaxMessageBytes, d.MaxMessageBytes)
	pick(&l.MaxFrameBytes, d.MaxFrameBytes)
	pick(&l.CommandBurst, d.CommandBurst)
	pick(&l.SendBuffer, d.SendBuffer)
	pick(&l.MaxHistory, d.MaxHistory)
	pick(&l.MaxJobs, d.MaxJobs)
	pick(&l.MaxShares, d.MaxShares)
	pick(&l.MaxShareBytes, d.MaxShareBytes)
	pick(&l.MaxShareTotal, d.MaxShareTotal)
	pick(&l.MaxChoices, d.MaxChoices)
	if l.CommandsPerSecond <= 0 {
		l.CommandsPerSecond = d.CommandsPerSecond
	}
	for _, p := range []struct{ v, def *time.Duration }{{&l.RoomIdle, &d.RoomIdle}, {&l.WriteWait, &d.WriteWait}, {&l.PongWait, &d.PongWait}} {
		if *p.v <= 0 {
			*p.v = *p.def
		}
	}
	if l.MaxFrameBytes < l.MaxMessageBytes {
		l.MaxFrameBytes = l.MaxMessageBytes
	}
	return l
}

// Config configures a server.
type Config struct {
	// App serves the browser app at "/" (the page, its wasm, assets). Nil:
	// the server's own classroom page stands in.
	App http.Handler
	// Scenario (a .ksim) and ScenarioName make the default room's cluster;
	// without Scenario, Default (zero: 3 brokers of the newest preset).
	Scenario, ScenarioName string
	Default                core.Options
	// Prelude runs in the default room before each scenario it loads
	// (room.Config.Prelude; `kafkasim serve` uses room.LocalNetwork).
	Prelude string
	// Speed of the default room (virtual ms per wall ms; 0 with Paused).
	Speed  float64
	Paused bool
	// PublicURL is the base of join links and QR codes
	// (http://192.168.1.20:8080); "" takes it from each request's Host.
	PublicURL string
	// AllowOrigins lists the Origins (scheme://host[:port]) besides the
	// server's own whose pages may open websockets; "*" allows any.
	AllowOrigins []string
	// ShareDir, if set, keeps shared scenarios on disk too (they survive a
	// restart); else they live in memory only.
	ShareDir string
	Limits   Limits
	// Logf logs what happens; nil: log.Printf.
	Logf func(format string, args ...any)
	// Tick is the rooms' clock tick (room.DefaultTick).
	Tick time.Duration
}

// Server is a running kafkasim server: its rooms and their clocks. Serve
// Handler() with an http.Server; Close stops every room.
type Server struct {
	cfg    Config
	lim    Limits
	logf   func(string, ...any)
	mux    *http.ServeMux
	shares *shareStore

	mu    sync.Mutex
	rooms map[string]*classroom
	def   *classroom
	quit  chan struct{}
	once  sync.Once
}

// New makes a server with its default room (Config.Scenario) running.
func New(cfg Config) (*Server, error) {
	s := &Server{cfg: cfg, lim: cfg.Limits.withDefaults(), logf: cfg.Logf, rooms: map[string]*classroom{}, quit: make(chan struct{})}
	if s.logf == nil {
		s.logf = log.Printf
	}
	shares, err := newShareStore(s.lim, cfg.ShareDir)
	if err != nil {
		return nil, err
	}
	s.shares = shares
	name := cfg.ScenarioName
	if name == "" {
		name = "default"
	}
	def, err := s.createRoom(name, cfg.Scenario, cfg.Speed, cfg.Paused, true)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", name, err)
	}
	s.def = def
	s.routes()
	go s.reaper()
	return s, nil
}

// DefaultRoom is the room `kafkasim serve` starts with: the served
// cluster that protocol listeners attach to. It is never closed before
// the server.
func (s *Server) DefaultRoom() *room.Room { return s.def.room }

// DefaultCode and DefaultToken are the default room's join code and
// control token (printed for the teacher at startup).
func (s *Server) DefaultCode() string  { return s.def.code }
func (s *Server) DefaultToken() string { return s.def.token }

// Room returns the room with join code code (any case), or nil.
func (s *Server) Room(code string) *room.Room {
	if cr := s.lookup(code); cr != nil {
		return cr.room
	}
	return nil
}

// Handler is the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.mux }

// Close stops every room's clock and ends every subscription (open
// websockets then close).
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.quit)
		s.mu.Lock()
		rooms := make([]*classroom, 0, len(s.rooms))
		for _, cr := range s.rooms {
			rooms = append(rooms, cr)
		}
		s.rooms = map[string]*classroom{}
		s.mu.Unlock()
		for _, cr := range rooms {
			cr.room.Close()
		}
	})
}

// reaper closes created rooms that nobody has been in for RoomIdle.
func (s *Server) reaper() {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-s.quit:
			return
		case <-t.C:
			s.reap(time.Now())
		}
	}
}

func (s *Server) reap(now time.Time) {
	s.mu.Lock()
	var idle []*classroom
	for code, cr := range s.rooms {
		if cr != s.def && cr.idleSince(now) > s.lim.RoomIdle {
			delete(s.rooms, code)
			idle = append(idle, cr)
		}
	}
	s.mu.Unlock()
	for _, cr := range idle {
		s.logf("room %s closed: nobody in it for %s", cr.code, s.lim.RoomIdle)
		cr.room.Close()
	}
}
