package log

import (
	"errors"
	"testing"
)

// Layout used below: 14 batches of 2 records (1079 bytes), interval 4096,
// index entries (9,4316) (17,8632) (25,12948) in 2.0+ mode.
func readLog(t *testing.T, lastOff bool) *Log {
	l := New(cfgWith(func(c *Config) { c.IndexLastOffset = lastOff }), 0)
	fill(t, l, 14, 2, 500, 0, 1)
	return l
}

func TestReadIndexLookupAndScan(t *testing.T) {
	tests := []struct {
		name        string
		lastOff     bool
		offset      int64
		found       bool
		rel, idxPos int32
		pos         int32
		scanned     int
		firstBase   int64
	}{
		{"before first entry", true, 5, false, 0, 0, 2158, 2158, 4},
		{"offset 0", true, 0, false, 0, 0, 0, 0, 0},
		{"exact entry (last offset)", true, 9, true, 9, 4316, 4316, 0, 8},
		{"first record of indexed batch", true, 8, false, 0, 0, 4316, 4316, 8},
		{"scan past entry", true, 12, true, 9, 4316, 6474, 2158, 12},
		{"last entry", true, 27, true, 25, 12948, 14027, 1079, 26},
		{"first-offset index", false, 9, true, 8, 4316, 4316, 0, 8},
		{"first-offset index scan", false, 15, true, 8, 4316, 7553, 3237, 14},
	}
	for _, tc := range tests {
		l := readLog(t, tc.lastOff)
		r, err := l.Read(tc.offset, 1, l.LEO())
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if r.Segment != "00000000000000000000.log" || r.IndexFound != tc.found || r.IndexRelOffset != tc.rel ||
			r.IndexPosition != tc.idxPos || r.Position != tc.pos || r.BytesScanned != tc.scanned ||
			r.ScanFrom != tc.idxPos || len(r.Batches) != 1 || r.Batches[0].BaseOffset != tc.firstBase {
			t.Errorf("%s: got %+v (first base %d)", tc.name, r, r.Batches[0].BaseOffset)
		}
	}
}

func TestReadLimits(t *testing.T) {
	l := readLog(t, true)
	tests := []struct {
		name      string
		offset    int64
		maxBytes  int
		maxOffset int64
		want      []int64
	}{
		{"maxBytes fits two", 0, 3000, 28, []int64{0, 2}},
		{"maxBytes exactly three", 0, 3237, 28, []int64{0, 2, 4}},
		{"first batch even if too big", 3, 100, 28, []int64{2}},
		{"zero maxBytes still one", 3, 0, 28, []int64{2}},
		{"maxOffset at boundary", 0, 1 << 20, 6, []int64{0, 2, 4}},
		{"maxOffset mid-batch excludes the batch holding it", 0, 1 << 20, 5, []int64{0, 2}},
		{"offset and maxOffset in the same batch", 4, 1 << 20, 5, nil},
		{"offset == maxOffset", 6, 1 << 20, 6, nil},
		{"offset > maxOffset (HW)", 8, 1 << 20, 6, nil},
		{"at LEO", 28, 1 << 20, 28, nil},
		{"everything", 1, 1 << 20, 28, []int64{0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26}},
	}
	for _, tc := range tests {
		r, err := l.Read(tc.offset, tc.maxBytes, tc.maxOffset)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := offsets(r.Batches); !eqInts(got, tc.want) {
			t.Errorf("%s: batches %v, want %v", tc.name, got, tc.want)
		}
		if r.Bytes != 1079*len(tc.want) {
			t.Errorf("%s: bytes %d", tc.name, r.Bytes)
		}
	}
}

func TestReadOutOfRange(t *testing.T) {
	l := readLog(t, true)
	for _, off := range []int64{29, 100, -1} {
		if _, err := l.Read(off, 100, 1000); !errors.Is(err, ErrOffsetOutOfRange) {
			t.Errorf("Read(%d): err %v", off, err)
		}
	}
	if r, err := l.Read(28, 100, 28); err != nil || len(r.Batches) != 0 || r.Segment != "" {
		t.Errorf("Read(LEO) = %+v, %v", r, err)
	}
}

func TestReadAcrossSegments(t *testing.T) {
	// 1070-byte batches, 3 per segment (size > 4000-1070 rolls at 3210).
	l := New(cfgWith(func(c *Config) { c.SegmentBytes = 4000; c.IndexIntervalBytes = 1000 }), 0)
	fill(t, l, 8, 1, 1000, 0, 1)
	r, err := l.Read(0, 1<<20, l.LEO())
	if err != nil || !eqInts(offsets(r.Batches), []int64{0, 1, 2}) {
		t.Fatalf("read stays in one segment: %v %v", offsets(r.Batches), err)
	}
	// Offset 4 is in segment 3; interval 1000: batch 4 (pos 1070) has bytesSince 1070 > 1000 -> entry (4,1070).
	r, _ = l.Read(4, 1<<20, l.LEO())
	if r.Segment != "00000000000000000003.log" || r.SegmentBase != 3 || !r.IndexFound || r.IndexRelOffset != 1 ||
		r.IndexPosition != 1070 || r.Position != 1070 || !eqInts(offsets(r.Batches), []int64{4, 5}) {
		t.Fatalf("read at 4: %+v", r)
	}
	r, _ = l.Read(6, 1<<20, l.LEO())
	if r.Segment != "00000000000000000006.log" || r.IndexFound || r.ScanFrom != 0 || !eqInts(offsets(r.Batches), []int64{6, 7}) {
		t.Fatalf("read at 6: %+v", r)
	}
}

func TestReadAfterMidBatchTruncationGap(t *testing.T) {
	l := New(DefaultConfig(), 0)
	fill(t, l, 3, 2, 10, 0, 1) // [0,1] [2,3] [4,5]
	removed := l.TruncateTo(3)
	if !eqInts(offsets(removed), []int64{2, 4}) || l.LEO() != 3 {
		t.Fatalf("removed %v LEO %d", offsets(removed), l.LEO())
	}
	if _, _, ok := l.At(2); ok {
		t.Fatal("offset 2 should be gone with its batch")
	}
	if r, err := l.Read(2, 100, 3); err != nil || len(r.Batches) != 0 {
		t.Fatalf("read in gap: %+v %v", r, err)
	}
	fill(t, l, 1, 1, 10, 5, 1)
	r, err := l.Read(2, 1000, l.LEO())
	if err != nil || !eqInts(offsets(r.Batches), []int64{3}) {
		t.Fatalf("read from gap: %v %v", offsets(r.Batches), err)
	}
}
