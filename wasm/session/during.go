package session

import (
	"fmt"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/scenario"
)

// `during +D COMMAND` steps (core/scenario/during.go): a command applied
// D after the start of the settle, poll or commit in progress, while it
// runs (a real client's request that came in the middle of a room's
// script operation). They follow the blocking step in the script and
// start at their instant of the operation; the driver's clock stops
// there as it stops at the operation's end.

// runDuring starts the next step if it is a during step of the
// operation in progress due by t, running the operation to its instant
// first; false if there is none to run.
func (d *Driver) runDuring(t int64) bool {
	if !d.blocking || d.next >= len(d.steps) || d.steps[d.next].During == nil {
		return false
	}
	at := d.blockAt + *d.steps[d.next].During
	if at > t {
		return false
	}
	if d.Now() < at {
		done, err := d.runner.Advance(min(at-d.Now(), core.MaxAdvance))
		d.drain()
		if err != nil {
			d.fault = err
			return true
		}
		if done {
			d.finishBlocking()
			d.runQueued()
		}
		return true
	}
	d.startStep()
	return true
}

// startDuring runs a during step now (the runner checks its instant);
// its error or failure.
func (d *Driver) startDuring(st *scenario.Step) string {
	before := len(d.runner.Failures())
	if err := d.runner.Begin(st); err != nil {
		return err.Error()
	}
	d.drain()
	if e := d.runner.CmdErr(); e != "" {
		return e
	}
	if f := d.runner.Failures(); len(f) > before {
		return f[len(f)-1].Msg
	}
	return ""
}

// insertDuring adds a during step at the current time, which must be its
// instant in the operation in progress, and runs it.
func (d *Driver) insertDuring(st scenario.Step) (StepResult, error) {
	if !d.blocking || d.runner.InProgress() == nil {
		return StepResult{}, fmt.Errorf("%q: no settle, poll or commit is in progress", st.Text)
	}
	if at := d.blockAt + *st.During; at != d.Now() {
		return StepResult{}, fmt.Errorf("%q is for t=%s, and the time is %s", st.Text, core.FormatTime(at), core.FormatTime(d.Now()))
	}
	d.noteEdit(d.Now())
	at := d.next
	if at == len(d.steps) {
		d.steps = append(d.steps, st)
	} else {
		tail := append([]scenario.Step{st}, d.steps[at:]...)
		d.steps = append(d.steps[:at:at], tail...)
	}
	d.startStep()
	return d.results[len(d.results)-1], nil
}
