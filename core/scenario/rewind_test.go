package scenario

import (
	"encoding/json"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core"
)

// snapshotJSON is the cluster's Snapshot plus its client history, as text.
func snapshotJSON(t *testing.T, c *core.Cluster) string {
	t.Helper()
	b, err := json.Marshal(c.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	var h strings.Builder
	writeHistory(&h, c.History())
	return string(b) + "\n" + h.String()
}

// TestReplayToT plays the long determinism scenario, and a few goldens, in
// random increments, stopping exactly at many virtual times T, and records
// the Snapshot (and the client history) the live cluster has at each. Then,
// from the cluster's Options and its command log alone, core.Replay
// rebuilds the cluster at each T and must give the same JSON; replaying the
// whole log gives the live cluster's final logs, and so does replaying a
// log that went through JSON.
func TestReplayToT(t *testing.T) {
	cases := []struct {
		file    string
		samples int
		end     int64 // the run's last instant (0: find it by running the script)
	}{
		{"testdata/long/determinism.ksim", 6, 2_953_046},
		{"testdata/group-rebalance.ksim", 20, 0},
		{"testdata/kip101-epochs-0.11.ksim", 20, 0},
		{"testdata/group-zk-offsets-0.8.ksim", 20, 0},
		{"testdata/idempotent-retry-zombie-leader.ksim", 20, 0},
	}
	for i, tc := range cases {
		if runtime.GOOS == "js" { // slow there: the goldens, a few times each
			if i == 0 {
				continue
			}
			tc.samples = 4
		}
		t.Run(strings.TrimSuffix(tc.file[strings.LastIndexByte(tc.file, '/')+1:], ".ksim"), func(t *testing.T) {
			checkReplay(t, parseFile(t, tc.file), tc.samples, tc.end, rand.New(rand.NewPCG(uint64(i), 4)))
		})
	}
}

func checkReplay(t *testing.T, s *Script, samples int, end int64, rng *rand.Rand) {
	if end == 0 {
		whole, err := Run(s, RunOptions{NoTrace: true})
		if err != nil {
			t.Fatal(err)
		}
		end = whole.Cluster.Now()
	}
	at := []int64{1, end / 100}
	for range samples {
		at = append(at, 1+rng.Int64N(end))
	}
	slices.Sort(at)
	at = slices.Compact(at)

	p := NewPlayer(s, RunOptions{NoTrace: true})
	live := map[int64]string{}
	next := 0
	for !p.Done() {
		if p.InProgress() == nil {
			if err := p.Start(); err != nil {
				t.Fatal(err)
			}
			continue
		}
		now := p.Cluster().Now()
		for next < len(at) && at[next] < now {
			next++ // passed while no step was in progress (commands only)
		}
		d := 1 + rng.Int64N(end/50+1)
		if next < len(at) && now+d > at[next] {
			d = at[next] - now
		}
		if _, err := p.Advance(d); err != nil {
			t.Fatal(err)
		}
		if next < len(at) && p.Cluster().Now() == at[next] {
			live[at[next]] = snapshotJSON(t, p.Cluster())
			next++
		}
	}
	res := p.Finish()
	c := res.Cluster
	if c.Now() != end {
		t.Fatalf("the run ended at %d, not %d", c.Now(), end)
	}
	if len(live) < len(at)/2 {
		t.Fatalf("only %d of %d sample times were reached", len(live), len(at))
	}
	log := c.CommandLog()
	if len(log) < 5 || c.CommandLogTruncated() {
		t.Fatalf("command log: %d entries, truncated %v", len(log), c.CommandLogTruncated())
	}
	for _, T := range at {
		want, ok := live[T]
		if !ok {
			continue
		}
		r, err := core.Replay(c.Options(), log, T)
		if err != nil {
			t.Fatalf("replay to %d: %v", T, err)
		}
		if r.Now() != T {
			t.Fatalf("replay to %d ended at %d", T, r.Now())
		}
		if got := snapshotJSON(t, r); got != want {
			t.Fatalf("replay to t=%s: snapshot differs from the live one:\n%s", core.FormatTime(T), firstDiff(want, got))
		}
	}

	// The whole log, through JSON, rebuilds the final state.
	var final strings.Builder
	writeHistory(&final, c.History())
	writeLogs(&final, c)
	data, err := json.Marshal(log)
	if err != nil {
		t.Fatal(err)
	}
	var decoded []core.Logged
	if err := json.Unmarshal(data, &decoded); err != nil {
		t.Fatal(err)
	}
	r, err := core.Replay(c.Options(), decoded, c.Now()+1)
	if err != nil {
		t.Fatalf("replay to the end: %v", err)
	}
	var got strings.Builder
	writeHistory(&got, r.History())
	writeLogs(&got, r)
	if got.String() != final.String() {
		t.Fatalf("replaying the whole log (through JSON) does not end where the live run did:\n%s", firstDiff(final.String(), got.String()))
	}
}

// TestReplayRejectsForeignLog: a log whose positions the run never
// reaches is an error, not a wrong cluster.
func TestReplayRejectsForeignLog(t *testing.T) {
	opts := core.Options{Brokers: 1, Seed: 1}
	bad := []core.Logged{
		{At: 10, Fired: 1 << 40, Cmd: core.Wait{Duration: 1}},
	}
	if _, err := core.Replay(opts, bad, 100); err == nil || !strings.Contains(err.Error(), "replay") {
		t.Fatalf("replay of an impossible log: %v", err)
	}
	// Out of order: the second entry is before the first.
	bad = []core.Logged{{At: 50, Cmd: core.NetHeal{}}, {At: 20, Cmd: core.NetHeal{}}}
	if _, err := core.Replay(opts, bad, 100); err == nil {
		t.Fatal("replay of a log out of order succeeded")
	}
}
