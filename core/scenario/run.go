package scenario

import (
	"cmp"
	"fmt"
	"maps"
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
	// The event is the cluster's (Cluster.DrainEvents): copy it to keep it.
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
	r.c.DrainEvents(func(e *core.Event) {
		if r.opts.OnEvent != nil {
			r.opts.OnEvent(e)
		}
		if r.opts.NoTrace || !r.opts.Verbose && e.Verbose() {
			return
		}
		fmt.Fprintf(&r.out, "  %9s  %s\n", core.FormatTime(e.At), e.Text())
	})
}

func (r *Runner) summary() {
	if r.c == nil || r.opts.NoCheck || r.opts.NoTrace {
		return
	}
	r.res.Violations = check.All(r.c)
	if n := len(check.Deleted(r.c)); n > 0 {
		// Said apart, so nobody takes them for lost or forgets them.
		fmt.Fprintf(&r.out, "checker: %d acknowledged record(s) went with a deleted topic (not lost: deleted by the user)\n", n)
	}
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
	case "segments":
		rep, err := c.Replica(e.Target)
		if err != nil {
			return "", err
		}
		var bases []string
		for _, s := range rep.Log().Segments() {
			bases = append(bases, strconv.FormatInt(s.BaseOffset, 10))
		}
		return list(bases), nil
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
	var parts []string
	for _, m := range slices.Sorted(maps.Keys(a)) {
		ps := slices.Clone(a[m])
		slices.SortFunc(ps, partCompare)
		parts = append(parts, m+"="+strings.Join(ps, ","))
	}
	return strings.Join(parts, " ")
}

func partCompare(a, b string) int {
	ta, na, _ := core.SplitPartitionName(a)
	tb, nb, _ := core.SplitPartitionName(b)
	if c := strings.Compare(ta, tb); c != 0 {
		return c
	}
	return cmp.Compare(na, nb)
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
