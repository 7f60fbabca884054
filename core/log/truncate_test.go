package log

import (
	"reflect"
	"testing"
)

func TestTruncateWithinSegmentTruncatesIndexes(t *testing.T) {
	l := readLog(t, true) // entries (9,4316) (17,8632) (25,12948); time entries (4,9) (8,17) (12,25)
	removed := l.TruncateTo(18)
	if !eqInts(offsets(removed), []int64{18, 20, 22, 24, 26}) || l.LEO() != 18 {
		t.Fatalf("removed %v LEO %d", offsets(removed), l.LEO())
	}
	s := l.Segments()[0]
	if want := []IndexEntry{{9, 4316}, {17, 8632}}; !reflect.DeepEqual(s.OffsetIndex, want) {
		t.Fatalf("offset index %v", s.OffsetIndex)
	}
	if want := []TimeIndexEntry{{4, 9}, {8, 17}}; !reflect.DeepEqual(s.TimeIndex, want) {
		t.Fatalf("time index %v", s.TimeIndex)
	}
	if s.SizeBytes != 9*1079 || s.LargestTimestamp != 8 || s.NextOffset != 18 {
		t.Fatalf("segment %+v", s)
	}
	// Truncating to 8 removes the entry whose offset is 9 (the batch [8,9] goes).
	l.TruncateTo(8)
	s = l.Segments()[0]
	if len(s.OffsetIndex) != 0 || len(s.TimeIndex) != 0 || s.SizeBytes != 4316 {
		t.Fatalf("after TruncateTo(8): %+v", s)
	}
	// LogSegment.truncateTo resets bytesSinceLastIndexEntry, so the next batch at
	// position 4316 (> 4096 bytes in) is not indexed, unlike the original batch 4.
	fill(t, l, 1, 2, 500, 100, 1)
	if s = l.Segments()[0]; len(s.OffsetIndex) != 0 {
		t.Fatalf("index after re-append: %v", s.OffsetIndex)
	}
}

func TestTruncateAcrossSegments(t *testing.T) {
	l := New(cfgWith(func(c *Config) { c.SegmentBytes = 4000 }), 0)
	fill(t, l, 8, 1, 1000, 0, 1) // segments 0:[0,1,2] 3:[3,4,5] 6:[6,7]
	removed := l.TruncateTo(3)
	if !eqInts(offsets(removed), []int64{3, 4, 5, 6, 7}) || l.LEO() != 3 {
		t.Fatalf("removed %v LEO %d", offsets(removed), l.LEO())
	}
	segs := l.Segments()
	// The segment whose base equals the target stays, empty (LocalLog.truncateTo deletes base > target).
	if len(segs) != 2 || segs[1].BaseOffset != 3 || segs[1].Batches != 0 || !segs[1].Active {
		t.Fatalf("segments %+v", segs)
	}
	if l.RecoveryPoint() != 3 || l.DurableOffset() != 3 {
		t.Fatalf("recovery point %d durable %d", l.RecoveryPoint(), l.DurableOffset())
	}
	removed = l.TruncateTo(1)
	if !eqInts(offsets(removed), []int64{1, 2}) || len(l.Segments()) != 1 || l.RecoveryPoint() != 1 {
		t.Fatalf("removed %v segs %d rp %d", offsets(removed), len(l.Segments()), l.RecoveryPoint())
	}
	if got := l.TruncateTo(5); got != nil || l.LEO() != 1 {
		t.Fatalf("truncate above LEO changed the log")
	}
	fill(t, l, 1, 1, 1000, 10, 1)
	if l.LEO() != 2 {
		t.Fatalf("append after truncate: LEO %d", l.LEO())
	}
}

func TestTruncateBelowFirstSegmentAndFully(t *testing.T) {
	l := New(cfgWith(func(c *Config) { c.SegmentBytes = 4000; c.RetentionMs = 10 }), 0)
	fill(t, l, 8, 1, 1000, 0, 1)
	l.ApplyRetention(1000, l.LEO()) // deletes every segment, rolls at 8
	if l.StartOffset() != 8 {
		t.Fatalf("start offset %d", l.StartOffset())
	}
	fill(t, l, 2, 1, 1000, 1000, 1)
	removed := l.TruncateTo(5) // below the first segment (base 8): truncate fully
	if !eqInts(offsets(removed), []int64{8, 9}) || l.LEO() != 5 || l.StartOffset() != 5 || l.Segments()[0].File != "00000000000000000005.log" {
		t.Fatalf("removed %v LEO %d start %d segs %+v", offsets(removed), l.LEO(), l.StartOffset(), l.Segments())
	}
	l.TruncateFullyAndStartAt(42)
	if l.LEO() != 42 || l.StartOffset() != 42 || len(l.Segments()) != 1 || l.Segments()[0].BaseOffset != 42 {
		t.Fatalf("fully: %+v", l.Segments())
	}
	if err := l.Append(mk(42, 1, 1, 0), 2000); err != nil {
		t.Fatal(err)
	}
}

// Results handed out before a truncation must not change when the log is
// re-appended afterwards (fetch responses in flight share the slices).
func TestReadResultsSurviveTruncation(t *testing.T) {
	l := New(DefaultConfig(), 0)
	fill(t, l, 4, 1, 10, 0, 1)
	r, _ := l.Read(0, 1<<20, l.LEO())
	all := l.Batches(0)
	before := offsets(r.Batches)
	old := r.Batches[3]
	l.TruncateTo(2)
	fill(t, l, 2, 3, 10, 10, 1)
	if !eqInts(offsets(r.Batches), before) || r.Batches[3] != old || all[3] != old {
		t.Fatalf("earlier read changed: %v", offsets(r.Batches))
	}
}

// After 4 batches of 1079 bytes bytesSinceLastIndexEntry is 4316 (> 4096), so
// the next append would be indexed. LogSegment.truncateTo resets the counter
// to 0, so after truncating one batch the re-appended batch is not indexed.
func TestTruncateResetsBytesSinceLastIndexEntry(t *testing.T) {
	l := New(DefaultConfig(), 0)
	fill(t, l, 4, 2, 500, 0, 1)
	l.TruncateTo(6)
	fill(t, l, 1, 2, 500, 10, 1)
	if got := l.Segments()[0].OffsetIndex; len(got) != 0 {
		t.Fatalf("offset index %v, want none", got)
	}
	// Control: without the truncation the fifth batch (pos 4316) is indexed.
	c := New(DefaultConfig(), 0)
	fill(t, c, 4, 2, 500, 0, 1)
	fill(t, c, 1, 2, 500, 10, 1)
	if got := c.Segments()[0].OffsetIndex; len(got) != 1 || got[0] != (IndexEntry{9, 4316}) {
		t.Fatalf("control index %v", got)
	}
}
