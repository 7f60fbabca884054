package scenario

import (
	"fmt"
	"strings"

	"github.com/kafkasim/kafkasim/core"
)

// Run executes a script from its first line. The first step must be
// `cluster`; a later `cluster` line is an error.
func Run(s *Script, opts RunOptions) (*Result, error) {
	r := NewRunner(opts)
	for i := range s.Steps {
		step := r.Step
		if i+1 < len(s.Steps) && s.Steps[i+1].During != nil {
			step = r.Begin // a during step follows: the operation stays in progress for it
		}
		if err := step(&s.Steps[i]); err != nil {
			return r.res, err
		}
	}
	return r.Finish(), nil
}

// Runner executes a script one step at a time, exactly as Run does (Run is
// a loop over Step, then Finish), so a caller can look at the cluster
// between steps. Under an outside clock a step is Begin, then Advance in
// increments of the caller's choosing while InProgress reports the step's
// wait, settle, poll or commit; the trace is the same whatever the
// increments (Player does this for a whole script).
type Runner struct {
	opts    RunOptions
	res     *Result
	c       *core.Cluster
	out     strings.Builder
	lastErr string // error of the previous command, for `expect error`
	errLine int    // its line, while nobody has expected it
	cmdErr  string // error of the last step, if it was a command
	running *Step  // the step whose blocking operation is in progress
	started int64  // when it started (virtual ms)
}

// NewRunner returns a runner waiting for the script's `cluster` step.
func NewRunner(opts RunOptions) *Runner {
	return &Runner{opts: opts, res: &Result{}}
}

// Cluster returns the cluster (nil before the `cluster` step).
func (r *Runner) Cluster() *core.Cluster { return r.c }

// Failures returns the failures so far. A command's unexpected error
// becomes a failure only at the next step that is not `expect error`
// (or at Finish).
func (r *Runner) Failures() []Failure { return r.res.Failures }

// CmdErr returns the error of the last step if it was a command that
// failed, else "". While the step is in progress it is "".
func (r *Runner) CmdErr() string { return r.cmdErr }

// Trace returns the trace written so far (empty with NoTrace).
func (r *Runner) Trace() string { return r.out.String() }

// Finish ends the run: a step still in progress is run to completion, a
// pending unexpected error becomes a failure, the checker's summary closes
// the trace, and the result is returned.
func (r *Runner) Finish() *Result {
	r.complete()
	r.finishError()
	r.summary()
	r.res.Trace = r.out.String()
	return r.res
}

// Step executes one step whole: Begin, then Advance until the step's
// blocking operation (if any) completes. It returns an error only when the
// script cannot go on (no cluster yet, a second cluster, bad cluster
// options); failed commands and expectations are recorded as failures.
func (r *Runner) Step(st *Step) error {
	if err := r.Begin(st); err != nil {
		return err
	}
	r.complete()
	return nil
}

// complete advances until the step in progress completes.
func (r *Runner) complete() {
	for r.running != nil {
		op := r.c.Pending()
		if op == nil { // cannot happen: the runner's step owns the operation
			r.running = nil
			break
		}
		r.Advance(min(op.Deadline-r.c.Now(), core.MaxAdvance))
	}
}

// InProgress returns the blocking operation (a wait, settle, poll or
// commit) of the step Begin started, while it is still running, or nil.
// Its Deadline is the latest virtual time at which it completes.
func (r *Runner) InProgress() *core.Op {
	if r.running == nil {
		return nil
	}
	return r.c.Pending()
}

// Begin starts one step at the current virtual time. Every step but a
// wait, settle, poll or commit is done when Begin returns; those are in
// progress until Advance completes them (InProgress), unless they could
// complete at once. A step in progress is run to completion first. The
// error is Step's.
func (r *Runner) Begin(st *Step) error {
	if st.During != nil && r.c != nil {
		r.beginDuring(st)
		return nil
	}
	r.complete()
	r.cmdErr = ""
	if st.Cluster != nil {
		if r.c != nil {
			return &Error{Line: st.Line, Col: 1, Msg: "cluster given twice"}
		}
		c, err := core.New(*st.Cluster)
		if err != nil {
			return &Error{Line: st.Line, Col: 1, Msg: err.Error()}
		}
		r.c, r.res.Cluster = c, c
		r.echo(st)
		r.flush()
		return nil
	}
	if r.c == nil {
		return &Error{Line: st.Line, Col: 1, Msg: "the first command must be `cluster brokers=N ...`"}
	}
	if st.Expect == nil || st.Expect.Kind != "error" {
		r.finishError()
	}
	r.echo(st)
	switch {
	case st.Cmd != nil:
		before := r.c.Pending() // nil unless a caller applied a blocking command itself
		err := r.c.Apply(st.Cmd)
		r.flush()
		if err == nil && before == nil && r.c.Pending() != nil {
			r.running, r.started = st, r.c.Now()
			return nil
		}
		r.commandDone(st, err)
	case st.Print != nil:
		r.print(st)
	case st.Expect != nil:
		if msg := r.expect(st.Expect); msg != "" {
			r.fail(st.Line, msg)
			if !r.opts.NoTrace {
				fmt.Fprintf(&r.out, "  FAILED: %s\n", msg)
			}
		}
	}
	return nil
}

// Advance runs virtual time forward by at most d ms (core.Cluster.Advance),
// writing the events to the trace as they happen. While a step is in
// progress it stops at the instant the step's operation completes, records
// the step's outcome exactly as Step would, and reports true. With no step
// in progress it just lets time pass (events still go to the trace, and a
// fault is returned). Otherwise the error is for a d outside
// 0..core.MaxAdvance or a missing cluster, and nothing happened.
func (r *Runner) Advance(d int64) (bool, error) {
	if r.c == nil {
		return false, fmt.Errorf("no cluster yet")
	}
	if d < 0 || d > core.MaxAdvance {
		return false, fmt.Errorf("advance %d ms: want 0 to %d", d, int64(core.MaxAdvance))
	}
	done, err := r.c.Advance(d)
	r.flush()
	if r.running == nil {
		return false, err
	}
	if done == nil { // (a fault completes the operation too)
		return false, nil
	}
	st := r.running
	r.running = nil
	r.commandDone(st, done.Err)
	return true, nil
}

// commandDone records a command's outcome.
func (r *Runner) commandDone(st *Step, err error) {
	if err == nil {
		return
	}
	r.lastErr, r.errLine, r.cmdErr = err.Error(), st.Line, err.Error()
	if !r.opts.NoTrace {
		fmt.Fprintf(&r.out, "  error: %s\n", err)
	}
}

// print writes a `print` step's text into the trace.
func (r *Runner) print(st *Step) {
	if r.opts.NoTrace {
		return
	}
	text, err := r.c.Describe(st.Print.Target)
	if st.Print.Offset >= 0 {
		text, err = r.c.DescribeRead(st.Print.Target, st.Print.Offset)
	}
	if err != nil {
		r.fail(st.Line, err.Error())
		return
	}
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		r.out.WriteString("  | " + l + "\n")
	}
}
