package log

import (
	"errors"
	"testing"
)

// retLog: 1070-byte batches, 3 per segment; batch i has timestamp 1000*i.
// Segments: 0:[0,1,2] ts<=2000, 3:[3,4,5] ts<=5000, 6:[6,7,8] ts<=8000, 9:[9].
func retLog(t *testing.T, f func(*Config)) *Log {
	l := New(cfgWith(func(c *Config) { c.SegmentBytes = 4000; f(c) }), 0)
	fill(t, l, 10, 1, 1000, 0, 1000)
	return l
}

func TestRetentionByTime(t *testing.T) {
	tests := []struct {
		name      string
		now, hw   int64
		wantDel   []int64 // base offsets deleted
		wantStart int64
	}{
		// now-largest > 3000: seg0 (2000) yes at now 5001, seg1 (5000) no.
		{"oldest only", 5001, 10, []int64{0}, 3},
		{"not strictly greater", 5000, 10, nil, 0},
		{"two", 8001, 10, []int64{0, 3}, 6},
		// HW 5 < next base 6: seg 3 must stay even though expired.
		{"HW blocks", 20000, 5, []int64{0}, 3},
		// HW 2 < 3: nothing at all.
		{"HW blocks first", 20000, 2, nil, 0},
		// Everything expired and HW = LEO: all deleted, a new segment is rolled at LEO.
		{"all", 20000, 10, []int64{0, 3, 6, 9}, 10},
	}
	for _, tc := range tests {
		l := retLog(t, func(c *Config) { c.RetentionMs = 3000 })
		del := l.ApplyRetention(tc.now, tc.hw)
		var bases []int64
		for _, s := range del {
			bases = append(bases, s.BaseOffset)
		}
		if !eqInts(bases, tc.wantDel) || l.StartOffset() != tc.wantStart {
			t.Errorf("%s: deleted %v start %d, want %v %d", tc.name, bases, l.StartOffset(), tc.wantDel, tc.wantStart)
		}
		if first := l.Segments()[0].BaseOffset; tc.wantDel != nil && first != tc.wantStart {
			t.Errorf("%s: first segment %d", tc.name, first)
		}
	}
	// After "all": one empty active segment at LEO, flushed by the roll.
	l := retLog(t, func(c *Config) { c.RetentionMs = 3000 })
	l.ApplyRetention(20000, 10)
	segs := l.Segments()
	if len(segs) != 1 || segs[0].BaseOffset != 10 || segs[0].Batches != 0 || l.RecoveryPoint() != 10 {
		t.Fatalf("after deleting all: %+v rp %d", segs, l.RecoveryPoint())
	}
	// The last segment, empty, is never deleted.
	if del := l.ApplyRetention(1e9, 10); len(del) != 0 {
		t.Fatalf("deleted the empty active segment")
	}
	if _, err := l.Read(5, 100, 10); !errors.Is(err, ErrOffsetOutOfRange) {
		t.Fatalf("read below start: %v", err)
	}
}

func TestRetentionBySize(t *testing.T) {
	// Total size 10*1070 = 10700; segments 3210,3210,3210,1070.
	tests := []struct {
		name      string
		bytes     int64
		hw        int64
		wantStart int64
	}{
		{"under limit", 10701, 10, 0},
		// diff 0: 0-3210 < 0, nothing (Kafka only proceeds if size >= limit, then needs diff-seg >= 0).
		{"at limit", 10700, 10, 0},
		// diff 3210: exactly one segment.
		{"one segment", 7490, 10, 3},
		{"one segment, one byte short", 7491, 10, 0},
		// diff 7000: one (3210), second would leave 3790-3210=580 >= 0 -> two.
		{"two", 3700, 10, 6},
		// diff 10700: all four, including the active one since HW == LEO.
		{"zero", 0, 10, 10},
		{"zero, HW below LEO keeps active", 0, 9, 9},
		{"HW blocks", 0, 4, 3},
	}
	for _, tc := range tests {
		l := retLog(t, func(c *Config) { c.RetentionBytes = tc.bytes; c.RetentionMs = -1 })
		l.ApplyRetention(1e9, tc.hw)
		if l.StartOffset() != tc.wantStart {
			t.Errorf("%s: start %d, want %d", tc.name, l.StartOffset(), tc.wantStart)
		}
	}
}

func TestRetentionUnlimited(t *testing.T) {
	l := retLog(t, func(c *Config) { c.RetentionMs = -1; c.RetentionBytes = -1 })
	if del := l.ApplyRetention(1e15, 10); len(del) != 0 {
		t.Fatalf("unlimited retention deleted %d", len(del))
	}
}

// TestIncrementStartOffset: a follower's log start moves up to the
// leader's (UnifiedLog.maybeIncrementLogStartOffset), never down nor above
// the high watermark, and a read below it is out of range before any
// segment is deleted.
func TestIncrementStartOffset(t *testing.T) {
	l := retLog(t, func(c *Config) { c.RetentionMs = -1; c.RetentionBytes = -1 })
	if l.IncrementStartOffset(8, 7) {
		t.Fatalf("moved above the high watermark")
	}
	if !l.IncrementStartOffset(4, 10) || l.StartOffset() != 4 {
		t.Fatalf("start %d, want 4", l.StartOffset())
	}
	if l.IncrementStartOffset(2, 10) || l.StartOffset() != 4 {
		t.Fatalf("start moved down to %d", l.StartOffset())
	}
	if l.SegmentCount() != 4 {
		t.Fatalf("segments %d, want all 4 kept until DeleteBelowStart", l.SegmentCount())
	}
	if _, err := l.Read(3, 100, 10); !errors.Is(err, ErrOffsetOutOfRange) {
		t.Fatalf("read below the new start: %v", err)
	}
}

// TestDeleteBelowStart: deleteLogStartOffsetBreachedSegments deletes each
// segment whose next one starts at or below the log start, however long
// retention is, and never the last; the high watermark still bounds it.
func TestDeleteBelowStart(t *testing.T) {
	tests := []struct {
		name    string
		start   int64
		hw      int64
		wantDel []int64
	}{
		{"inside the first segment", 2, 10, nil},
		{"at the second segment's base", 3, 10, []int64{0}},
		{"inside the third", 7, 10, []int64{0, 3}},
		{"at LEO keeps the last", 10, 10, []int64{0, 3, 6}},
	}
	for _, tc := range tests {
		l := retLog(t, func(c *Config) { c.RetentionMs = -1; c.RetentionBytes = -1 })
		l.IncrementStartOffset(tc.start, 10)
		var bases []int64
		for _, s := range l.DeleteBelowStart(1e9, tc.hw) {
			bases = append(bases, s.BaseOffset)
		}
		if !eqInts(bases, tc.wantDel) || l.StartOffset() != tc.start {
			t.Errorf("%s: deleted %v start %d, want %v %d", tc.name, bases, l.StartOffset(), tc.wantDel, tc.start)
		}
	}
}
