package check

import (
	"slices"
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/log"
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

// TestCopiesExplainsOnlyEpochBumps: a duplicate is explained only when one
// idempotent producer wrote every copy, each in an epoch of its own.
func TestCopiesExplainsOnlyEpochBumps(t *testing.T) {
	b := func(pid int64, epoch int16) *log.Batch { return &log.Batch{ProducerID: pid, ProducerEpoch: epoch} }
	cases := []struct {
		name      string
		copies    []*log.Batch
		sent      int
		explained bool
		found     bool
	}{
		{"two epochs", []*log.Batch{b(7, 0), b(7, 1)}, 1, true, true},
		{"one epoch", []*log.Batch{b(7, 0), b(7, 0)}, 1, false, true},
		{"not idempotent", []*log.Batch{b(-1, 0), b(-1, 1)}, 1, false, true},
		{"two producer ids", []*log.Batch{b(7, 0), b(8, 1)}, 1, false, true},
		{"three copies, two in one epoch", []*log.Batch{b(7, 0), b(7, 1), b(7, 0)}, 1, false, true},
		{"three epochs", []*log.Batch{b(7, 0), b(7, 1), b(7, 2)}, 1, true, true},
		{"sent twice", []*log.Batch{b(7, 0), b(7, 0)}, 2, false, false},
		{"once", []*log.Batch{b(7, 0)}, 1, false, false},
	}
	for _, c := range cases {
		var d Copies
		d.Add("other", b(7, 0))
		for _, x := range c.copies {
			d.Add("v", x)
		}
		vs := d.Violations("t-0", map[string]int{"v": c.sent, "other": 1})
		if found := len(vs) > 0; found != c.found {
			t.Errorf("%s: found %v, want %v (%v)", c.name, found, c.found, vs)
			continue
		}
		if len(vs) == 0 {
			continue
		}
		if len(vs) != 1 || vs[0].Kind != Duplicate || !slices.Equal(vs[0].Values, []string{"v"}) || (vs[0].Explained != "") != c.explained {
			t.Errorf("%s: got %v, want one duplicate of v, explained %v", c.name, vs, c.explained)
		}
	}
}
