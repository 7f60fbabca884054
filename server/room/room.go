// Package room runs one simulated cluster for many watchers: a Room owns a
// core.Cluster on one goroutine (the core is not safe for concurrent use),
// advances it with the wall clock (virtual ms = wall ms × speed, in small
// ticks), runs scenario scripts whose waits follow that clock, records a
// timed history that replays to the same state, and fans its events out to
// subscribers with bounded buffers. A subscriber that falls behind is
// dropped from the stream and resynced with a fresh snapshot, never given
// an unbounded backlog.
//
// Everything that touches the cluster runs on the room's goroutine: Do and
// the other methods hand it a function and wait for it. Protocol listeners
// (ZooKeeper, Kafka) read and drive the cluster through Do, Apply and Hook.
package room

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kafkasim/kafkasim/core"
)

// Defaults and bounds of Config.
const (
	DefaultTick          = 20 * time.Millisecond
	DefaultCoalesce      = 50 * time.Millisecond
	DefaultMaxHistory    = 100_000 // commands
	DefaultMaxHistBytes  = 8 << 20 // bytes of command text
	DefaultMaxJobs       = 16      // scripts in progress at once
	DefaultMaxTickEvents = 20_000  // events one tick may stream; more resyncs everyone
	MaxSpeed             = 100.0   // virtual ms per wall ms
	maxCatchUp           = 250     // wall ms one tick may make up for (a late tick, a GC pause)
	heartbeatEvery       = 250     // wall ms between batches when nothing happens
	opsQueue             = 256
)

// ErrClosed is returned by every method once the room is closed.
var ErrClosed = errors.New("room closed")

// Config configures a room.
type Config struct {
	// Name is what the scenario is called (a file name, a lesson id).
	Name string
	// Script is a scenario (.ksim): its cluster line makes the cluster and
	// its other steps run with waits following the clock. "" means
	// Default.
	Script string
	// Default is the cluster made when Script is "" (Brokers 0: 3 brokers
	// of the newest preset).
	Default core.Options
	// Prelude is scenario steps (no cluster line) run right after the
	// cluster line of every scenario the room loads or resets to, before
	// that scenario's own steps, and recorded in the history as they are:
	// a replay or an export does the same. A scenario that sets the same
	// thing itself wins, its step coming later. `kafkasim serve` puts
	// LocalNetwork here. New fails if it does not parse.
	Prelude string
	// Speed is virtual ms per wall ms at the start (0: paused); 1 if unset
	// and Paused is false.
	Speed  float64
	Paused bool
	// Tick is how often the clock advances the cluster (DefaultTick).
	Tick time.Duration
	// Coalesce is how often, at most, the ticks' events are streamed as
	// one batch (DefaultCoalesce; events a command caused go out at once).
	Coalesce time.Duration
	// MaxHistory and MaxHistoryBytes bound the recorded commands; past
	// them a command is refused (ErrHistoryFull) until a reset or load.
	MaxHistory, MaxHistoryBytes int
	// MaxJobs bounds scripts in progress (ErrBusy past it).
	MaxJobs int
	// MaxTickEvents bounds the events one tick streams; a tick with more
	// sends every subscriber a snapshot instead.
	MaxTickEvents int
	// Now is the wall clock (time.Now if nil); tests pass their own.
	Now func() time.Time
	// Ticks, if set, replaces the ticker: the room advances when a time
	// arrives on it (tests drive the clock by hand).
	Ticks <-chan time.Time
	// Logf reports what nobody asked for: a loaded scenario's failed
	// expectations and commands, internal faults. Nil: discarded.
	Logf func(format string, args ...any)
}

// Room is one served cluster. Its exported methods are safe for use from
// any goroutine.
type Room struct {
	cfg  Config
	ops  chan func()
	quit chan struct{}
	done chan struct{}
	once sync.Once

	// Counters, readable from any goroutine.
	resyncs  atomic.Int64 // subscribers resynced after falling behind
	frames   atomic.Int64 // frames broadcast
	nsubs    atomic.Int64
	lagging  atomic.Int64 // subscribers dropped from the stream, waiting to resync
	nowAtom  atomic.Int64
	genAtom  atomic.Int64
	stepping atomic.Bool

	// Owned by the loop goroutine.
	st loopState
}

// Stats are a room's counters.
type Stats struct {
	Gen         int
	Now         int64 // virtual ms
	Subscribers int
	Lagging     int // subscribers dropped from the stream now, waiting to resync
	Resyncs     int64
	Frames      int64
}

// New makes a room from cfg and starts its clock. A Script that does not
// parse, or whose cluster line is invalid, is an error (a *scenario.Error
// for a parse error).
func New(cfg Config) (*Room, error) {
	if cfg.Tick <= 0 {
		cfg.Tick = DefaultTick
	}
	if cfg.Coalesce <= 0 {
		cfg.Coalesce = DefaultCoalesce
	}
	if cfg.MaxHistory <= 0 {
		cfg.MaxHistory = DefaultMaxHistory
	}
	if cfg.MaxHistoryBytes <= 0 {
		cfg.MaxHistoryBytes = DefaultMaxHistBytes
	}
	if cfg.MaxJobs <= 0 {
		cfg.MaxJobs = DefaultMaxJobs
	}
	if cfg.MaxTickEvents <= 0 {
		cfg.MaxTickEvents = DefaultMaxTickEvents
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	speed := cfg.Speed
	if speed == 0 && !cfg.Paused {
		speed = 1
	}
	if cfg.Paused {
		speed = 0
	}
	if speed < 0 || speed > MaxSpeed {
		return nil, fmt.Errorf("speed %g: want 0 to %g", speed, MaxSpeed)
	}
	r := &Room{
		cfg:  cfg,
		ops:  make(chan func(), opsQueue),
		quit: make(chan struct{}),
		done: make(chan struct{}),
	}
	r.st.init(r, speed)
	if cfg.Prelude != "" {
		pre, err := ParseCommands(cfg.Prelude) // steps as a command message has them: no cluster line
		if err != nil {
			return nil, err
		}
		r.st.prelude = pre
	}
	if err := r.st.load(cfg.Name, cfg.Script); err != nil {
		return nil, err
	}
	go r.loop()
	return r, nil
}

// Close stops the room's clock and ends every subscription. It waits for
// the loop to finish.
func (r *Room) Close() {
	r.once.Do(func() { close(r.quit) })
	<-r.done
}

// Done is closed when the room has stopped.
func (r *Room) Done() <-chan struct{} { return r.done }

// Stats returns the room's counters.
func (r *Room) Stats() Stats {
	return Stats{
		Gen: int(r.genAtom.Load()), Now: r.nowAtom.Load(),
		Subscribers: int(r.nsubs.Load()), Lagging: int(r.lagging.Load()), Resyncs: r.resyncs.Load(), Frames: r.frames.Load(),
	}
}

func (r *Room) loop() {
	defer close(r.done)
	var ticks <-chan time.Time
	if r.cfg.Ticks != nil {
		ticks = r.cfg.Ticks
	} else {
		t := time.NewTicker(r.cfg.Tick)
		defer t.Stop()
		ticks = t.C
	}
	// wake fires when the cluster has work before the next tick (wake.go).
	wake := time.NewTimer(time.Hour)
	defer wake.Stop()
	for {
		if r.follows() {
			d, ok := r.st.wakeIn()
			if !ok || d >= r.cfg.Tick {
				d = time.Hour // the ticker comes first
			}
			wake.Reset(d)
		}
		select {
		case fn := <-r.ops:
			if r.follows() {
				r.guard("tick", r.st.catchUp)
			}
			r.guard("op", fn)
			r.guard("flush", r.st.flush)
		case now := <-ticks:
			r.guard("tick", func() { r.st.tick(now) })
		case now := <-wake.C:
			r.guard("tick", func() { r.st.tick(now) })
		case <-r.quit:
			r.st.closeAll()
			return
		}
	}
}

// guard runs fn, turning a panic (a bug in the core or in a listener's
// function) into a log line instead of the end of the server.
func (r *Room) guard(what string, fn func()) {
	defer func() {
		if p := recover(); p != nil {
			r.cfg.Logf("room %s: panic in %s: %v\n%s", r.cfg.Name, what, p, debug.Stack())
		}
	}()
	fn()
}

// run hands fn to the loop and waits until it has run. It is the one way
// in to the loop's state.
func (r *Room) run(ctx context.Context, fn func()) error {
	if ctx == nil {
		ctx = context.Background()
	}
	fin := make(chan struct{})
	var perr any
	op := func() {
		defer close(fin)
		defer func() {
			if p := recover(); p != nil {
				perr = p
				r.cfg.Logf("room %s: panic: %v\n%s", r.cfg.Name, p, debug.Stack())
			}
		}()
		fn()
	}
	select {
	case r.ops <- op:
	case <-r.quit:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-fin:
		if perr != nil {
			return fmt.Errorf("internal error: %v", perr)
		}
		return nil
	case <-r.done:
		return ErrClosed
	case <-ctx.Done():
		// The op may still run; fn must not touch what the caller owns
		// after this. Callers pass closures over their own results only.
		return ctx.Err()
	}
}

// Do runs fn on the room's goroutine with the cluster and waits for it.
// fn may read anything; a command it applies with c.Apply is NOT in the
// room's history (export and fork miss it): use Apply for commands. fn
// must not keep c.
func (r *Room) Do(ctx context.Context, fn func(c *core.Cluster)) error {
	return r.run(ctx, func() { fn(r.st.c) })
}

// Apply applies one command now and records it in the history. The
// command's error (from the core) is returned as is.
func (r *Room) Apply(ctx context.Context, cmd core.Command) error {
	var err error
	if rerr := r.run(ctx, func() { err = r.st.applyCmd(cmd); r.st.coalesce = isOutside(cmd) }); rerr != nil {
		return rerr
	}
	return err
}

// AddHook registers h; remove unregisters it.
func (r *Room) AddHook(h Hook) (remove func(), err error) {
	var id int
	if err := r.run(nil, func() { id = r.st.addHook(h) }); err != nil {
		return nil, err
	}
	return func() { _ = r.run(nil, func() { delete(r.st.hooks, id) }) }, nil
}

// Now is the room's virtual time as of its last step.
func (r *Room) Now() int64 { return r.nowAtom.Load() }

// Name is the loaded scenario's name.
func (r *Room) Name() string {
	var n string
	_ = r.run(nil, func() { n = r.st.name })
	return n
}
