package scenario

import (
	"regexp"
	"strconv"
	"testing"
)

// TestProduceWakesPerPartitionBefore27 runs
// testdata/produce-two-partitions-one-fetch under each preset and times
// the second partition's acks=all answer from its send: one request to
// the leader (1 ms), one follower fetch cycle (2 ms) and the answer back
// (1 ms) from 2.7 (KAFKA-8334's ActionQueue wakes the parked fetches once
// the request is appended), a second fetch cycle more before it (each
// partition's append woke them: the first took the fetches, the second
// waited for the next ones).
func TestProduceWakesPerPartitionBefore27(t *testing.T) {
	for _, tc := range []struct {
		version, meta string
		ms            int
	}{{"0.8", "zk", 6}, {"0.11", "zk", 6}, {"2.8", "zk", 4}, {"3.9", "kraft", 4}, {"4.0", "kraft", 4}} {
		res := runText(t, tc.version, variant(t, "testdata/produce-two-partitions-one-fetch.ksim",
			"version=3.9 metadata=kraft", "version="+tc.version+" metadata="+tc.meta))
		sent, acked := traceMillis(t, res.Trace, "p sends b to t-1"), traceMillis(t, res.Trace, "p acked b on t-1")
		if acked-sent != tc.ms {
			t.Errorf("%s: b acked %d ms after it was sent, want %d:\n%s", tc.version, acked-sent, tc.ms, res.Trace)
		}
	}
}

// traceMillis is the time, in ms, of the first trace line containing what.
func traceMillis(t *testing.T, trace, what string) int {
	t.Helper()
	m := regexp.MustCompile(`(?m)^\s*(\d+)\.(\d{3})s  ` + regexp.QuoteMeta(what)).FindStringSubmatch(trace)
	if m == nil {
		t.Fatalf("no %q in the trace:\n%s", what, trace)
	}
	s, _ := strconv.Atoi(m[1])
	ms, _ := strconv.Atoi(m[2])
	return s*1000 + ms
}
