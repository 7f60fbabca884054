package server

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kafkasim/kafkasim/server/protocol"
	"github.com/kafkasim/kafkasim/server/room"
)

// codeAlphabet has no 0/O, 1/I/L: a join code read off a projector is
// typed right. Six characters: 31^6 ≈ 887 million codes.
const (
	codeAlphabet = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
	codeLen      = 6
)

// errTooManyRooms is the error for a room past Limits.MaxRooms.
var errTooManyRooms = errors.New("too many rooms on this server")

// classroom is a room with what the classroom adds: its join code, the
// control token of those who drive it, the lesson step pages follow, the
// open prediction, and who is in it.
type classroom struct {
	code  string
	token string
	room  *room.Room
	srv   *Server

	nextClient atomic.Int64
	clients    atomic.Int64
	drivers    atomic.Int64
	empty      atomic.Int64 // Unix ms since when nobody is in it (0: someone is)

	mu       sync.Mutex
	lesson   *protocol.Lesson
	file     *roomLesson // the teacher's own lesson file (lesson.go)
	fileSeq  int64
	pred     *prediction
	predSeq  int64
	presence *time.Timer // a presence message is due
}

// prediction is an open question and its answers, by client.
type prediction struct {
	protocol.Prediction
	correct *int
	answers map[int64]int
}

// createRoom makes and registers a room; keep marks the default room.
func (s *Server) createRoom(name, script string, speed float64, paused bool, keep bool) (*classroom, error) {
	s.mu.Lock()
	n := len(s.rooms)
	s.mu.Unlock()
	if n >= s.lim.MaxRooms {
		return nil, errTooManyRooms
	}
	prelude := ""
	if keep {
		prelude = s.cfg.Prelude // the default room's: real Kafka clients use it
	}
	r, err := room.New(room.Config{
		Name: name, Script: script, Default: s.cfg.Default, Prelude: prelude, Speed: speed, Paused: paused,
		Tick: s.cfg.Tick, MaxHistory: s.lim.MaxHistory, MaxJobs: s.lim.MaxJobs, Logf: s.logf,
	})
	if err != nil {
		return nil, err
	}
	cr := &classroom{token: randomToken(), room: r, srv: s}
	cr.empty.Store(time.Now().UnixMilli())
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.rooms) >= s.lim.MaxRooms {
		r.Close()
		return nil, errTooManyRooms
	}
	for {
		cr.code = randomCode()
		if s.rooms[cr.code] == nil {
			break
		}
	}
	s.rooms[cr.code] = cr
	return cr, nil
}

func (s *Server) lookup(code string) *classroom {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rooms[strings.ToUpper(strings.TrimSpace(code))]
}

// closeRoom closes and forgets a created room (never the default one).
func (s *Server) closeRoom(cr *classroom) error {
	if cr == s.def {
		return fmt.Errorf("the default room stays open while the server runs")
	}
	s.mu.Lock()
	delete(s.rooms, cr.code)
	s.mu.Unlock()
	cr.room.Close()
	return nil
}

// authorized reports whether token is the room's control token.
func (cr *classroom) authorized(token string) bool {
	return token != "" && subtle.ConstantTimeCompare([]byte(token), []byte(cr.token)) == 1
}

// idleSince is how long the room has been empty (0 if someone is in it).
func (cr *classroom) idleSince(now time.Time) time.Duration {
	e := cr.empty.Load()
	if e == 0 || cr.clients.Load() > 0 {
		return 0
	}
	return now.Sub(time.UnixMilli(e))
}

// join takes a client slot; false when the room is full.
func (cr *classroom) join(max int) bool {
	if cr.clients.Add(1) > int64(max) {
		cr.clients.Add(-1)
		return false
	}
	cr.empty.Store(0)
	return true
}

func (cr *classroom) leave(driver bool) {
	if driver {
		cr.drivers.Add(-1)
	}
	if cr.clients.Add(-1) == 0 {
		cr.empty.Store(time.Now().UnixMilli())
	}
	cr.presenceChanged()
}

func randomCode() string {
	var b [codeLen]byte
	rand.Read(b[:])
	for i := range b {
		b[i] = codeAlphabet[int(b[i])%len(codeAlphabet)]
	}
	return string(b[:])
}

func randomToken() string {
	var b [18]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}
