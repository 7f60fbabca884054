// Package session is the browser engine's timeline, in pure Go: a branch
// is a scenario script (its first step the `cluster` line, every pause
// an explicit wait), a Driver plays one branch on a core.Cluster under an
// outside clock, and a Session holds the branches, the current one and
// its driver. Seeking replays from the seed; acting in the past forks.
// Nothing here reads a clock or starts a goroutine: the page's animation
// frame calls RunTo.
package session

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/scenario"
)

// Limits on one driver.
const (
	// MaxStepMs bounds how far Step looks for the next event.
	MaxStepMs = 60_000
	// MaxRunMs bounds one RunTo call (virtual ms), so a stray seek to the
	// far future cannot hang the page.
	MaxRunMs = 24 * 3600 * 1000
)

// StepResult is what executing one step of the script produced.
type StepResult struct {
	Index  int    // step index in the branch
	At     int64  // virtual ms it started
	Error  string // the command's error, or the expectation's failure
	Output string // a print step's text
	Queued bool   // held until the settle, poll or commit in progress completes
}

// Driver plays a branch's steps on one cluster. Steps that take no time
// run as soon as the clock reaches them; a wait runs for its duration
// while the clock moves in whatever increments the caller chooses (the
// result does not depend on them: Advance(a)+Advance(b) is Advance(a+b));
// settle and poll run to completion when they start (their end depends on
// the cluster). After the last step the cluster runs freely.
type Driver struct {
	steps  []scenario.Step
	next   int // index of the next step to start
	runner *scenario.Runner
	c      *core.Cluster

	waiting   bool  // a wait is in progress
	waitIdx   int   // its index
	waitStart int64 // when it started
	waitEnd   int64 // when it ends
	lastEnd   int64 // when the last step finished (free running since then)

	blocking bool  // a settle, poll or commit is in progress (in the core)
	blockIdx int   // its step index
	blockAt  int64 // when it started (during steps count from it: during.go)
	blockRes int   // its index in results
	queue    []scenario.Step

	starts  []int64 // start time of each step started so far
	results []StepResult
	fault   error // the core hit an internal limit; nothing runs any more

	events *Store
	hash   traceHash

	// edited: Insert changed the steps from editFrom on (virtual ms)
	// since takeEdit last read it (checkpoints after it are stale).
	edited   bool
	editFrom int64
}

// takeEdit reports the earliest moment from which Insert changed the
// steps since the last call, and clears it.
func (d *Driver) takeEdit() (int64, bool) {
	from, ok := d.editFrom, d.edited
	d.edited = false
	return from, ok
}

func (d *Driver) noteEdit(from int64) {
	if !d.edited || from < d.editFrom {
		d.editFrom = from
	}
	d.edited = true
}

// NewDriver starts a driver on steps, whose first must be `cluster`, and
// runs every step due at time 0.
func NewDriver(steps []scenario.Step, opts StoreOptions) (*Driver, error) {
	if len(steps) == 0 || steps[0].Cluster == nil {
		return nil, fmt.Errorf("the first line must be `cluster brokers=N ...`")
	}
	d := &Driver{steps: steps, events: NewStore(opts), hash: newTraceHash()}
	d.runner = scenario.NewRunner(scenario.RunOptions{NoTrace: true, OnEvent: d.record})
	if err := d.runner.Step(&steps[0]); err != nil {
		return nil, err
	}
	d.c = d.runner.Cluster()
	d.starts = append(d.starts, 0)
	d.next = 1
	d.drain()
	if err := d.RunTo(0); err != nil {
		return nil, err
	}
	return d, nil
}

// Cluster is the cluster being driven. Callers only read it.
func (d *Driver) Cluster() *core.Cluster { return d.c }

// Now is the cluster's virtual time.
func (d *Driver) Now() int64 { return d.c.Now() }

// Events is the store of everything the cluster emitted.
func (d *Driver) Events() *Store { return d.events }

// Steps are the branch's steps as the driver plays them.
func (d *Driver) Steps() []scenario.Step { return d.steps }

// Next is the index of the next step to start (len(Steps) when the script
// is done and the cluster runs freely).
func (d *Driver) Next() int { return d.next }

// Starts returns when each started step started.
func (d *Driver) Starts() []int64 { return d.starts }

// Results returns what each started step produced, in order.
func (d *Driver) Results() []StepResult { return d.results }

// Done reports whether every step has started and finished.
func (d *Driver) Done() bool {
	return d.next >= len(d.steps) && !d.waiting && d.runner.InProgress() == nil
}

// Blocked describes the settle, poll or commit in progress ("" if none):
// commands cannot be inserted into its middle.
func (d *Driver) Blocked() (string, int64) {
	op := d.runner.InProgress()
	if op == nil {
		return "", 0
	}
	return d.steps[d.blockIdx].Text, op.Deadline
}

// Failures are the expectations that did not hold and the commands that
// failed without an `expect error` after them, as the scenario runner
// counts them.
func (d *Driver) Failures() []scenario.Failure { return d.runner.Failures() }

// Fault is the internal limit the core hit, if any.
func (d *Driver) Fault() error { return d.fault }

// ScriptEnd is when the script's last step finished (valid once Done).
func (d *Driver) ScriptEnd() int64 { return d.lastEnd }

// TraceHash is a hash of every event so far (tracehash.go): two drivers
// that did the same things in the same order have the same one.
func (d *Driver) TraceHash() string { return d.hash.sum() }

func (d *Driver) record(e *core.Event) {
	d.hash.event(e)
	d.events.Add(e)
}

func (d *Driver) drain() { d.c.DrainEvents(d.record) }

// advance moves the clock by ms and drains the events.
func (d *Driver) advance(ms int64) {
	if ms <= 0 || d.fault != nil {
		return
	}
	_, err := d.c.Advance(ms)
	d.drain()
	if err != nil {
		d.fault = err
	}
}

// RunTo plays the script until virtual time t (at most MaxRunMs ahead):
// steps start as the clock reaches them. A settle or poll that starts
// before t can carry the clock past it.
func (d *Driver) RunTo(t int64) error {
	if t > d.Now()+MaxRunMs {
		t = d.Now() + MaxRunMs
	}
	for d.fault == nil {
		if op := d.runner.InProgress(); op != nil {
			if d.runDuring(t) {
				continue
			}
			// a settle, poll or commit: the core stops at its completion
			if d.Now() >= t {
				return d.fault
			}
			done, err := d.runner.Advance(t - d.Now())
			d.drain()
			if err != nil {
				d.fault = err
				return err
			}
			if done {
				d.finishBlocking()
				d.runQueued()
			}
			continue
		}
		if d.waiting {
			if d.waitEnd > t {
				d.advance(t - d.Now())
				return d.fault
			}
			d.advance(d.waitEnd - d.Now())
			d.waiting = false
			d.lastEnd = d.Now()
			continue
		}
		if d.next >= len(d.steps) {
			d.advance(t - d.Now())
			return d.fault
		}
		d.startStep()
	}
	return d.fault
}

// startStep starts steps[next] at the current time.
func (d *Driver) startStep() {
	i := d.next
	st := &d.steps[i]
	d.next++
	d.starts = append(d.starts, d.Now())
	res := StepResult{Index: i, At: d.Now()}
	defer func() {
		d.results = append(d.results, res)
		if !d.waiting && !d.blocking {
			d.lastEnd = d.Now()
		}
	}()
	switch {
	case st.Cluster != nil:
		res.Error = "cluster given twice: a session has one cluster (load a new script instead)"
	case st.Print != nil:
		res.Output, res.Error = d.print(st.Print)
	case st.During != nil:
		res.Error = d.startDuring(st)
	case st.Expect != nil:
		before := len(d.runner.Failures())
		if err := d.runner.Step(st); err != nil {
			res.Error = err.Error()
		}
		if f := d.runner.Failures(); len(f) > before {
			res.Error = f[len(f)-1].Msg
		}
		d.drain()
	case st.Cmd != nil:
		if w, ok := st.Cmd.(core.Wait); ok {
			if w.Duration < 0 || w.Duration > core.MaxWait {
				res.Error = fmt.Sprintf("wait %d ms: want 0 to 24 hours", w.Duration)
				return
			}
			d.waiting, d.waitIdx, d.waitStart, d.waitEnd = true, i, d.Now(), d.Now()+w.Duration
			return
		}
		before := len(d.runner.Failures())
		if err := d.runner.Begin(st); err != nil {
			res.Error = err.Error()
		}
		d.drain()
		if d.runner.InProgress() != nil {
			d.blockIdx, d.blockRes, d.blockAt = i, len(d.results), d.Now()
			d.blocking = true
			return
		}
		if e := d.runner.CmdErr(); e != "" {
			res.Error = e
		} else if f := d.runner.Failures(); len(f) > before {
			res.Error = f[len(f)-1].Msg
		}
	}
}

// finishBlocking records how the settle, poll or commit in progress ended.
func (d *Driver) finishBlocking() {
	d.blocking = false
	if e := d.runner.CmdErr(); e != "" && d.blockRes < len(d.results) {
		d.results[d.blockRes].Error = e
	}
	d.lastEnd = d.Now()
}

func (d *Driver) print(p *scenario.Print) (string, string) {
	var text string
	var err error
	if p.Offset >= 0 {
		text, err = d.c.DescribeRead(p.Target, p.Offset)
	} else {
		text, err = d.c.Describe(p.Target)
	}
	if err != nil {
		return "", err.Error()
	}
	return text, ""
}

// Insert adds st at the current time, as the next step: a wait in
// progress is split in two around it (so the script stays equivalent to
// what ran), and after the script's end the free-running time becomes an
// explicit wait. It then runs st (and anything else due now) and returns
// st's result. The driver stays consistent with a replay of Steps.
func (d *Driver) Insert(st scenario.Step) (StepResult, error) {
	if d.fault != nil {
		return StepResult{}, d.fault
	}
	if st.During != nil {
		return d.insertDuring(st)
	}
	if what, until := d.Blocked(); what != "" {
		return StepResult{}, &BlockedError{Step: what, Until: until}
	}
	now := d.Now()
	switch {
	case d.waiting:
		d.noteEdit(d.waitStart) // the wait in progress is split
	case d.next >= len(d.steps) && now > d.lastEnd:
		d.noteEdit(d.lastEnd) // the free run becomes waits
	default:
		d.noteEdit(now)
	}
	var after []scenario.Step // inserted after st
	switch {
	case d.waiting:
		// steps[waitIdx] becomes wait (now-start); then st; then wait (end-now).
		if rest := d.waitEnd - now; rest > 0 {
			after = waitSteps(rest)
		}
		d.waiting = false
		if now == d.waitStart { // nothing of it ran: drop it
			d.steps = append(d.steps[:d.waitIdx], d.steps[d.waitIdx+1:]...)
			d.next--
			d.starts = d.starts[:len(d.starts)-1]
			d.results = d.results[:len(d.results)-1]
		} else {
			d.steps[d.waitIdx] = waitSteps(now - d.waitStart)[0]
		}
	case d.next >= len(d.steps) && now > d.lastEnd:
		// the free run so far becomes a wait that has already run.
		for _, w := range waitSteps(now - d.lastEnd) {
			d.steps = append(d.steps, w)
			d.starts = append(d.starts, d.lastEnd)
			d.results = append(d.results, StepResult{Index: d.next, At: d.lastEnd})
			d.lastEnd += w.Cmd.(core.Wait).Duration
			d.next++
		}
	}
	d.lastEnd = now
	at := d.next
	if at == len(d.steps) && len(after) == 0 {
		// At the end (a page in live mode adds every room command here):
		// one append, not a copy of the whole script per command.
		d.steps = append(d.steps, st)
	} else {
		tail := append(append([]scenario.Step{st}, after...), d.steps[at:]...)
		d.steps = append(d.steps[:at:at], tail...)
	}
	d.startStep()
	res := d.results[len(d.results)-1]
	if err := d.RunTo(now); err != nil {
		return res, err
	}
	return res, nil
}

// waitSteps are `wait` steps lasting ms in all (several when ms is
// beyond the core's limit for one wait).
func waitSteps(ms int64) []scenario.Step {
	var out []scenario.Step
	for ms > 0 {
		n := min(ms, int64(core.MaxWait))
		out = append(out, scenario.Step{Text: "wait " + strconv.FormatInt(n, 10) + "ms", Cmd: core.Wait{Duration: n}})
		ms -= n
	}
	return out
}

// Step runs until the next event a learner would see in the trace (not a
// wire message), at most MaxStepMs of virtual time; it returns whether
// one came.
func (d *Driver) Step() bool {
	n := d.events.TraceCount()
	start := d.Now()
	for d.Now()-start < MaxStepMs && d.fault == nil {
		if err := d.RunTo(d.Now() + 1); err != nil {
			return false
		}
		if d.events.TraceCount() > n {
			return true
		}
	}
	return false
}

// Queue keeps st to run when the settle, poll or commit in progress
// completes (at that instant, before the script's next step).
func (d *Driver) Queue(st scenario.Step) error {
	if len(d.queue) >= MaxQueued {
		return fmt.Errorf("too many commands waiting (%d)", MaxQueued)
	}
	d.queue = append(d.queue, st)
	return nil
}

// Queued is how many commands wait for the operation in progress.
func (d *Driver) Queued() int { return len(d.queue) }

// MaxQueued bounds the commands waiting for an operation to complete.
const MaxQueued = 100

func (d *Driver) runQueued() {
	q := d.queue
	d.queue = nil
	for _, st := range q {
		if _, err := d.Insert(st); err != nil {
			var be *BlockedError
			if errors.As(err, &be) { // a queued poll started another operation
				d.queue = append(d.queue, st)
			}
		}
	}
}

// BlockedError says a command came while a settle, poll or commit was in
// progress: the session queues it until that completes.
type BlockedError struct {
	Step  string
	Until int64 // its deadline
}

func (e *BlockedError) Error() string {
	return fmt.Sprintf("%q is in progress (until t=%s at the latest)", e.Step, core.FormatTime(e.Until))
}
