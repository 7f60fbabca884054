package scenario

import "github.com/kafkasim/kafkasim/core"

// Player plays a script under an outside clock: a browser animating the
// run, a server advancing with the wall clock, a lesson stepping through.
// The driver asks for the Next step, Starts it, and while it is InProgress
// (a wait, settle, poll or commit) calls Advance with increments of its
// choosing, as small as it likes. The trace, the cluster and the result are
// exactly those of Run, whatever the increments:
//
//	p := scenario.NewPlayer(script, opts)
//	for !p.Done() {
//		if p.InProgress() != nil {
//			p.Advance(frameMs) // or the wall clock's elapsed ms
//			continue
//		}
//		if err := p.Start(); err != nil { ... } // the script cannot go on
//	}
//	res := p.Finish()
//
// The embedded Runner gives the cluster, the trace so far and the failures.
type Player struct {
	*Runner
	script *Script
	next   int // index of the next step to start
}

// NewPlayer returns a player at the script's first step.
func NewPlayer(s *Script, opts RunOptions) *Player {
	return &Player{Runner: NewRunner(opts), script: s}
}

// Next returns the step Start would begin, or nil when every step has
// started. While a step is in progress Next is the one after it.
func (p *Player) Next() *Step {
	if p.next >= len(p.script.Steps) {
		return nil
	}
	return &p.script.Steps[p.next]
}

// Start begins the next step (Runner.Begin). A step still in progress is
// run to completion first, so a driver that never calls Advance gets
// Run's behaviour. The error means the script cannot go on (Run's error);
// Start at the end of the script does nothing.
func (p *Player) Start() error {
	st := p.Next()
	if st == nil {
		return nil
	}
	p.next++
	return p.Begin(st)
}

// Done reports that every step has started and none is in progress.
func (p *Player) Done() bool { return p.Next() == nil && p.InProgress() == nil }

// Remaining is how long, at most, the step in progress may still take in
// virtual ms (0 when none is in progress).
func (p *Player) Remaining() int64 {
	op := p.InProgress()
	if op == nil {
		return 0
	}
	return op.Deadline - p.Cluster().Now()
}

// Pending is the step in progress and its operation, or nil.
func (p *Player) Pending() (*Step, *core.Op) {
	op := p.InProgress()
	if op == nil {
		return nil, nil
	}
	return p.running, op
}
