package log

import (
	"strings"
	"testing"
)

func TestBatchSizeHandComputed(t *testing.T) {
	tests := []struct {
		name string
		b    *Batch
		want int
	}{
		// record: attrs 1 + tsDelta 1 + offDelta 1 + key -1 1 + valLen 1 + "m1" 2 + headers 1 = 8; length varint 1 => 9; 61+9
		{"null key m1", &Batch{Records: []Record{{Value: "m1"}}}, 70},
		// body 1+1+1 + (1+1 "k") + (1+5 "hello") + 1 = 12; +1 => 13; 61+13
		{"key k hello", &Batch{Records: []Record{{Key: "k", HasKey: true, Value: "hello"}}}, 74},
		// empty non-null key: keyLen varint(0)=1, no bytes: body 1+1+1+1+1+2+1 = 8 => 9
		{"empty key", &Batch{Records: []Record{{Key: "", HasKey: true, Value: "m1"}}}, 70},
		// value 57: body 1+1+1+1+1+57+1 = 63, varint(63)=1 => 64
		{"body 63", mk(0, 1, 57, 0), 61 + 64},
		// value 58: body 64, zig-zag(64)=128 needs 2 bytes => 66
		{"body 64", mk(0, 1, 58, 0), 61 + 66},
		// value 64: valLen zig-zag 128 = 2 bytes; body 1+1+1+1+2+64+1 = 71; varint(71) = 2 => 73
		{"value 64", mk(0, 1, 64, 0), 61 + 73},
		// 65 empty values: offsetDelta 0..63 is 1 byte, 64 is 2: records 7*64 + 8
		{"65 records", mk(0, 65, 0, 0), 61 + 7*64 + 8},
		// value 1000: valLen zig-zag 2000 = 2 bytes; body 5+2+1000 = 1007; varint(1007) = 2 => 1009
		{"value 1000", mk(0, 1, 1000, 0), 61 + 1009},
		// two records of 500: body 5+2+500 = 507, +2 => 509 each
		{"2x500", mk(0, 2, 500, 0), 61 + 2*509},
		// key of 200 bytes: keyLen zig-zag 400 = 2 bytes; body 1+1+1+(2+200)+(1+1)+1 = 208; varint(208)=2 => 210
		{"key 200", &Batch{Records: []Record{{Key: strings.Repeat("k", 200), HasKey: true, Value: "v"}}}, 61 + 210},
	}
	for _, tc := range tests {
		if got := tc.b.Size(); got != tc.want {
			t.Errorf("%s: Size() = %d, want %d", tc.name, got, tc.want)
		}
		if got := tc.b.Size(); got != tc.want { // cached path
			t.Errorf("%s: cached Size() = %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestVarintSize(t *testing.T) {
	for _, tc := range []struct {
		v    int32
		want int
	}{{0, 1}, {-1, 1}, {63, 1}, {-64, 1}, {64, 2}, {-65, 2}, {8191, 2}, {8192, 3}, {1<<31 - 1, 5}, {-1 << 31, 5}} {
		if got := varintSize(tc.v); got != tc.want {
			t.Errorf("varintSize(%d) = %d, want %d", tc.v, got, tc.want)
		}
	}
}

func TestBatchOffsets(t *testing.T) {
	b := mk(10, 3, 1, 0)
	if b.LastOffset() != 12 || b.Len() != 3 {
		t.Fatalf("LastOffset=%d Len=%d", b.LastOffset(), b.Len())
	}
}

// TestBatchTimestamps: the max timestamp is the largest record
// timestamp (first timestamp + delta, deltas may be negative) unless
// the batch is LogAppendTime, where every record reads as AppendTime;
// the segment's largest timestamp and time index follow it
// (LogSegment uses batch.maxTimestamp).
func TestBatchTimestamps(t *testing.T) {
	b := &Batch{Timestamp: 1000, Records: []Record{{Value: "a"}, {Value: "b", TimestampDelta: 700}, {Value: "c", TimestampDelta: -300}}}
	if b.MaxTimestamp() != 1700 || b.RecordTimestamp(2) != 700 {
		t.Errorf("MaxTimestamp %d RecordTimestamp(2) %d, want 1700 700", b.MaxTimestamp(), b.RecordTimestamp(2))
	}
	la := &Batch{Timestamp: 1000, LogAppendTime: true, AppendTime: 5000, Records: []Record{{Value: "a", TimestampDelta: 9000}}}
	if la.MaxTimestamp() != 5000 || la.RecordTimestamp(0) != 5000 {
		t.Errorf("LogAppendTime: MaxTimestamp %d RecordTimestamp %d, want 5000", la.MaxTimestamp(), la.RecordTimestamp(0))
	}
	// A 300-byte delta is 2 varlong bytes; header "h"="v" costs keyLen 1 +
	// 1 + valueLen 1 + 1 and the header count stays 1 byte: 61 + 1 + 13.
	h := &Batch{Records: []Record{{Value: "m1", TimestampDelta: 300, Headers: []Header{{Key: "h", Value: "v"}}}}}
	if h.Size() != 61+14 {
		t.Errorf("size with delta and header %d, want %d", h.Size(), 61+14)
	}
	if n := (&Batch{Records: []Record{{Value: "m1", Headers: []Header{{Key: "h", Null: true}}}}}).Size(); n != 61+12 {
		t.Errorf("size with a null header value %d, want %d", n, 61+12)
	}
	l := New(DefaultConfig(), 0)
	b.BaseOffset = 0
	if err := l.Append(b, 2000); err != nil {
		t.Fatal(err)
	}
	if s := l.Segments()[0]; s.LargestTimestamp != 1700 {
		t.Errorf("segment largest timestamp %d, want 1700", s.LargestTimestamp)
	}
}
