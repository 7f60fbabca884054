package log

import (
	"reflect"
	"testing"
)

func TestWritebackAndPowerLoss(t *testing.T) {
	l := New(DefaultConfig(), 0)
	b0 := mk(0, 2, 10, 0)
	b1 := mk(2, 1, 10, 10_000)
	b2 := mk(3, 1, 10, 40_000)
	for _, b := range []*Batch{b0, b1, b2} {
		if err := l.Append(b, b.Timestamp); err != nil {
			t.Fatal(err)
		}
	}
	if l.IsFlushed(0) || l.RecoveryPoint() != 0 {
		t.Fatal("fresh appends must be only in the page cache")
	}
	if !l.Writeback(30_000, 30_000) { // cutoff 0: b0 only
		t.Fatal("writeback should flush b0")
	}
	if !l.IsFlushed(1) || l.IsFlushed(2) || l.DurableOffset() != 2 || l.RecoveryPoint() != 0 {
		t.Fatalf("durable %d rp %d", l.DurableOffset(), l.RecoveryPoint())
	}
	if l.Writeback(30_000, 30_000) {
		t.Fatal("nothing new to write back")
	}
	if !l.Writeback(40_000, 30_000) || l.DurableOffset() != 3 {
		t.Fatalf("durable %d", l.DurableOffset())
	}
	if s := l.Segments()[0]; s.FlushedBytes != int64(b0.Size()+b1.Size()) {
		t.Fatalf("flushed bytes %d", s.FlushedBytes)
	}
	lost := l.LosePageCache()
	if len(lost) != 1 || lost[0] != b2 || l.LEO() != 3 || !l.IsFlushed(2) {
		t.Fatalf("lost %v LEO %d", offsets(lost), l.LEO())
	}
	if l.RecoveryPoint() != 0 { // written back, not fsynced by Kafka
		t.Fatalf("rp %d", l.RecoveryPoint())
	}
}

func TestFlushIsWholeSegmentAndRollFlushes(t *testing.T) {
	l := New(cfgWith(func(c *Config) { c.SegmentBytes = 4000 }), 0)
	fill(t, l, 5, 1, 1000, 0, 1) // segments 0:[0,1,2] 3:[3,4]
	if l.RecoveryPoint() != 3 || l.DurableOffset() != 3 || !l.IsFlushed(2) || l.IsFlushed(3) {
		t.Fatalf("roll should flush the old segment: rp %d durable %d", l.RecoveryPoint(), l.DurableOffset())
	}
	l.Flush(4) // fsync of 00000000000000000003.log writes batch 4 too
	if l.RecoveryPoint() != 4 || l.DurableOffset() != 5 || !l.IsFlushed(4) {
		t.Fatalf("rp %d durable %d", l.RecoveryPoint(), l.DurableOffset())
	}
	l.Flush(100)
	if l.RecoveryPoint() != 5 {
		t.Fatalf("rp capped at LEO: %d", l.RecoveryPoint())
	}
	if lost := l.LosePageCache(); len(lost) != 0 || l.LEO() != 5 {
		t.Fatalf("nothing to lose: %v", lost)
	}
}

func TestPowerLossLosesEverythingUnflushed(t *testing.T) {
	l := New(cfgWith(func(c *Config) { c.SegmentBytes = 4000 }), 0)
	fill(t, l, 5, 1, 1000, 0, 1)
	lost := l.LosePageCache()
	if !eqInts(offsets(lost), []int64{3, 4}) || l.LEO() != 3 || len(l.Segments()) != 2 || l.Segments()[1].Batches != 0 {
		t.Fatalf("lost %v LEO %d", offsets(lost), l.LEO())
	}
}

// After a crash, LogSegment.recover rebuilds the indexes of segments from the
// recovery point on and appends the final time-index entry; a fresh segment
// object counts bytesSinceLastIndexEntry from 0.
func TestPowerLossRecoversIndexes(t *testing.T) {
	l := New(DefaultConfig(), 0)
	fill(t, l, 6, 2, 500, 100, 1) // entry (9,4316), time (104,9); ts 100..105
	l.Writeback(1000, 0)
	l.LosePageCache()
	s := l.Segments()[0]
	if want := []IndexEntry{{9, 4316}}; !reflect.DeepEqual(s.OffsetIndex, want) {
		t.Fatalf("offset index %v", s.OffsetIndex)
	}
	if want := []TimeIndexEntry{{104, 9}, {105, 11}}; !reflect.DeepEqual(s.TimeIndex, want) {
		t.Fatalf("time index %v", s.TimeIndex)
	}
	// bytesSince restarted at 0: the next batch (pos 6474, 2158 bytes after the entry) is not indexed,
	// nor are the following ones until 4096 bytes have been appended since the restart.
	fill(t, l, 4, 2, 500, 200, 1)
	if got := l.Segments()[0].OffsetIndex; len(got) != 1 {
		t.Fatalf("offset index after restart %v", got)
	}
	fill(t, l, 1, 2, 500, 300, 1)
	if got := l.Segments()[0].OffsetIndex; len(got) != 2 || got[1] != (IndexEntry{21, 10790}) {
		t.Fatalf("offset index after restart %v", got)
	}
}
