package simtest

import (
	"fmt"
	"strings"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/scenario"
)

// DefaultShrinkRuns bounds the runs one Shrink may make.
const DefaultShrinkRuns = 4000

// Shrunk is a shrunken reproduction of a violation.
type Shrunk struct {
	Steps     []scenario.Step
	Violation *Violation // as seen on the shrunken script
	Runs      int        // runs the shrinker made
}

// Shrink delta-debugs a failing script: it removes chunks of steps, then
// single steps, keeping each removal after which a run still shows a
// violation the same as want (its first violation, see Violation.Same) and, in safe mode, the
// script still keeps the safe configuration's rules (see SafeScript). The
// steps after the violation are cut at once. pinned marks steps never
// removed (the cluster and the safety settings); it may be nil. maxRuns
// bounds the work (0: DefaultShrinkRuns).
func Shrink(steps []scenario.Step, pinned []bool, safe bool, want *Violation, maxRuns int) *Shrunk {
	if maxRuns <= 0 {
		maxRuns = DefaultShrinkRuns
	}
	if pinned == nil {
		pinned = make([]bool, len(steps))
		for i := range steps {
			pinned[i] = steps[i].Cluster != nil
		}
	}
	s := &shrinker{safe: safe, want: want, max: maxRuns}
	cur := s.test(steps, pinned)
	if cur == nil {
		return &Shrunk{Steps: renumber(steps), Runs: s.runs}
	}
	for n := 2; s.runs < s.max; {
		free := cur.free()
		if len(free) == 0 {
			break
		}
		n = min(n, len(free))
		chunk := (len(free) + n - 1) / n
		reduced := false
		for start := 0; start < len(free) && s.runs < s.max; start += chunk {
			drop := map[int]bool{}
			for _, i := range free[start:min(start+chunk, len(free))] {
				drop[i] = true
			}
			if next := s.test(cur.without(drop)); next != nil {
				cur, reduced = next, true
				break
			}
		}
		switch {
		case reduced:
			n = max(n-1, 2)
		case chunk == 1:
			n = len(free) + 1 // every single step tried: done
		default:
			n = min(2*n, len(free))
		}
		if n > len(free) {
			break
		}
	}
	return &Shrunk{Steps: cur.steps, Violation: cur.v, Runs: s.runs}
}

type shrinker struct {
	safe bool
	want *Violation
	max  int
	runs int
}

// candidate is a script under test with its pinned flags and, once it
// reproduced, the violation.
type candidate struct {
	steps  []scenario.Step
	pinned []bool
	v      *Violation
}

// free lists the indexes of the steps that may be removed.
func (c *candidate) free() []int {
	var out []int
	for i := range c.steps {
		if !c.pinned[i] {
			out = append(out, i)
		}
	}
	return out
}

func (c *candidate) without(drop map[int]bool) ([]scenario.Step, []bool) {
	var steps []scenario.Step
	var pinned []bool
	for i := range c.steps {
		if !drop[i] {
			steps = append(steps, c.steps[i])
			pinned = append(pinned, c.pinned[i])
		}
	}
	return steps, pinned
}

// test runs steps; if they show the violation it returns them cut just
// after it, else nil.
func (s *shrinker) test(steps []scenario.Step, pinned []bool) *candidate {
	steps = renumber(steps)
	if s.safe && SafeScript(steps) != nil {
		return nil
	}
	if s.want.Kind == Liveness && !healedBeforeLive(steps) {
		return nil
	}
	s.runs++
	o := Run(steps, s.safe)
	v := o.Kinds[s.want.Kind]
	if o.Broken != "" || !s.want.Same(v) {
		return nil
	}
	n := v.Step + 1
	return &candidate{steps: steps[:n], pinned: pinned[:n], v: v}
}

// renumber copies steps with Line set to their 1-based position (the
// runner reports failures by line).
func renumber(steps []scenario.Step) []scenario.Step {
	out := make([]scenario.Step, len(steps))
	for i, st := range steps {
		st.Line = i + 1
		out[i] = st
	}
	return out
}

// SafeScript checks that a script keeps the safe configuration's rules on
// power-offs (see gen.safePowerOff): a broker is powered off only with
// every broker up and the network whole for at least registerMs of
// waiting, just after a `settle` that must succeed (`expect error ==
// none`); no other broker or network fault comes until every broker is
// up again and such a settle has passed; and in ZooKeeper mode the broker
// restarts only after registerMs of waiting (its old session has expired;
// see gen.windowStep). Otherwise Kafka itself can lose acknowledged
// records (it acknowledges from the page cache), and a shrunken script
// would "reproduce" a loss that is not a bug.
func SafeScript(steps []scenario.Step) error {
	var f faultState
	calm := int64(0) // waiting done since everything was last up and whole
	window := false  // a power-off not yet followed by a settled cluster
	zk := false
	if len(steps) > 0 && steps[0].Cluster != nil {
		o := steps[0].Cluster
		zk = o.Metadata == "zk" || o.Metadata == "" && (o.Version == "0.8" || o.Version == "0.11" || o.Version == "2.8")
	}
	off := map[int]int64{} // powered-off broker -> waiting since
	settled := func(i int) bool {
		return f.whole() && calm >= registerMs && i+1 < len(steps) && isExpectNoError(steps[i+1])
	}
	for i := range steps {
		switch x := steps[i].Cmd.(type) {
		case core.Wait:
			if f.whole() {
				calm += x.Duration
			}
			for b := range off {
				off[b] += x.Duration
			}
		case core.Settle:
			if window && settled(i) {
				window = false
			}
		case core.PowerOff:
			if i < 2 || !isSettle(steps[i-2]) || !isExpectNoError(steps[i-1]) || !settled(i-2) {
				return fmt.Errorf("step %d: power-off outside a settled window", i+1)
			}
			window = true
			f.apply(x)
			calm = 0
			off[x.Broker] = 0
		case core.Restart:
			if w, ok := off[x.Broker]; ok && zk && w < registerMs {
				return fmt.Errorf("step %d: a powered-off broker restarts before its ZooKeeper session expired", i+1)
			}
			delete(off, x.Broker)
			f.apply(x)
			calm = 0 // it registers, then catches up
		default:
			if f.apply(x) {
				if window {
					return fmt.Errorf("step %d: a fault while a powered-off broker may still be in the ISR", i+1)
				}
				calm = 0
			}
		}
	}
	return nil
}

// healedBeforeLive reports whether every broker is up and the network
// whole at each `settle` that must succeed and when the final phase starts
// its clients: progress is required only after every fault is healed, and
// a shrunken script may have dropped the resume a settle relied on.
func healedBeforeLive(steps []scenario.Step) bool {
	var f faultState
	for i := range steps {
		if x, ok := steps[i].Cmd.(core.NewProducer); ok && x.Name == liveProducer && !f.whole() {
			return false
		}
		if isSettle(steps[i]) && i+1 < len(steps) && isExpectNoError(steps[i+1]) && !f.whole() {
			return false
		}
		f.apply(steps[i].Cmd)
	}
	return true
}

func isSettle(st scenario.Step) bool {
	_, ok := st.Cmd.(core.Settle)
	return ok
}

func isExpectNoError(st scenario.Step) bool {
	e := st.Expect
	return e != nil && e.Kind == "error" && e.Op == "==" && e.Want == "none"
}

// Repro is a shrunken script ready to share: a .ksim text that `kafkasim
// run` runs and fails on.
type Repro struct {
	Text      string
	Steps     int // steps in the script
	Violation *Violation
}

// MakeRepro renders steps as a commented .ksim file that reproduces the
// violation with `kafkasim run`: each command that fails along the way
// gets an `expect error == ...` after it (such failures are part of the
// story, not the bug), and a violation the checker reports ends with
// `expect violations == none`, so the run exits 1. It runs the text again
// through the parser and the runner and returns an error unless the same
// kind of violation shows.
func MakeRepro(steps []scenario.Step, safe bool, want *Violation, header []string) (*Repro, error) {
	kind := want.Kind
	o := Run(renumber(steps), safe)
	if !want.Same(o.Kinds[kind]) {
		return nil, fmt.Errorf("the shrunken script does not reproduce %s (got %v)", kind, o.Violation)
	}
	errs := map[int]string{}
	for i, at := range o.Errors {
		errs[at] = o.ErrMsgs[i]
	}
	var b strings.Builder
	for _, h := range header {
		b.WriteString("# " + h + "\n")
	}
	n := 0
	for i := range steps {
		line, err := scenario.Format(steps[i])
		if err != nil {
			return nil, fmt.Errorf("step %d: %v", i+1, err)
		}
		b.WriteString(line + "\n")
		n++
		if msg, ok := errs[i]; ok && !(i+1 < len(steps) && steps[i+1].Expect != nil && steps[i+1].Expect.Kind == "error") {
			if l, err := scenario.Format(scenario.Step{Expect: &scenario.Expect{Kind: "error", Op: "==", Want: msg}}); err == nil {
				b.WriteString(l + "\n")
			}
		}
	}
	if kind != Liveness {
		b.WriteString("expect violations == none\n")
	}
	text := b.String()
	parsed, err := scenario.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("the repro does not parse: %v", err)
	}
	again := Run(parsed.Steps, safe)
	if !want.Same(again.Kinds[kind]) {
		return nil, fmt.Errorf("the repro text does not reproduce %s (got %v)", kind, again.Violation)
	}
	res, err := scenario.Run(parsed, scenario.RunOptions{})
	if err != nil || len(res.Failures) == 0 {
		return nil, fmt.Errorf("kafkasim run would not fail on the repro (%v)", err)
	}
	return &Repro{Text: text, Steps: n, Violation: again.Kinds[kind]}, nil
}
