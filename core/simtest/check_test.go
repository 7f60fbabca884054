package simtest

import (
	"runtime"
	"slices"
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
		inc := kindsOf(ck.incremental(cl), ck.kinds)
		full := kindsOf(check.All(cl), ck.kinds)
		if !slices.Equal(inc, full) {
			t.Errorf("seed %d (safe=%v) step %d %q: incremental checker found %v, check.All %v", c.Seed, safe, i+1, c.Steps[i].Text, inc, full)
			return
		}
		if len(full) > 0 {
			return
		}
	}
}

func kindsOf(vs []check.Violation, enabled map[Kind]bool) []Kind {
	var out []Kind
	for _, k := range check.Kinds {
		for _, v := range vs {
			if v.Kind == k && enabled[k] {
				out = append(out, k)
				break
			}
		}
	}
	return out
}
