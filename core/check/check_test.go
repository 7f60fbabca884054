package check

import (
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core"
)

func TestClipPair(t *testing.T) {
	long := strings.Repeat("x", 60)
	cases := []struct{ a, b, wa, wb string }{
		{"m3", "m2", "m3", "m2"},
		{long + "A" + long, long + "B" + long,
			"..." + strings.Repeat("x", 20) + "A" + strings.Repeat("x", 19) + "...",
			"..." + strings.Repeat("x", 20) + "B" + strings.Repeat("x", 19) + "..."},
		{"A" + long, "B" + long, "A" + strings.Repeat("x", 39) + "...", "B" + strings.Repeat("x", 39) + "..."},
		// A cut never splits a rune: 39 ASCII bytes, then a 2-byte rune.
		{strings.Repeat("y", 39) + "é" + long, "z", strings.Repeat("y", 39) + "...", "z"},
	}
	for _, c := range cases {
		ga, gb := clipPair(c.a, c.b)
		if ga != c.wa || gb != c.wb {
			t.Errorf("clipPair(%q, %q) = %q, %q; want %q, %q", c.a, c.b, ga, gb, c.wa, c.wb)
		}
	}
}

func TestLogBefore(t *testing.T) {
	at := func(log string, off int64) core.CommitRecord { return core.CommitRecord{Log: log, LogOffset: off} }
	cases := []struct {
		a, b core.CommitRecord
		want bool
	}{
		{at("__consumer_offsets-2", 3), at("__consumer_offsets-2", 5), true},
		{at("__consumer_offsets-2", 5), at("__consumer_offsets-2", 3), false},
		{at("__consumer_offsets-2", 3), at("__consumer_offsets-2", 3), false},
		{at("__consumer_offsets-1", 3), at("__consumer_offsets-2", 5), false},
		{at("", -1), at("", -1), false}, // ZooKeeper: report order
	}
	for _, c := range cases {
		if got := LogBefore(c.a, c.b); got != c.want {
			t.Errorf("LogBefore(%v, %v) = %v", c.a, c.b, got)
		}
	}
}

// TestResetExplains: a commit going back is explained only by a reset of
// the same group and partition, from above it, after the group last
// committed at or below it, and no later than the commit.
func TestResetExplains(t *testing.T) {
	prior := []core.CommitRecord{
		{Group: "g", Partition: "t-0", Offset: 0, At: 100},
		{Group: "g", Partition: "t-0", Offset: 13, At: 200},
	}
	cm := core.CommitRecord{Group: "g", Partition: "t-0", Offset: 0, At: 400}
	cases := []struct {
		name string
		r    core.ResetRecord
		want bool
	}{
		{"reset between", core.ResetRecord{Group: "g", Partition: "t-0", From: 13, At: 300}, true},
		{"reset at the commit", core.ResetRecord{Group: "g", Partition: "t-0", From: 13, At: 400}, true},
		{"reset after the commit", core.ResetRecord{Group: "g", Partition: "t-0", From: 13, At: 401}, false},
		{"reset before the group was last at 0", core.ResetRecord{Group: "g", Partition: "t-0", From: 13, At: 50}, false},
		{"reset from below", core.ResetRecord{Group: "g", Partition: "t-0", From: 0, At: 300}, false},
		{"other group", core.ResetRecord{Group: "h", Partition: "t-0", From: 13, At: 300}, false},
		{"other partition", core.ResetRecord{Group: "g", Partition: "t-1", From: 13, At: 300}, false},
	}
	for _, c := range cases {
		h := &core.History{Resets: []core.ResetRecord{c.r}}
		if got := ResetExplains(h, prior, cm); got != c.want {
			t.Errorf("%s: ResetExplains = %v, want %v", c.name, got, c.want)
		}
	}
}
