package scenario

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/check"
)

// RunOptions controls a run.
type RunOptions struct {
	Verbose bool // include wire-level events (messages, flushes, ZooKeeper writes)
	NoCheck bool // skip the checker summary at the end of the trace
	// NoTrace builds no trace text (Result.Trace stays empty); events are
	// still drained, and handed to OnEvent. For callers that only want the
	// cluster, the failures and the violations (the simulation tester).
	NoTrace bool
	// OnEvent, when set, sees every event in order, verbose ones included.
	OnEvent func(*core.Event)
}

// Failure is an expectation that did not hold, or a command that failed
// without an `expect error` after it.
type Failure struct {
	Line int
	Msg  string // "expected ..., got ..."
}

// Result is a run's trace, its failures and the cluster it ended with.
type Result struct {
	Trace      string
	Failures   []Failure
	Violations []check.Violation
	Cluster    *core.Cluster
}

// Run executes a script from its first line. The first step must be
// `cluster`; a later `cluster` line is an error.
func Run(s *Script, opts RunOptions) (*Result, error) {
	r := NewRunner(opts)
	for i := range s.Steps {
		if err := r.Step(&s.Steps[i]); err != nil {
			return r.res, err
		}
	}
	return r.Finish(), nil
}

// Runner executes a script one step at a time, exactly as Run does (Run is
// a loop over Step, then Finish), so a caller can look at the cluster
// between steps.
type Runner struct {
	opts    RunOptions
	res     *Result
	c       *core.Cluster
	out     strings.Builder
	lastErr string // error of the previous command, for `expect error`
	errLine int    // its line, while nobody has expected it
	cmdErr  string // error of the last step, if it was a command
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
// failed, else "".
func (r *Runner) CmdErr() string { return r.cmdErr }

// Finish ends the run: a pending unexpected error becomes a failure, the
// checker's summary closes the trace, and the result is returned.
func (r *Runner) Finish() *Result {
	r.finishError()
	r.summary()
	r.res.Trace = r.out.String()
	return r.res
}

// Step executes one step. It returns an error only when the script cannot
// go on (no cluster yet, a second cluster, bad cluster options); failed
// commands and expectations are recorded as failures.
func (r *Runner) Step(st *Step) error {
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
		err := r.c.Apply(st.Cmd)
		r.flush()
		if err != nil {
			r.lastErr, r.errLine, r.cmdErr = err.Error(), st.Line, err.Error()
			if !r.opts.NoTrace {
				fmt.Fprintf(&r.out, "  error: %s\n", err)
			}
		}
	case st.Print != nil:
		if r.opts.NoTrace {
			break
		}
		text, err := r.c.Describe(st.Print.Target)
		if st.Print.Offset >= 0 {
			text, err = r.c.DescribeRead(st.Print.Target, st.Print.Offset)
		}
		if err != nil {
			r.fail(st.Line, err.Error())
			break
		}
		for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
			r.out.WriteString("  | " + l + "\n")
		}
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

// finishError turns an unexpected command error into a failure.
func (r *Runner) finishError() {
	if r.errLine != 0 {
		r.fail(r.errLine, "command failed: "+r.lastErr)
	}
	r.lastErr, r.errLine = "", 0
}

func (r *Runner) fail(line int, msg string) {
	r.res.Failures = append(r.res.Failures, Failure{Line: line, Msg: msg})
}

func (r *Runner) echo(st *Step) {
	if !r.opts.NoTrace {
		fmt.Fprintf(&r.out, "> %s\n", st.Text)
	}
}

// flush writes the events recorded since the last flush.
func (r *Runner) flush() {
	for _, e := range r.c.Events() {
		if r.opts.OnEvent != nil {
			r.opts.OnEvent(&e)
		}
		if r.opts.NoTrace || !r.opts.Verbose && e.Verbose() {
			continue
		}
		fmt.Fprintf(&r.out, "  %9s  %s\n", core.FormatTime(e.At), e.Text())
	}
}

func (r *Runner) summary() {
	if r.c == nil || r.opts.NoCheck || r.opts.NoTrace {
		return
	}
	r.res.Violations = check.All(r.c)
	if len(r.res.Violations) == 0 {
		r.out.WriteString("checker: no violations\n")
		return
	}
	for _, v := range r.res.Violations {
		fmt.Fprintf(&r.out, "checker: %s\n", v)
	}
}

// expect evaluates one expectation; "" means it holds.
func (r *Runner) expect(e *Expect) string {
	got, err := r.actual(e)
	if err != nil {
		return fmt.Sprintf("expected %s, got error: %v", describeExpect(e), err)
	}
	if e.Kind == "error" {
		r.lastErr, r.errLine = "", 0
	}
	if matches(e, got) {
		return ""
	}
	return fmt.Sprintf("expected %s, got %s", describeExpect(e), show(got))
}

func describeExpect(e *Expect) string {
	s := e.Kind
	if e.Target != "" {
		s += " " + e.Target
	}
	if e.Arg != "" {
		s += " " + e.Arg
	}
	if e.Kind == "assignment" {
		var parts []string
		for _, m := range e.Members {
			parts = append(parts, m.Member+"="+strings.Join(m.Partitions, ","))
		}
		return s + " " + strings.Join(parts, " ")
	}
	return s + " " + e.Op + " " + e.Want
}

// actual is what the cluster has, as the text Want would be written.
func (r *Runner) actual(e *Expect) (string, error) {
	c := r.c
	switch e.Kind {
	case "leader", "isr", "epoch", "hw", "log", "committed":
		return r.partitionFact(e)
	case "leo":
		rep, err := c.Replica(e.Target)
		if err != nil {
			return "", err
		}
		return strconv.FormatInt(rep.LEO(), 10), nil
	case "acked":
		if c.Producer(e.Target) == nil {
			return "", fmt.Errorf("no producer %s", e.Target)
		}
		return list(c.History().Acked(e.Target)), nil
	case "failed":
		if c.Producer(e.Target) == nil {
			return "", fmt.Errorf("no producer %s", e.Target)
		}
		return noneIfEmpty(c.History().Failed(e.Target, e.Arg)), nil
	case "lost":
		var vals []string
		for _, s := range check.LostRecords(c) {
			vals = append(vals, s.Value)
		}
		return list(vals), nil
	case "consumed":
		if c.Consumer(e.Target) == nil {
			return "", fmt.Errorf("no consumer %s", e.Target)
		}
		return list(c.History().ConsumedBy(e.Target)), nil
	case "generation":
		g, ok := c.GroupGeneration(e.Target)
		if !ok {
			return "", fmt.Errorf("no group %s", e.Target)
		}
		return strconv.Itoa(g), nil
	case "assignment":
		a, ok := c.GroupAssignment(e.Target)
		if !ok {
			return "", fmt.Errorf("no group %s", e.Target)
		}
		return assignmentText(a), nil
	case "znode":
		return c.ZNode(e.Target)
	case "error":
		return noneIfEmpty(r.lastErr), nil
	case "violations":
		return list(violationKinds(check.All(c))), nil
	}
	return "", fmt.Errorf("unknown expect kind %q", e.Kind)
}

func (r *Runner) partitionFact(e *Expect) (string, error) {
	c := r.c
	name := e.Target
	if e.Kind == "committed" {
		name = e.Arg
	}
	p, err := c.Partition(name)
	if err != nil {
		return "", err
	}
	switch e.Kind {
	case "leader":
		if p.Leader() < 0 {
			return "none", nil
		}
		return strconv.Itoa(p.Leader()), nil
	case "isr":
		isr := p.ISR()
		sort.Ints(isr)
		return ints(isr), nil
	case "epoch":
		return strconv.Itoa(int(p.LeaderEpoch())), nil
	case "hw":
		hw, err := c.HW(p)
		return strconv.FormatInt(hw, 10), err
	case "log":
		vals, err := c.CommittedLog(p)
		return list(vals), err
	default: // committed
		off, ok, err := c.GroupCommitted(e.Target, p)
		if err != nil || !ok {
			return "none", err
		}
		return strconv.FormatInt(off, 10), nil
	}
}

// matches compares: broker lists as sets, record lists in order, text
// exactly or by substring for `contains`.
func matches(e *Expect, got string) bool {
	want := e.Want
	switch {
	case e.Op == "contains" && e.List != nil:
		return containsAll(got, e.List)
	case e.Op == "contains":
		return strings.Contains(got, want)
	case e.Kind == "isr":
		w := append([]string(nil), e.List...)
		slices.SortFunc(w, func(a, b string) int { x, _ := strconv.Atoi(a); y, _ := strconv.Atoi(b); return x - y })
		if e.None {
			return got == "none"
		}
		return got == strings.Join(w, ",")
	case e.Kind == "assignment":
		return got == assignmentWant(e)
	case e.None:
		return got == "none"
	}
	return got == want
}

// containsAll reports whether every record of want is in the list got
// (as actual renders it: comma-separated, or "none").
func containsAll(got string, want []string) bool {
	have := map[string]bool{}
	if got != "none" {
		for _, v := range strings.Split(got, ",") {
			have[v] = true
		}
	}
	for _, v := range want {
		if !have[v] {
			return false
		}
	}
	return true
}

func assignmentWant(e *Expect) string {
	m := map[string][]string{}
	for _, ma := range e.Members {
		m[ma.Member] = append([]string(nil), ma.Partitions...)
	}
	return assignmentText(m)
}

// assignmentText renders member -> partitions sorted by member, partitions
// sorted by topic and number.
func assignmentText(a map[string][]string) string {
	members := make([]string, 0, len(a))
	for m := range a {
		members = append(members, m)
	}
	sort.Strings(members)
	var parts []string
	for _, m := range members {
		ps := append([]string(nil), a[m]...)
		sort.Slice(ps, func(i, j int) bool { return partLess(ps[i], ps[j]) })
		parts = append(parts, m+"="+strings.Join(ps, ","))
	}
	return strings.Join(parts, " ")
}

func partLess(a, b string) bool {
	ta, na := splitPart(a)
	tb, nb := splitPart(b)
	if ta != tb {
		return ta < tb
	}
	return na < nb
}

func splitPart(s string) (string, int) {
	i := strings.LastIndexByte(s, '-')
	n, _ := strconv.Atoi(s[i+1:])
	return s[:i], n
}

func list(v []string) string {
	if len(v) == 0 {
		return "none"
	}
	return strings.Join(v, ",")
}

func ints(v []int) string {
	if len(v) == 0 {
		return "none"
	}
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

func noneIfEmpty(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func show(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "..."
	}
	return s
}

// violationKinds lists the distinct kinds found, in check.Kinds order.
func violationKinds(vs []check.Violation) []string {
	var out []string
	for _, k := range check.Kinds {
		for _, v := range vs {
			if v.Kind == k {
				out = append(out, string(k))
				break
			}
		}
	}
	return out
}
