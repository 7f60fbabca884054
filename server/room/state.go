package room

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/scenario"
	"github.com/kafkasim/kafkasim/server/protocol"
)

// loopState is everything the room's goroutine owns.
type loopState struct {
	r       *Room
	name    string
	script  string          // what reset goes back to
	prelude []scenario.Step // Config.Prelude: run before every loaded scenario's steps
	gen     int
	c       *core.Cluster
	runner  *scenario.Runner

	speed    float64
	lastWall time.Time
	carry    float64 // fraction of a virtual ms not yet advanced
	lastSend time.Time
	faulted  bool

	pending []core.Event       // drained, not yet sent
	unsent  []core.Event       // handed to the hooks, not yet streamed
	applied []protocol.Applied // commands recorded since the last batch, streamed with it
	lastErr string             // the last command's error, for `expect error`
	lastSeq uint64             // last event sent
	hist    history
	jobs    []*job
	subs    map[*Sub]struct{}
	hooks   map[int]Hook
	hookID  int
	reset   bool // the next flush tells hooks the cluster was replaced
	// coalesce: the op just run was a real client's (Apply of an outside
	// command): its events go to the hooks at once (a listener routes its
	// replies) and to subscribers with the next coalesced batch, not in a
	// frame per request.
	coalesce bool
}

func (s *loopState) init(r *Room, speed float64) {
	s.r, s.speed = r, speed
	s.subs = map[*Sub]struct{}{}
	s.hooks = map[int]Hook{}
	s.lastWall = r.cfg.Now()
}

// defaultCluster is the cluster line used without a script: 3 brokers of
// the newest preset unless Config.Default says otherwise.
func (s *loopState) defaultCluster() core.Options {
	o := s.r.cfg.Default
	if o.Brokers == 0 {
		o.Brokers = 3
	}
	if o.Version == "" {
		v := core.VersionNames() // the newest preset
		o.Version = v[len(v)-1]
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	return o
}

// load replaces the cluster with script's (or the default cluster when
// script is ""): a new generation, an empty history, no jobs. The rest of
// the script becomes a job. On error nothing changes.
func (s *loopState) load(name, script string) error {
	var steps []scenario.Step
	var first scenario.Step
	if script == "" {
		o := s.defaultCluster()
		first = scenario.Step{Line: 1, Cluster: &o}
	} else {
		sc, err := scenario.Parse(script)
		if err != nil {
			return err
		}
		if len(sc.Steps) == 0 || sc.Steps[0].Cluster == nil {
			return &scenario.Error{Line: 1, Col: 1, Msg: "the first command must be `cluster brokers=N ...`"}
		}
		first, steps = sc.Steps[0], sc.Steps[1:]
		for _, st := range steps {
			if st.Cluster != nil {
				return &scenario.Error{Line: st.Line, Col: 1, Msg: "cluster given twice"}
			}
		}
	}
	var evs []core.Event
	var runner *scenario.Runner
	runner = scenario.NewRunner(scenario.RunOptions{NoTrace: true, OnEvent: func(e *core.Event) {
		if s.runner == runner {
			s.pending = append(s.pending, *e)
		} else {
			evs = append(evs, *e) // the cluster line's own events
		}
	}})
	if err := runner.Step(&first); err != nil {
		return err
	}
	for _, j := range s.jobs {
		j.cancel("the room was reset")
	}
	s.name, s.script = name, script
	s.c, s.runner = runner.Cluster(), runner
	s.c.StopCommandLog() // the room's history is its own (history.go); real clients' records must not pile up in the core's
	s.gen++
	s.reset = true
	s.pending = evs
	s.unsent, s.applied = nil, nil
	s.faulted = false
	s.jobs = nil
	s.hist = history{opts: s.c.Options(), max: s.r.cfg.MaxHistory, maxBytes: s.r.cfg.MaxHistoryBytes}
	s.lastWall = s.r.cfg.Now()
	s.carry = 0
	s.r.genAtom.Store(int64(s.gen))
	s.r.nowAtom.Store(s.c.Now())
	steps = append(slices.Clip(s.prelude), steps...)
	if len(steps) > 0 {
		s.jobs = append(s.jobs, &job{steps: steps, name: name, done: s.logScriptResult})
	}
	s.runJobs()
	return nil
}

// logScriptResult reports a loaded scenario's failures (nobody is waiting
// for its reply).
func (s *loopState) logScriptResult(res protocol.Result) {
	for _, l := range res.Lines {
		switch {
		case l.Error != "":
			s.r.cfg.Logf("%s:%d: command failed: %s", s.name, l.Line, l.Error)
		case l.Failed != "":
			s.r.cfg.Logf("%s:%d: %s", s.name, l.Line, l.Failed)
		}
	}
}

// tick advances the cluster by the wall time since the last tick × speed,
// stopping at each job's wait deadline to run its next steps at exactly
// that virtual time.
func (s *loopState) tick(now time.Time) {
	wall := now.Sub(s.lastWall)
	s.lastWall = now
	ms := float64(wall) / float64(time.Millisecond)
	ms = math.Max(0, math.Min(ms, maxCatchUp))
	if s.speed > 0 && !s.faulted {
		v := ms*s.speed + s.carry
		whole := math.Floor(v)
		s.carry = v - whole
		s.advance(int64(whole))
	}
	// Ticks coalesce their events into one batch every Coalesce: fewer,
	// larger frames for every watcher.
	s.drain()
	if now.Sub(s.lastSend) >= s.r.cfg.Coalesce {
		s.sendUnsent()
	}
	s.resync()
	if len(s.subs) > 0 && now.Sub(s.lastSend) >= heartbeatEvery*time.Millisecond {
		s.sendEvents(nil, nil)
	}
}

// advance moves virtual time forward by d ms, running jobs whose waits end
// on the way at the instant they end.
func (s *loopState) advance(d int64) {
	end := s.c.Now() + d
	for !s.faulted {
		next, ok := s.nextWake()
		if !ok || next > end {
			break
		}
		s.advanceTo(next)
		s.runJobs()
	}
	s.advanceTo(end)
	s.runJobs()
}

func (s *loopState) advanceTo(t int64) {
	// Never an Advance of 0 ms: every Advance is time passing, which the
	// history writes as a wait, so a replay applies each command after
	// the same timers.
	for !s.faulted && t > s.c.Now() {
		d, err := s.c.Advance(t - s.c.Now())
		s.r.nowAtom.Store(s.c.Now())
		if d != nil {
			s.opDone(d)
			s.runJobs() // at the instant the operation completed
		}
		if err != nil {
			s.fault(err)
		}
	}
}

// fault stops the clock after the core hit an internal limit: the cluster
// can no longer be trusted to run, but it can still be looked at, reset
// or replaced.
func (s *loopState) fault(err error) {
	s.faulted = true
	s.r.cfg.Logf("room %s: the cluster stopped: %v", s.name, err)
	s.broadcastAll(encode(protocol.TError, protocol.Error{Type: protocol.TError, Code: protocol.ErrLimit,
		Message: "the cluster stopped: " + err.Error() + " (reset or load to go on)"}))
}

// flush drains the cluster's events, tells the hooks, and sends them to
// subscribers now (after a command, so its reply follows its events).
func (s *loopState) flush() {
	s.drain()
	if s.coalesce {
		s.coalesce = false
		return
	}
	s.sendUnsent()
}

// drain takes the cluster's new events and hands them to the hooks; they
// wait in unsent for the next send.
func (s *loopState) drain() {
	if s.c == nil {
		return
	}
	if evs := s.c.Events(); len(s.pending) == 0 {
		s.pending = evs // the cluster's list, which it forgets: no copy
	} else {
		s.pending = append(s.pending, evs...)
	}
	s.r.nowAtom.Store(s.c.Now())
	if len(s.pending) == 0 && !s.reset {
		return
	}
	evs := s.pending
	s.pending = nil
	b := Batch{Gen: s.gen, Reset: s.reset, Now: s.c.Now(), Events: evs}
	s.reset = false
	for _, h := range s.hooks {
		h(s.c, b)
	}
	if len(s.unsent) == 0 {
		s.unsent = evs // the hooks have had them; nothing else holds the list
	} else {
		s.unsent = append(s.unsent, evs...)
	}
}

// sendUnsent streams the events not sent yet as one batch (a batch with
// more than MaxTickEvents resyncs everyone by snapshot instead).
func (s *loopState) sendUnsent() {
	evs, applied := s.unsent, s.applied
	if len(evs) == 0 && len(applied) == 0 {
		return
	}
	s.unsent, s.applied = nil, nil
	if len(evs) > 0 {
		s.lastSeq = evs[len(evs)-1].Seq
	}
	if len(evs) > s.r.cfg.MaxTickEvents {
		s.snapshotAll("resync") // live copies reload the history: the commands are in it
		return
	}
	s.sendEvents(evs, applied)
}

// sendEvents streams one batch: the events and the commands recorded
// since the last one, one frame for every subscriber (encoded once).
func (s *loopState) sendEvents(evs []core.Event, applied []protocol.Applied) {
	if evs == nil {
		evs = []core.Event{}
	}
	now := s.r.cfg.Now()
	s.lastSend = now
	if len(s.subs) == 0 {
		return // nobody to encode it for
	}
	s.broadcast(encode(protocol.TEvents, protocol.Events{
		Type: protocol.TEvents, Gen: s.gen, Now: s.c.Now(), T: now.UnixMilli(), Events: evs, Applied: applied}))
}

// snapshot encodes the cluster's state now (after a flush: every event up
// to lastSeq is in it).
func (s *loopState) snapshot(reason string, id int64) *Frame {
	s.sendUnsent() // events the state already includes go out first
	return encode(protocol.TSnapshot, protocol.Snapshot{
		Type: protocol.TSnapshot, ID: id, Reason: reason, Gen: s.gen, Seq: s.lastSeq,
		T: s.r.cfg.Now().UnixMilli(), Speed: s.speed, Scenario: s.name, Snapshot: s.c.Snapshot()})
}

func (s *loopState) addHook(h Hook) int {
	s.hookID++
	s.hooks[s.hookID] = h
	return s.hookID
}

// encode makes a frame of v; the protocol's types always encode.
func encode(kind string, v any) *Frame {
	data, err := json.Marshal(v)
	if err != nil {
		data, _ = json.Marshal(protocol.Error{Type: protocol.TError, Code: "internal", Message: fmt.Sprintf("encoding %s: %v", kind, err)})
		kind = protocol.TError
	}
	return NewFrame(kind, data)
}
