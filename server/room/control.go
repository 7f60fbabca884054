package room

import (
	"context"
	"fmt"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/scenario"
	"github.com/kafkasim/kafkasim/server/protocol"
)

// ErrBusy is returned by Exec when Config.MaxJobs scripts are in progress.
var ErrBusy = fmt.Errorf("too many scripts in progress in this room")

// Exec runs steps (from ParseCommands) as a script: commands at once, waits
// following the room's clock. done is called on the room's goroutine when
// the last step has run (it must not block), with what each step did; it
// is always called exactly once if Exec returns nil.
func (r *Room) Exec(ctx context.Context, name string, steps []scenario.Step, done func(protocol.Result)) error {
	var err error
	rerr := r.run(ctx, func() {
		if len(r.st.jobs) >= r.cfg.MaxJobs {
			err = ErrBusy
			return
		}
		j := &job{name: name, steps: steps, res: protocol.Result{Type: protocol.TResult, OK: true}, done: done}
		r.st.jobs = append(r.st.jobs, j)
		r.st.runJobs()
	})
	if rerr != nil {
		return rerr
	}
	return err
}

// Reset goes back to the start of the loaded scenario: its cluster line,
// then its script again from the first step. Every subscriber gets a
// snapshot (reason "reset"); scripts in progress are cancelled.
func (r *Room) Reset(ctx context.Context) error {
	var err error
	if rerr := r.run(ctx, func() {
		if err = r.st.load(r.st.name, r.st.script); err == nil {
			r.st.flush()
			r.st.snapshotAll("reset")
		}
	}); rerr != nil {
		return rerr
	}
	return err
}

// Load replaces the room's scenario with script (a .ksim; "" for the
// default cluster) named name. On a parse error (a *scenario.Error) or a
// bad cluster line nothing changes. Every subscriber gets a snapshot
// (reason "load").
func (r *Room) Load(ctx context.Context, name, script string) error {
	return r.LoadInstant(ctx, name, script, false)
}

// LoadInstant is Load; with instant, the scenario's steps run at once to
// its end (virtual time jumps over its waits, at most 24 h of it) instead
// of following the room's clock: a lesson's earlier steps, replayed to
// where the class is. The history is the same as if they had followed
// the clock.
func (r *Room) LoadInstant(ctx context.Context, name, script string, instant bool) error {
	var err error
	if rerr := r.run(ctx, func() {
		if err = r.st.load(name, script); err != nil {
			return
		}
		if instant {
			r.st.finishJobs()
		}
		r.st.flush()
		r.st.snapshotAll("load")
	}); rerr != nil {
		return rerr
	}
	return err
}

// finishJobs runs virtual time forward at once until every script in
// progress has ended, at most core.MaxWait of it (the rest then follows
// the clock).
func (s *loopState) finishJobs() {
	limit := s.c.Now() + core.MaxWait
	for len(s.jobs) > 0 && !s.faulted {
		next, ok := s.nextWake()
		if !ok {
			if s.c.Pending() == nil {
				return // nothing will move them (cannot happen: a job waits or blocks)
			}
			next = s.c.Now() + 10 // a settle, poll or commit: until it completes
		}
		if next > limit {
			return
		}
		s.advance(max(1, next-s.c.Now()))
	}
}

// SetSpeed sets virtual ms per wall ms (0 pauses) and tells everyone.
func (r *Room) SetSpeed(ctx context.Context, speed float64) error {
	if !(speed >= 0 && speed <= MaxSpeed) {
		return fmt.Errorf("speed %g: want 0 (paused) to %g", speed, MaxSpeed)
	}
	return r.run(ctx, func() {
		r.st.speed = speed
		r.st.carry = 0
		r.st.broadcastAll(r.st.clock())
	})
}

// Speed is the room's speed now.
func (r *Room) Speed() float64 {
	var v float64
	_ = r.run(nil, func() { v = r.st.speed })
	return v
}

func (s *loopState) clock() *Frame {
	return encode(protocol.TClock, protocol.Clock{Type: protocol.TClock, Gen: s.gen, Now: s.c.Now(),
		T: s.r.cfg.Now().UnixMilli(), Speed: s.speed})
}

// AdvanceNow moves virtual time forward by ms at once (a teacher stepping
// a paused room), running the scripts whose waits end on the way.
func (r *Room) AdvanceNow(ctx context.Context, ms int64) error {
	if ms <= 0 || ms > core.MaxWait {
		return fmt.Errorf("advance %d ms: want 1 ms to 24 hours", ms)
	}
	var err error
	if rerr := r.run(ctx, func() {
		if r.st.faulted {
			err = fmt.Errorf("the cluster stopped: reset or load")
			return
		}
		r.st.advance(ms)
	}); rerr != nil {
		return rerr
	}
	return err
}

// History returns the room's history as a scenario up to now, with the
// snapshot at the same moment (what a replay of it must give).
func (r *Room) History(ctx context.Context) (protocol.History, error) {
	var h protocol.History
	var err error
	if rerr := r.run(ctx, func() {
		r.st.flush()
		h, err = r.st.history()
	}); rerr != nil {
		return h, rerr
	}
	return h, err
}

// history is the History message now (after a flush).
func (s *loopState) history() (protocol.History, error) {
	h := protocol.History{Type: protocol.THistory, Gen: s.gen, At: s.c.Now(), Seq: s.lastSeq, N: len(s.hist.entries), Snapshot: s.c.Snapshot()}
	var err error
	h.Ksim, err = s.hist.ksim(s.name, s.c.Now())
	h.Stopped, h.StoppedAt = s.hist.Stopped()
	return h, err
}

// DeliverHistory queues the History message for sub alone, in order with
// the stream: every event and Applied message before it in sub's stream
// is in it, every one after it is not (what a page in live mode needs to
// take over from it). id is the request's id. It reports false when sub's
// buffer was full (sub is then ended, as Deliver does).
func (r *Room) DeliverHistory(ctx context.Context, sub *Sub, id int64) (bool, error) {
	var err error
	ok := true
	if rerr := r.run(ctx, func() {
		r.st.flush()
		var h protocol.History
		if h, err = r.st.history(); err != nil {
			return
		}
		h.ID = id
		ok = r.Deliver(sub, encode(protocol.THistory, h))
	}); rerr != nil {
		return false, rerr
	}
	return ok, err
}

// Snapshot returns the room's state now as the protocol's snapshot message.
func (r *Room) Snapshot(ctx context.Context, reason string, id int64) (*Frame, error) {
	var f *Frame
	err := r.run(ctx, func() {
		r.st.flush()
		f = r.st.snapshot(reason, id)
	})
	return f, err
}
