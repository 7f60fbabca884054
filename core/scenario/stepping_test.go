package scenario

import (
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// longOutput renders what TestDeterminism hashes: the verbose trace, every
// record sent and received, and every replica's final log.
func longOutput(res *Result) string {
	var b strings.Builder
	b.WriteString(res.Trace)
	writeHistory(&b, res.Cluster.History())
	writeLogs(&b, res.Cluster)
	return b.String()
}

func hashOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// play runs s with a Player, advancing by next() ms at a time while a step
// is in progress, and returns the result and how many Advance calls it made.
func play(t *testing.T, s *Script, opts RunOptions, next func() int64) (*Result, int) {
	t.Helper()
	p := NewPlayer(s, opts)
	calls := 0
	for !p.Done() {
		if p.InProgress() == nil {
			if err := p.Start(); err != nil {
				t.Fatalf("start: %v", err)
			}
			continue
		}
		d := next()
		before := p.Cluster().Now()
		completed, err := p.Advance(d)
		if err != nil {
			t.Fatalf("advance %d: %v", d, err)
		}
		calls++
		now := p.Cluster().Now()
		if now-before > d || !completed && now-before != d {
			t.Fatalf("advance %d went from %d to %d (completed %v)", d, before, now, completed)
		}
	}
	return p.Finish(), calls
}

func parseFile(t *testing.T, f string) *Script {
	t.Helper()
	src, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse(string(src))
	if err != nil {
		t.Fatalf("%s:%v", f, err)
	}
	return s
}

// TestSteppingLong plays the long determinism scenario under an outside
// clock, in 1 ms increments and in random increments (0 to 3 s, zero
// included), and requires the golden hash of TestDeterminism's output: the
// trace, the history and every log are those of one whole run.
func TestSteppingLong(t *testing.T) {
	s := parseFile(t, "testdata/long/determinism.ksim")
	opts := RunOptions{Verbose: true}
	golden, err := os.ReadFile("testdata/long/determinism.sha256")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.TrimSpace(string(golden)) // the whole run's (TestDeterminism)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		name string
		next func() int64
	}{
		{"1ms", func() int64 { return 1 }},
		{"random", func() int64 { return rng.Int64N(3000) }},
	} {
		if runtime.GOOS == "js" && c.name != "random" {
			continue // slow there; native runs them all
		}
		t.Run(c.name, func(t *testing.T) {
			res, calls := play(t, s, opts, c.next)
			if got := hashOf(longOutput(res)); got != want {
				t.Fatalf("stepped %s (%d advances): hash %s, the whole run's %s (compare with -longout)", c.name, calls, got, want)
			}
			if c.name == "1ms" && calls < 100_000 {
				t.Errorf("only %d advances of 1 ms: the scenario barely waits", calls)
			}
		})
	}
}

// TestSteppingGoldens plays every golden scenario in random increments
// (and a few in 1 ms increments) and requires its golden trace.
func TestSteppingGoldens(t *testing.T) {
	files, err := filepath.Glob("testdata/*.ksim")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	oneMs := map[string]bool{"acks1-leader-death": true, "consumer-buffered-fetch": true, "unclean-election": true, "group-manual-poll": true, "group-zk-offsets-0.8": true}
	for i, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".ksim")
		if runtime.GOOS == "js" && i%4 != 0 {
			continue // under wasm a sample is enough
		}
		t.Run(name, func(t *testing.T) {
			s := parseFile(t, f)
			want, err := os.ReadFile(strings.TrimSuffix(f, ".ksim") + ".trace")
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			res, _ := play(t, s, RunOptions{}, func() int64 { return rng.Int64N(700) })
			if res.Trace != string(want) {
				t.Fatalf("stepped in random increments, the trace differs:\n%s", firstDiff(string(want), res.Trace))
			}
			if oneMs[name] {
				res, _ := play(t, s, RunOptions{}, func() int64 { return 1 })
				if res.Trace != string(want) {
					t.Fatalf("stepped by 1 ms, the trace differs:\n%s", firstDiff(string(want), res.Trace))
				}
			}
		})
	}
}
