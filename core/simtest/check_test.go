package simtest

import (
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core/check"
	"github.com/kafkasim/kafkasim/core/scenario"
)

// TestIncrementalMatchesFull holds the incremental checker to check.All:
// on every step of many runs, safe and unsafe, until the first violation,
// both must find the same kinds.
func TestIncrementalMatchesFull(t *testing.T) {
	n := uint64(60)
	if testing.Short() || runtime.GOOS == "js" {
		n = 8
	}
	for _, unsafe := range []bool{false, true} {
		for seed := uint64(1); seed <= n; seed++ {
			c := Generate(seed, Config{Unsafe: unsafe, Steps: 40})
			compareCheckers(t, c, !unsafe)
		}
	}
}

func compareCheckers(t *testing.T, c *Case, safe bool) {
	t.Helper()
	r := scenario.NewRunner(scenario.RunOptions{NoTrace: true})
	ck := newChecker(safe)
	for i := range c.Steps {
		if err := r.Step(&c.Steps[i]); err != nil {
			t.Fatalf("seed %d step %d: %v", c.Seed, i+1, err)
		}
		cl := r.Cluster()
		if i == 0 {
			cl.MuteEvents(true)
		}
		incVs, fullVs := ck.incremental(cl), check.All(cl)
		inc, full := kindsOf(incVs, ck.kinds, false), kindsOf(fullVs, ck.kinds, false)
		if !slices.Equal(inc, full) {
			t.Errorf("seed %d (safe=%v) step %d %q: incremental checker found %v, check.All %v", c.Seed, safe, i+1, c.Steps[i].Text, inc, full)
			return
		}
		if a, b := kindsOf(incVs, ck.kinds, true), kindsOf(fullVs, ck.kinds, true); !slices.Equal(a, b) {
			t.Errorf("seed %d (safe=%v) step %d %q: incremental checker explained %v, check.All %v", c.Seed, safe, i+1, c.Steps[i].Text, a, b)
			return
		}
		if len(full) > 0 {
			return
		}
	}
}

// kindsOf lists the enabled kinds among vs, of the explained findings
// (check.Violation.Explained) or of the others.
func kindsOf(vs []check.Violation, enabled map[Kind]bool, explained bool) []Kind {
	var out []Kind
	for _, k := range check.Kinds {
		for _, v := range vs {
			if v.Kind == k && enabled[k] && (v.Explained != "") == explained {
				out = append(out, k)
				break
			}
		}
	}
	return out
}

// TestBumpDuplicateExplained: the shrunken seed 1400157 (the scenario
// idempotent-bump-duplicate) stores a record twice across a KIP-360 epoch
// bump, as Kafka does; a safe run reports it as explained, not as a
// violation. The same script with one producer epoch would be a violation:
// TestCopiesExplainsOnlyEpochBumps in core/check.
func TestBumpDuplicateExplained(t *testing.T) {
	src, err := os.ReadFile("../scenario/testdata/idempotent-bump-duplicate.ksim")
	if err != nil {
		t.Fatal(err)
	}
	s, err := scenario.Parse(string(src))
	if err != nil {
		t.Fatal(err)
	}
	o := Run(s.Steps, true)
	if o.Broken != "" || o.Violation != nil {
		t.Fatalf("broken %q, violation %v", o.Broken, o.Violation)
	}
	if v := o.Explained[check.Duplicate]; v == nil || !strings.Contains(v.Detail, "v59-1,v59-2") {
		t.Fatalf("explained duplicate: %v, want v59-1,v59-2", v)
	}
}
