package simtest

import (
	"flag"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/scenario"
)

var seedsFlag = flag.Int("seeds", 0, "safe seeds TestSafeSeeds runs (0: the default budget)")

// safeBudget is how many seeds TestSafeSeeds runs: a bounded budget for
// `make test` (a few thousand natively; `make simtest` runs a long one),
// fewer with -short and under WebAssembly (node runs the core's tests on
// one thread, several times slower).
func safeBudget() int {
	switch {
	case *seedsFlag > 0:
		return *seedsFlag
	case runtime.GOOS == "js":
		return 40
	case testing.Short():
		return 200
	}
	return 4000
}

// runSeeds runs seeds first..first+n-1 on GOMAXPROCS workers and returns
// the results in seed order; stop (if set) ends the run early once it
// returns true for a result (results already running still finish).
func runSeeds(first uint64, n int, cfg Config, stop func(*Result) bool) []*Result {
	out := make([]*Result, n)
	var mu sync.Mutex
	stopped := false
	var wg sync.WaitGroup
	next := make(chan int)
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r := RunSeed(first+uint64(i), cfg)
				mu.Lock()
				out[i] = r
				if stop != nil && stop(r) {
					stopped = true
				}
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < n; i++ {
		mu.Lock()
		s := stopped
		mu.Unlock()
		if s {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	var done []*Result
	for _, r := range out {
		if r != nil {
			done = append(done, r)
		}
	}
	return done
}

// TestSafeSeeds is the simulation test of the safe configuration: no seed
// may break an invariant (SafeKinds, liveness included) or fail to run. A
// failure reports the seed and its shrunken reproduction.
func TestSafeSeeds(t *testing.T) {
	n := safeBudget()
	results := runSeeds(1, n, Config{}, func(r *Result) bool { return r.Failed() || r.Outcome.Broken != "" })
	var sum Summary
	for _, r := range results {
		sum.Add(r)
		if r.Outcome.Broken != "" {
			t.Fatalf("seed %d: the generated script did not run: %s", r.Seed, r.Outcome.Broken)
		}
		if r.Failed() {
			msg := fmt.Sprintf("seed %d: %s", r.Seed, r.Outcome.Violation)
			if rep, _, err := r.Reproduce(r.Outcome.Violation.Kind, 1500); err == nil {
				msg += "\nreproduction (kafkasim run FILE):\n" + rep.Text
			} else {
				msg += fmt.Sprintf("\n(shrinking failed: %v; kafkasim simtest --seed %d --script prints the script)", err, r.Seed)
			}
			t.Fatal(msg)
		}
	}
	t.Logf("%s", sum.String())
}

// TestUnsafeFindsEachKind checks that the checker is not blind: with the
// unsafe settings it finds each kind of UnsafeKinds within 200 seeds.
func TestUnsafeFindsEachKind(t *testing.T) {
	const bound = 200
	cfg := Config{Unsafe: true}
	var mu sync.Mutex
	first := map[Kind]uint64{}
	results := runSeeds(1, bound, cfg, func(r *Result) bool {
		for k := range r.Outcome.Kinds {
			if s, ok := first[k]; !ok || r.Seed < s {
				first[k] = r.Seed
			}
		}
		for _, k := range UnsafeKinds {
			if _, ok := first[k]; !ok {
				return false
			}
		}
		return true
	})
	mu.Lock()
	defer mu.Unlock()
	var sum Summary
	for _, r := range results {
		sum.Add(r)
	}
	for _, k := range UnsafeKinds {
		if s, ok := first[k]; ok {
			t.Logf("%s: first found at seed %d", k, s)
		} else {
			t.Errorf("the checker found no %s in %d unsafe seeds", k, len(results))
		}
	}
	t.Logf("%s", sum.String())
}

// TestReproduce shrinks unsafe violations of several kinds and checks
// that each reproduction is a short, valid script that `kafkasim run`
// fails on with the same kind of violation.
func TestReproduce(t *testing.T) {
	want := []Kind{"lost", "reorder", "redelivery"}
	if runtime.GOOS != "js" && !testing.Short() {
		want = append(want, "divergence", "duplicate")
	}
	found := map[Kind]*Result{}
	for seed := uint64(1); seed <= 200 && len(found) < len(want); seed++ {
		r := RunSeed(seed, Config{Unsafe: true})
		for _, k := range want {
			if r.Outcome.Kinds[k] != nil && found[k] == nil {
				found[k] = r
			}
		}
	}
	for _, k := range want {
		r := found[k]
		if r == nil {
			t.Errorf("no seed in 1..200 shows %s", k)
			continue
		}
		rep, sh, err := r.Reproduce(k, 1500)
		if err != nil {
			t.Errorf("seed %d %s: %v", r.Seed, k, err)
			continue
		}
		if len(sh.Steps) >= len(r.Case.Steps) {
			t.Errorf("seed %d %s: not shrunk (%d steps)", r.Seed, k, len(sh.Steps))
		}
		s, err := scenario.Parse(rep.Text)
		if err != nil {
			t.Fatalf("seed %d %s: the reproduction does not parse: %v\n%s", r.Seed, k, err, rep.Text)
		}
		res, err := scenario.Run(s, scenario.RunOptions{})
		if err != nil || len(res.Failures) == 0 {
			t.Errorf("seed %d %s: kafkasim run would not fail on the reproduction (%v)", r.Seed, k, err)
		}
		if !strings.Contains(res.Trace, "checker: "+string(k)) {
			t.Errorf("seed %d %s: the reproduction's trace does not end with the checker reporting it:\n%s", r.Seed, k, rep.Text)
		}
		t.Logf("seed %d %s: %d steps shrunk to %d in %d runs", r.Seed, k, len(r.Case.Steps), len(sh.Steps), sh.Runs)
	}
}

// TestDeterministic: a seed gives the same script and the same run every
// time, and every generated step formats and parses back to itself.
func TestDeterministic(t *testing.T) {
	for _, cfg := range []Config{{}, {Unsafe: true}, {Preset: "4.0", Steps: 20}} {
		for seed := uint64(1); seed <= 5; seed++ {
			a, b := Generate(seed, cfg), Generate(seed, cfg)
			ta, err := a.Text()
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			if tb, _ := b.Text(); ta != tb || !reflect.DeepEqual(a.Pinned, b.Pinned) || a.Final != b.Final {
				t.Fatalf("seed %d: two generations differ", seed)
			}
			s, err := scenario.Parse(ta)
			if err != nil || len(s.Steps) != len(a.Steps) {
				t.Fatalf("seed %d: the script does not parse back: %v", seed, err)
			}
			for i := range s.Steps {
				if !scenario.SameStep(s.Steps[i], a.Steps[i]) {
					t.Fatalf("seed %d step %d: %q parses back differently", seed, i+1, s.Steps[i].Text)
				}
			}
			oa, ob := Run(a.Steps, !cfg.Unsafe), Run(s.Steps, !cfg.Unsafe)
			if oa.Steps != ob.Steps || oa.Acked != ob.Acked || oa.VirtualMs != ob.VirtualMs || fmt.Sprint(oa.Violation) != fmt.Sprint(ob.Violation) {
				t.Fatalf("seed %d: the generated steps and the parsed script run differently: %+v vs %+v", seed, oa, ob)
			}
		}
	}
}

// TestSafeScript: generated safe scripts keep the power-off rules, and
// scripts that break them are caught.
func TestSafeScript(t *testing.T) {
	for seed := uint64(1); seed <= 300; seed++ {
		if err := SafeScript(Generate(seed, Config{}).Steps); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
	head := "cluster brokers=3\ntopic create t partitions=1 rf=3\n"
	zk := "cluster brokers=3 version=3.9 metadata=zk\ntopic create t partitions=1 rf=3\n"
	calm := "wait 10s\nsettle max=3m\nexpect error == none\n"
	for _, tc := range []struct {
		script string
		ok     bool
	}{
		{head + calm + "poweroff broker 1\nrestart broker 1\n" + calm + "poweroff broker 2\n", true},
		{head + "poweroff broker 1\n", false},                                             // no settle before
		{head + "wait 10s\nsettle\npoweroff broker 1\n", false},                           // settle not required to succeed
		{head + "crash broker 2\n" + calm + "poweroff broker 1\n", false},                 // not every broker up
		{head + "net split 1 | 2,3\n" + calm + "poweroff broker 1\n", false},              // network not whole
		{head + calm + "poweroff broker 1\ncrash broker 2\n", false},                      // a fault in the window
		{head + calm + "poweroff broker 1\nnet delay 2 3 1s\n", false},                    // likewise
		{head + calm + "poweroff broker 1\nrestart broker 1\npoweroff broker 2\n", false}, // not settled again
		{head + calm + "poweroff broker 1\ncrash consumer c\n", true},                     // consumers may crash
		{zk + calm + "poweroff broker 1\nrestart broker 1\n", false},                      // ZooKeeper session not expired
		{zk + calm + "poweroff broker 1\nwait 10s\nrestart broker 1\n", true},
	} {
		s, err := scenario.Parse(tc.script)
		if err != nil {
			t.Fatal(err)
		}
		if err := SafeScript(s.Steps); (err == nil) != tc.ok {
			t.Errorf("SafeScript(%q) = %v, want ok=%v", tc.script, err, tc.ok)
		}
	}
}

func TestConfigCheck(t *testing.T) {
	for _, tc := range []struct {
		cfg Config
		ok  bool
	}{
		{Config{}, true}, {Config{Preset: "3.9"}, true}, {Config{Preset: "0.8", Unsafe: true}, true},
		{Config{Preset: "0.8"}, false}, {Config{Preset: "0.11"}, false}, {Config{Preset: "9.9"}, false},
		{Config{Steps: -1}, false},
	} {
		if err := tc.cfg.Check(); (err == nil) != tc.ok {
			t.Errorf("%+v: %v, want ok=%v", tc.cfg, err, tc.ok)
		}
	}
	for _, v := range SafeVersions {
		found := false
		for _, x := range core.VersionNames() {
			found = found || x == v
		}
		if !found {
			t.Errorf("safe version %s is not a preset", v)
		}
	}
}

// BenchmarkSimtestSeeds measures safe seeds per second on one goroutine
// (`make bench` reports it natively and in WebAssembly).
func BenchmarkSimtestSeeds(b *testing.B) {
	steps := 0
	for i := 0; i < b.N; i++ {
		r := RunSeed(uint64(i+1), Config{})
		if r.Failed() {
			b.Fatalf("seed %d: %s", i+1, r.Outcome.Violation)
		}
		steps += r.Outcome.Steps
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "seeds/s")
	b.ReportMetric(float64(steps)/float64(b.N), "steps/seed")
}
