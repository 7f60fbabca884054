package log

import (
	"fmt"
	"strings"
	"testing"
)

// kv appends one batch of keyed records "k=v" (v "-" is a tombstone).
func kv(t *testing.T, l *Log, now int64, pid int64, pairs ...string) *Batch {
	t.Helper()
	b := &Batch{BaseOffset: l.LEO(), ProducerID: pid, BaseSequence: -1, Timestamp: now}
	for _, p := range pairs {
		k, v, _ := strings.Cut(p, "=")
		r := Record{Key: k, HasKey: true, Value: v}
		if v == "-" {
			r = Record{Key: k, HasKey: true, NullValue: true}
		}
		b.Records = append(b.Records, r)
	}
	if err := l.Append(b, now); err != nil {
		t.Fatal(err)
	}
	return b
}

// contents lists every record as offset:key=value, segment by segment.
func contents(l *Log) string {
	var w []string
	for _, s := range l.segs {
		var seg []string
		for _, b := range s.batches {
			for i := range b.Len() {
				r := b.Record(i)
				seg = append(seg, fmt.Sprintf("%d:%s=%s", b.Offset(i), r.Key, r.ValueText()))
			}
		}
		w = append(w, "["+strings.Join(seg, " ")+"]")
	}
	return strings.Join(w, " ")
}

func compactLog(segBytes int64) *Log {
	return New(cfgWith(func(c *Config) { c.SegmentBytes = segBytes; c.IndexIntervalBytes = 0 }), 0)
}

// TestCleanKeepsLatestPerKey: records superseded in the dirty section go,
// offsets stay (gaps), the active segment is untouched, the checkpoint
// moves to the active segment's base.
func TestCleanKeepsLatestPerKey(t *testing.T) {
	l := compactLog(200)
	kv(t, l, 1, -1, "a=1", "b=1")
	kv(t, l, 2, -1, "a=2")
	kv(t, l, 3, -1, "c=1")
	kv(t, l, 4, -1, "b=2")
	kv(t, l, 5, -1, "a=3")
	if len(l.segs) < 3 {
		t.Fatalf("want several segments, got %s", contents(l))
	}
	before := contents(l)
	act := l.active().base
	tc := l.ToClean(l.LEO(), 10)
	if tc.FirstDirty != 0 || tc.FirstUncleanable != act || tc.Ratio() != 1 || !tc.Cleanable(0.5) {
		t.Fatalf("ToClean = %+v (active base %d)", tc, act)
	}
	res := l.Clean(tc, 10)
	if res.To != act {
		t.Fatalf("checkpoint %d, want %d", res.To, act)
	}
	if cp, ok := l.CleanerCheckpoint(); !ok || cp != act {
		t.Fatalf("CleanerCheckpoint = %d %v", cp, ok)
	}
	got := contents(l)
	// a=1 (0) and b=1 (1) are superseded; a=2 stays, since a=3 is in the
	// active segment, which the offset map does not cover.
	if strings.Contains(got, "0:a=1") || strings.Contains(got, "1:b=1") || !strings.Contains(got, "2:a=2") ||
		!strings.Contains(got, "3:c=1") || !strings.Contains(got, "4:b=2") || !strings.Contains(got, "5:a=3") {
		t.Fatalf("before %s\nafter  %s", before, got)
	}
	if l.active().base != act || l.LEO() != 6 {
		t.Fatalf("active segment moved: base %d, LEO %d", l.active().base, l.LEO())
	}
	if _, _, ok := l.At(0); ok {
		t.Fatal("At(0) finds a cleaned record")
	}
	if r, _, ok := l.At(4); !ok || r.Value != "2" {
		t.Fatalf("At(4) = %+v %v", r, ok)
	}
	// Nothing dirty left: not cleanable again.
	if tc := l.ToClean(l.LEO(), 11); tc.CleanableBytes != 0 || tc.Cleanable(0.5) {
		t.Fatalf("after clean: %+v", tc)
	}
}

// TestCleanPartialBatchKeepsOffsets: a batch losing some records keeps its
// base and last offset, and its size counts only what is left.
func TestCleanPartialBatchKeepsOffsets(t *testing.T) {
	l := compactLog(1 << 20)
	b := kv(t, l, 1, -1, "a=1", "b=1", "c=1")
	l.roll(2)
	kv(t, l, 2, -1, "b=2")
	l.roll(3)
	l.Clean(l.ToClean(l.LEO(), 3), 3)
	nb := l.segs[0].batches[0]
	if nb == b || nb.BaseOffset != 0 || nb.LastOffset() != 2 || nb.Len() != 2 || nb.Offset(1) != 2 {
		t.Fatalf("cleaned batch %+v", nb)
	}
	if nb.Size() >= b.Size() {
		t.Fatalf("cleaned batch size %d, original %d", nb.Size(), b.Size())
	}
	if l.segs[0].size != int32(nb.Size()+l.segs[0].batches[1].Size()) {
		t.Fatalf("segment size %d", l.segs[0].size)
	}
}

// TestCleanTombstoneHorizon: a tombstone survives the clean that first
// keeps it, which sets its batch's delete horizon, and goes at the first
// clean after delete.retention.ms.
func TestCleanTombstoneHorizon(t *testing.T) {
	l := New(cfgWith(func(c *Config) { c.DeleteRetentionMs = 1000 }), 0)
	kv(t, l, 1, -1, "a=1")
	kv(t, l, 2, -1, "a=-")
	l.roll(3)
	l.Clean(l.ToClean(l.LEO(), 10), 10)
	if got := contents(l); got != "[1:a=null] []" {
		t.Fatalf("after first clean: %s", got)
	}
	tb := l.segs[0].batches[0]
	if !tb.HasDeleteHorizon || tb.DeleteHorizonMs != 1010 {
		t.Fatalf("delete horizon %v %d", tb.HasDeleteHorizon, tb.DeleteHorizonMs)
	}
	// MemoryRecordsBuilder: the horizon is the header's base timestamp
	// and the record's delta is re-based on it, so it still reads 2.
	if tb.Timestamp != 1010 || tb.Record(0).TimestampDelta != 2-1010 || tb.RecordTimestamp(0) != 2 || tb.MaxTimestamp() != 2 {
		t.Fatalf("horizon batch: base %d, delta %d, record ts %d, max %d; want 1010, %d, 2, 2",
			tb.Timestamp, tb.Record(0).TimestampDelta, tb.RecordTimestamp(0), tb.MaxTimestamp(), 2-1010)
	}
	kv(t, l, 20, -1, "b=1")
	l.roll(21)
	l.Clean(l.ToClean(l.LEO(), 500), 500)
	if got := contents(l); !strings.Contains(got, "1:a=null") {
		t.Fatalf("tombstone gone before its horizon: %s", got)
	}
	kv(t, l, 30, -1, "c=1")
	l.roll(31)
	res := l.Clean(l.ToClean(l.LEO(), 1010), 1010)
	if got := contents(l); strings.Contains(got, "a=null") {
		t.Fatalf("tombstone kept past its horizon: %s", got)
	}
	if res.Segments[0].TombstonesPurged != 1 {
		t.Fatalf("purged %+v", res.Segments)
	}
}

// TestCleanRebasesOnFirstKept: a rebuilt batch without a delete horizon
// takes its first kept record's timestamp as its base
// (MemoryRecordsBuilder.appendWithOffset), every record keeping its own.
func TestCleanRebasesOnFirstKept(t *testing.T) {
	l := compactLog(1 << 20)
	b := &Batch{BaseOffset: 0, ProducerID: -1, BaseSequence: -1, Timestamp: 100,
		Records: []Record{{Key: "a", HasKey: true, Value: "1"}, {Key: "b", HasKey: true, Value: "1", TimestampDelta: 7}}}
	if err := l.Append(b, 100); err != nil {
		t.Fatal(err)
	}
	kv(t, l, 200, -1, "a=2")
	l.roll(2)
	l.Clean(l.ToClean(l.LEO(), 300), 300)
	nb := l.segs[0].batches[0]
	if nb.Len() != 1 || nb.Timestamp != 107 || nb.Record(0).TimestampDelta != 0 || nb.RecordTimestamp(0) != 107 || nb.MaxTimestamp() != 107 {
		t.Fatalf("rebuilt batch: %d records, base %d, delta %d, max %d; want 1, 107, 0, 107", nb.Len(), nb.Timestamp, nb.Record(0).TimestampDelta, nb.MaxTimestamp())
	}
}

// TestCleanRetainsProducersLastBatch: an idempotent producer's last batch
// stays, empty, when all its records are superseded (RETAIN_EMPTY).
func TestCleanRetainsProducersLastBatch(t *testing.T) {
	l := compactLog(1 << 20)
	kv(t, l, 1, 7, "a=1")
	kv(t, l, 2, 7, "a=2")
	kv(t, l, 3, -1, "a=3")
	l.roll(4)
	l.Clean(l.ToClean(l.LEO(), 4), 4)
	bs := l.segs[0].batches
	if len(bs) != 2 || bs[0].BaseOffset != 1 || bs[0].Len() != 0 || bs[0].LastOffset() != 1 || bs[1].BaseOffset != 2 {
		t.Fatalf("batches %s / %d", contents(l), len(bs))
	}
	r, err := l.Read(0, 1<<20, l.LEO())
	if err != nil || len(r.Batches) != 2 {
		t.Fatalf("Read = %+v %v", r, err)
	}
}

// TestCleanDropsEmptyBatchOnceNotLast: the emptied batch kept as its
// producer's last goes at the next clean after the producer wrote again
// (MemoryRecords.filterTo: DELETE_EMPTY for a batch with no record left
// that is not the producer's last), and a kept batch's sequence span is
// its offset span (RecordBatch.lastSequence: baseSequence +
// lastOffsetDelta).
func TestCleanDropsEmptyBatchOnceNotLast(t *testing.T) {
	l := compactLog(1 << 20)
	kv(t, l, 1, 7, "a=1")
	kv(t, l, 2, -1, "a=2")
	l.roll(3)
	l.Clean(l.ToClean(l.LEO(), 3), 3)
	if bs := l.segs[0].batches; len(bs) != 2 || bs[0].Len() != 0 || bs[0].LastOffset() != 0 {
		t.Fatalf("after the first clean: %s, %d batches", contents(l), len(bs))
	}
	kv(t, l, 4, 7, "b=1") // producer 7 writes again
	kv(t, l, 5, -1, "c=1")
	l.roll(6)
	l.Clean(l.ToClean(l.LEO(), 6), 6)
	for _, s := range l.segs {
		for _, b := range s.batches {
			if b.Len() == 0 {
				t.Fatalf("an empty batch at %d..%d stayed after its producer's next batch: %s", b.BaseOffset, b.LastOffset(), contents(l))
			}
		}
	}
}

// TestCleanRespectsHighWatermarkAndRatio: nothing at or above the high
// watermark's segment is cleaned, and a log below the dirty ratio is not
// cleanable.
func TestCleanRespectsHighWatermarkAndRatio(t *testing.T) {
	l := compactLog(1 << 20)
	kv(t, l, 1, -1, "a=1")
	l.roll(2)
	kv(t, l, 2, -1, "a=2")
	l.roll(3)
	kv(t, l, 3, -1, "b=1")
	tc := l.ToClean(1, 4) // HW 1: in the second segment
	if tc.FirstUncleanable != 1 {
		t.Fatalf("FirstUncleanable = %d", tc.FirstUncleanable)
	}
	l.Clean(tc, 4)
	if got := contents(l); got != "[0:a=1] [1:a=2] [2:b=1]" {
		t.Fatalf("cleaned past the high watermark: %s", got)
	}
	if cp, _ := l.CleanerCheckpoint(); cp != 1 {
		t.Fatalf("checkpoint %d", cp)
	}
	tc = l.ToClean(l.LEO(), 5)
	if tc.FirstDirty != 1 || tc.Ratio() != 0.5 || tc.Cleanable(0.5) || !tc.Cleanable(0.4) {
		t.Fatalf("ToClean %+v ratio %v", tc, tc.Ratio())
	}
}

// TestCleanMinCompactionLag: a segment whose largest timestamp is within
// min.compaction.lag.ms is not cleaned.
func TestCleanMinCompactionLag(t *testing.T) {
	l := New(cfgWith(func(c *Config) { c.MinCompactionLagMs = 100 }), 0)
	kv(t, l, 1, -1, "a=1")
	l.roll(2)
	kv(t, l, 50, -1, "a=2")
	l.roll(51)
	if tc := l.ToClean(l.LEO(), 120); tc.FirstUncleanable != 1 {
		t.Fatalf("FirstUncleanable = %d, want 1", tc.FirstUncleanable)
	}
	if tc := l.ToClean(l.LEO(), 200); tc.FirstUncleanable != 2 {
		t.Fatalf("FirstUncleanable = %d, want 2", tc.FirstUncleanable)
	}
}

// TestCleanBoundsRepeatedKeys: a log of one key written many times stays
// a few segments once cleaned, whatever the number of writes.
func TestCleanBoundsRepeatedKeys(t *testing.T) {
	l := compactLog(1000)
	for i := range 5000 {
		kv(t, l, int64(i), -1, fmt.Sprintf("k=%d", i))
		if tc := l.ToClean(l.LEO(), int64(i)); tc.Cleanable(0.5) {
			l.Clean(tc, int64(i))
		}
	}
	var size int64
	for _, s := range l.segs {
		size += int64(s.size)
	}
	if size > 3000 || len(l.segs) > 4 {
		t.Fatalf("%d segments, %d bytes after 5000 writes of one key", len(l.segs), size)
	}
	if r, _, ok := l.At(4999); !ok || r.Value != "4999" {
		t.Fatalf("latest record %+v %v", r, ok)
	}
}

// TestAppendAsFollowerTakesGaps: a follower's append may start above its
// log end offset (a batch its compacted leader kept after a removed one),
// a leader's may not.
func TestAppendAsFollowerTakesGaps(t *testing.T) {
	l := New(DefaultConfig(), 0)
	b := &Batch{BaseOffset: 3, ProducerID: -1, BaseSequence: -1, Records: []Record{{Key: "a", HasKey: true, Value: "4"}}}
	if err := l.Append(b, 0); err == nil {
		t.Fatal("a leader's append above its log end offset was taken")
	}
	if err := l.AppendAsFollower(b, 0); err != nil || l.LEO() != 4 {
		t.Fatalf("AppendAsFollower: %v, LEO %d", err, l.LEO())
	}
	if err := l.AppendAsFollower(mk(2, 1, 1, 0), 0); err == nil {
		t.Fatal("a follower's append below its log end offset was taken")
	}
	if _, _, ok := l.At(2); ok {
		t.Fatal("At(2) finds a record in the gap")
	}
}
