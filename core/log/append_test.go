package log

import (
	"errors"
	"reflect"
	"testing"
)

// Batches of 2 records with 500-byte values are 1079 bytes (see
// TestBatchSizeHandComputed): batch i has base 2i, last 2i+1, position 1079*i.
// LogSegment.append with interval 4096: bytesSinceLastIndexEntry before batch i
// is 0,1079,2158,3237,4316 -> entry at batch 4 (pos 4316), reset, then again at
// batch 8 (pos 8632), batch 12 (pos 12948).
func TestOffsetIndexPlacement(t *testing.T) {
	tests := []struct {
		name      string
		interval  int
		lastOff   bool
		wantIndex []IndexEntry
	}{
		{"2.0+ last offset", 4096, true, []IndexEntry{{9, 4316}, {17, 8632}, {25, 12948}}},
		{"<=1.1 first offset", 4096, false, []IndexEntry{{8, 4316}, {16, 8632}, {24, 12948}}},
		// interval 4316: bytesSince == 4316 is not > 4316, so batch 5 (pos 5395) gets
		// the entry; after the reset batches 6..9 bring it to 4316 again, batch 10 (pos 10790).
		{"strictly greater", 4316, true, []IndexEntry{{11, 5395}, {21, 10790}}},
		// interval 0: every batch except the segment's first.
		{"interval 0", 0, true, []IndexEntry{{3, 1079}, {5, 2158}, {7, 3237}, {9, 4316}, {11, 5395}, {13, 6474}, {15, 7553}, {17, 8632}, {19, 9711}, {21, 10790}, {23, 11869}, {25, 12948}, {27, 14027}}},
	}
	for _, tc := range tests {
		l := New(cfgWith(func(c *Config) { c.IndexIntervalBytes = tc.interval; c.IndexLastOffset = tc.lastOff }), 0)
		fill(t, l, 14, 2, 500, 1000, 10)
		segs := l.Segments()
		if len(segs) != 1 {
			t.Fatalf("%s: %d segments", tc.name, len(segs))
		}
		if !reflect.DeepEqual(segs[0].OffsetIndex, tc.wantIndex) {
			t.Errorf("%s: offset index %v, want %v", tc.name, segs[0].OffsetIndex, tc.wantIndex)
		}
		if segs[0].SizeBytes != 14*1079 {
			t.Errorf("%s: size %d", tc.name, segs[0].SizeBytes)
		}
	}
}

// The time index is offered (maxTimestampSoFar, offsetOfMaxTimestampSoFar)
// exactly when the offset index gets an entry, and keeps it only if the
// timestamp grew; on roll the final max is appended (onBecomeInactiveSegment).
func TestTimeIndexRule(t *testing.T) {
	l := New(DefaultConfig(), 0)
	ts := []int64{100, 200, 300, 400, 50, 60, 70, 80, 90, 500, 10, 20, 30, 40}
	for i, x := range ts {
		if err := l.Append(mk(l.LEO(), 2, 500, x), int64(i)); err != nil {
			t.Fatal(err)
		}
	}
	s := l.Segments()[0]
	// batch 4 (ts 50): max so far 400 at batch 3 (last offset 7) -> (400,7).
	// batch 8 (ts 90): max still 400 -> no entry. batch 12 (ts 30): max 500 at batch 9 (last 19).
	wantT := []TimeIndexEntry{{400, 7}, {500, 19}}
	if !reflect.DeepEqual(s.TimeIndex, wantT) {
		t.Fatalf("time index %v, want %v", s.TimeIndex, wantT)
	}
	if len(s.OffsetIndex) != 3 || s.LargestTimestamp != 500 {
		t.Fatalf("offset index %v largest %d", s.OffsetIndex, s.LargestTimestamp)
	}

	// Roll: segment.ms exceeded by the next batch's timestamp relative to the first batch (100).
	l2 := New(cfgWith(func(c *Config) { c.SegmentMs = 1000 }), 0)
	for i, x := range []int64{100, 300, 200} {
		if err := l2.Append(mk(l2.LEO(), 1, 10, x), int64(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := l2.Append(mk(l2.LEO(), 1, 10, 1101), 5); err != nil {
		t.Fatal(err)
	}
	segs := l2.Segments()
	if len(segs) != 2 {
		t.Fatalf("want roll, got %d segments", len(segs))
	}
	// No index entries were due (small batches), but the roll appends (300, 1).
	if want := []TimeIndexEntry{{300, 1}}; !reflect.DeepEqual(segs[0].TimeIndex, want) {
		t.Fatalf("rolled time index %v, want %v", segs[0].TimeIndex, want)
	}
}

func TestRollRules(t *testing.T) {
	// 1-record batches with 1000-byte values are 1070 bytes.
	tests := []struct {
		name      string
		cfg       Config
		ts        []int64 // batch timestamps
		now       []int64 // append times
		wantBases []int64
	}{
		// size > 3000-1070 = 1930 rolls: sizes 0, 1070, 2140(roll) ...
		{"segment.bytes", cfgWith(func(c *Config) { c.SegmentBytes = 3000 }),
			[]int64{0, 0, 0, 0, 0}, []int64{0, 0, 0, 0, 0}, []int64{0, 2, 4}},
		// exact fit: 2140 > 3210-1070=2140 is false, so 3 batches fit.
		{"segment.bytes exact", cfgWith(func(c *Config) { c.SegmentBytes = 3210 }),
			[]int64{0, 0, 0, 0}, []int64{0, 0, 0, 0}, []int64{0, 3}},
		// waited = ts - first ts: 1000 is not > 1000, 1001 is.
		{"segment.ms by timestamp", cfgWith(func(c *Config) { c.SegmentMs = 1000 }),
			[]int64{0, 1000, 1001, 1500, 2001, 2002}, []int64{0, 0, 0, 0, 0, 0}, []int64{0, 2, 5}},
		// no timestamps (-1): waited = now - created.
		{"segment.ms by clock", cfgWith(func(c *Config) { c.SegmentMs = 1000 }),
			[]int64{-1, -1, -1}, []int64{0, 1000, 1001}, []int64{0, 2}},
		// IndexMaxBytes 24: offset index max 3, time index max 2 entries. Interval 0 and rising
		// timestamps: batches 1,2 add one entry to each index; the time index is then full.
		{"time index full", cfgWith(func(c *Config) { c.IndexMaxBytes = 24; c.IndexIntervalBytes = 0 }),
			[]int64{1, 2, 3, 4, 5, 6, 7}, []int64{0, 0, 0, 0, 0, 0, 0}, []int64{0, 3, 6}},
		// Constant timestamps: time index keeps 1 entry, the offset index fills at 3.
		{"offset index full", cfgWith(func(c *Config) { c.IndexMaxBytes = 24; c.IndexIntervalBytes = 0 }),
			[]int64{5, 5, 5, 5, 5, 5}, []int64{0, 0, 0, 0, 0, 0}, []int64{0, 4}},
		// IndexMaxBytes 8: time index max 0 entries -> always full. The empty first segment is
		// recreated in place (KAFKA-6388 path), then every batch gets its own segment.
		{"zero-entry index", cfgWith(func(c *Config) { c.IndexMaxBytes = 8 }),
			[]int64{1, 2, 3}, []int64{0, 0, 0}, []int64{0, 1, 2}},
	}
	for _, tc := range tests {
		l := New(tc.cfg, 0)
		for i := range tc.ts {
			if err := l.Append(mk(l.LEO(), 1, 1000, tc.ts[i]), tc.now[i]); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
		}
		var bases []int64
		for _, s := range l.Segments() {
			bases = append(bases, s.BaseOffset)
		}
		if !eqInts(bases, tc.wantBases) {
			t.Errorf("%s: segment bases %v, want %v", tc.name, bases, tc.wantBases)
		}
	}
}

func TestSegmentFileNamesAndInfo(t *testing.T) {
	l := New(cfgWith(func(c *Config) { c.SegmentBytes = 2200 }), 7)
	fill(t, l, 5, 1, 1000, 10, 1)
	segs := l.Segments()
	want := []string{"00000000000000000000.log", "00000000000000000002.log", "00000000000000000004.log"}
	for i, s := range segs {
		if s.File != want[i] {
			t.Errorf("segment %d file %q, want %q", i, s.File, want[i])
		}
	}
	if segs[0].Created != 7 || segs[1].Created != 12 || segs[1].NextOffset != 4 || segs[2].NextOffset != 5 {
		t.Errorf("info %+v", segs)
	}
	if segs[0].Batches != 2 || segs[0].Records != 2 || segs[0].SizeBytes != 2140 || segs[2].Active != true || segs[0].Active {
		t.Errorf("info %+v", segs[0])
	}
	if got := segmentName(12345678901234567); got != "00012345678901234567.log" {
		t.Errorf("segmentName = %q", got)
	}
}

func TestAppendErrors(t *testing.T) {
	l := New(cfgWith(func(c *Config) { c.SegmentBytes = 1000 }), 0)
	if err := l.Append(mk(1, 1, 1, 0), 0); !errors.Is(err, ErrBadAppend) {
		t.Errorf("wrong base: %v", err)
	}
	if err := l.Append(&Batch{}, 0); !errors.Is(err, ErrBadAppend) {
		t.Errorf("empty: %v", err)
	}
	if err := l.Append(mk(0, 1, 1000, 0), 0); !errors.Is(err, ErrBatchTooLarge) {
		t.Errorf("too large: %v", err)
	}
	if l.LEO() != 0 || len(l.Segments()) != 1 {
		t.Errorf("log changed by failed appends")
	}
}

func TestAtAndBatches(t *testing.T) {
	l := New(cfgWith(func(c *Config) { c.SegmentBytes = 7000 }), 0)
	bs := fill(t, l, 5, 3, 1000, 0, 1) // offsets 0-2, 3-5, ... each batch 3 records
	r, b, ok := l.At(7)
	if !ok || b != bs[2] || r.Value != bs[2].Records[1].Value {
		t.Fatalf("At(7) = %v %v %v", r, b, ok)
	}
	if _, _, ok := l.At(15); ok {
		t.Fatal("At(LEO) should be false")
	}
	if got := offsets(l.Batches(4)); !eqInts(got, []int64{3, 6, 9, 12}) {
		t.Fatalf("Batches(4) = %v", got)
	}
	if got := offsets(l.Batches(13)); !eqInts(got, []int64{12}) {
		t.Fatalf("Batches(13) = %v", got)
	}
	if got := l.Batches(15); len(got) != 0 {
		t.Fatalf("Batches(LEO) = %v", got)
	}
}
