package simtest

import (
	"fmt"
	"strings"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/check"
	"github.com/kafkasim/kafkasim/core/scenario"
)

// Kind names a violated invariant: the checker's kinds, plus Liveness.
type Kind = check.Kind

// Liveness: after every fault was healed, the cluster did not settle, or a
// record did not get acknowledged or consumed, within the bound.
const Liveness Kind = "liveness"

// SafeKinds are the invariants of the safe configuration. Redelivery is
// not among them: consumers are at-least-once (a crash before a commit
// hands records to the next owner again), even with every safe setting.
var SafeKinds = []Kind{check.Lost, check.Divergence, check.Reorder, check.Duplicate, check.DeliveryOrder, check.OffsetRegression, Liveness}

// UnsafeKinds are what the unsafe configuration must show the checker
// finding.
var UnsafeKinds = []Kind{check.Lost, check.Divergence, check.Reorder, check.Duplicate, check.Redelivery}

// Violation is the first broken invariant of a run.
type Violation struct {
	Kind   Kind
	Step   int    // index of the step after which it was seen
	Detail string // what the checker said
	// What identifies the violation when shrinking: for liveness, the
	// expectation that failed ("acked p0", "error" after a settle, ...), so
	// a shrunken script fails the same requirement; else the kind.
	What string
}

// Same reports whether o is the same violation as v for shrinking.
func (v *Violation) Same(o *Violation) bool {
	return v != nil && o != nil && v.Kind == o.Kind && v.What == o.What
}

func (v *Violation) String() string {
	return fmt.Sprintf("%s after step %d: %s", v.Kind, v.Step+1, v.Detail)
}

// Outcome is what one run did.
type Outcome struct {
	Steps     int   // steps executed
	Faults    int   // fault steps executed
	Sent      int   // records sent
	Acked     int   // records acknowledged
	Consumed  int   // deliveries to consumers
	VirtualMs int64 // virtual time at the end
	Errors    []int // indexes of command steps that failed (commit during a rebalance, ...)
	ErrMsgs   []string
	Broken    string // the script could not run (shrinking made it invalid)
	// Violation is the first broken invariant. A safe run stops there; an
	// unsafe run goes on to the end and records in Kinds the first
	// violation of each kind (a loss often comes before a divergence).
	Violation *Violation
	Kinds     map[Kind]*Violation
	// Explained holds, per kind, the first finding that Kafka's own
	// behaviour explains (check.Violation.Explained: a duplicate the
	// idempotent producer writes across a KIP-360 epoch bump): reported,
	// never a violation.
	Explained map[Kind]*Violation
}

// Run executes steps on a fresh cluster through the scenario runner (so
// exactly as `kafkasim run` would) and checks the invariants after every
// step. safe selects the safe invariants (SafeKinds) and stops at the
// first violation; unsafe checks every kind the checker knows (no
// liveness) and runs to the end (see Outcome.Kinds).
func Run(steps []scenario.Step, safe bool) *Outcome {
	out := &Outcome{Kinds: map[Kind]*Violation{}}
	r := scenario.NewRunner(scenario.RunOptions{NoTrace: true})
	ck := newChecker(safe)
	nfail := 0
	byLine := map[int]int{} // the runner names failures by line
	for i := range steps {
		byLine[steps[i].Line] = i
	}
	for i := range steps {
		st := &steps[i]
		if err := r.Step(st); err != nil {
			out.Broken = err.Error()
			break
		}
		out.Steps++
		if isFault(st.Cmd) {
			out.Faults++
		}
		if e := r.CmdErr(); e != "" {
			out.Errors = append(out.Errors, i)
			out.ErrMsgs = append(out.ErrMsgs, e)
			if finalClientStep(st.Cmd) {
				// The final phase's clients must start and send (a shrunken
				// script may have dropped the topic alter that made the
				// partition): else its expectations prove nothing.
				out.Broken = fmt.Sprintf("step %d: %s", i+1, e)
				break
			}
		}
		var vs []*Violation
		if fs := r.Failures(); len(fs) > nfail {
			for _, f := range fs[nfail:] {
				// Expectations in generated scripts are the final phase's
				// progress requirements (and `expect error == none` after
				// settle); a command's unexpected error is not a violation.
				j, ok := byLine[f.Line]
				if !ok || steps[j].Expect == nil || steps[j].Expect.Kind == "violations" || !safe || len(vs) > 0 {
					continue
				}
				if strings.Contains(f.Msg, ", got error: ") {
					// The expectation's target is gone (a shrunken script
					// dropped the producer it names): not a finding.
					out.Broken = f.Msg
					continue
				}
				e := steps[j].Expect
				vs = append(vs, &Violation{Kind: Liveness, Step: i, Detail: f.Msg, What: livenessWhat(e, f.Msg)})
			}
			nfail = len(fs)
		}
		c := r.Cluster()
		if c == nil {
			continue
		}
		if i == 0 {
			c.MuteEvents(true) // judged by state and history; nobody reads the events
		}
		if len(vs) == 0 {
			vs = ck.check(c, i, i == len(steps)-1)
		}
		for _, v := range vs {
			if out.Violation == nil {
				out.Violation = v
			}
			if out.Kinds[v.Kind] == nil {
				out.Kinds[v.Kind] = v
			}
		}
		if out.Broken != "" || safe && out.Violation != nil {
			break
		}
	}
	out.Explained = ck.explained
	if c := r.Cluster(); c != nil {
		h := c.History()
		out.Sent, out.Consumed, out.VirtualMs = len(h.Sent), len(h.Consumed), c.Now()
		for i := range h.Sent {
			if h.Sent[i].Acked {
				out.Acked++
			}
		}
	}
	return out
}

func isFault(cmd core.Command) bool {
	switch cmd.(type) {
	case core.CrashBroker, core.PowerOff, core.Pause, core.NetSplit, core.NetDelay, core.NetDrop, core.CrashConsumer:
		return true
	}
	return false
}

// livenessWhat names a failed progress requirement: the expectation, and
// for a settle that timed out what kept the cluster busy ("settle:
// rebalancing"), so that shrinking keeps the same cause.
func livenessWhat(e *scenario.Expect, msg string) string {
	what := strings.TrimSpace(e.Kind + " " + e.Target)
	if e.Kind != "error" {
		return what
	}
	for _, cause := range []string{"rebalancing", "catching up", "pending", "HW"} {
		if strings.Contains(msg, cause) {
			return "settle: " + cause
		}
	}
	return "settle"
}

// finalClientStep reports whether cmd sets up or feeds the final phase's
// progress check.
func finalClientStep(cmd core.Command) bool {
	switch x := cmd.(type) {
	case core.NewProducer:
		return x.Name == liveProducer
	case core.NewConsumer:
		return x.Name == liveConsumer || x.Name == liveMember
	case core.Assign:
		return x.Consumer == liveConsumer
	case core.Produce:
		return strings.HasPrefix(x.Value, "live-")
	}
	return false
}
