package recordbatch

import (
	"encoding/binary"
	"hash/crc32"
	"math"
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core/log"
)

// TestVarintLen: VarintLen is the length binary.AppendVarint writes, at
// every length boundary.
func TestVarintLen(t *testing.T) {
	for _, v := range []int64{0, -1, 1, 63, -64, 64, -65, 8191, 8192, 1 << 20, -(1 << 40), math.MaxInt64, math.MinInt64} {
		if got, want := VarintLen(v), len(binary.AppendVarint(nil, v)); got != want {
			t.Errorf("VarintLen(%d) = %d, want %d", v, got, want)
		}
	}
}

// TestAppendSizeAndTimestamps: Append writes exactly log.Batch.Size
// bytes, maps both header timestamps with ts, and its length and CRC
// fields describe what it wrote.
func TestAppendSizeAndTimestamps(t *testing.T) {
	lb := &log.Batch{Timestamp: 100, Records: []log.Record{{Value: "a"},
		{Key: "k", HasKey: true, Value: strings.Repeat("v", 200), TimestampDelta: 7, Headers: []log.Header{{Key: "h", Null: true}}}}}
	b := Batch{BaseOffset: 9, Timestamp: lb.Timestamp, MaxTimestamp: lb.MaxTimestamp(), Records: lb.Records}
	out := Append([]byte("xyz"), &b, func(ts int64) int64 { return ts + 1000 })[3:]
	if len(out) != lb.Size() {
		t.Fatalf("%d bytes, Size %d", len(out), lb.Size())
	}
	if first, maxTs := binary.BigEndian.Uint64(out[27:]), binary.BigEndian.Uint64(out[35:]); first != 1100 || maxTs != 1107 {
		t.Errorf("timestamps %d %d, want 1100 1107", first, maxTs)
	}
	if l := binary.BigEndian.Uint32(out[8:]); int(l) != len(out)-LogOverhead {
		t.Errorf("batchLength %d of %d bytes", l, len(out))
	}
	if crc := binary.BigEndian.Uint32(out[17:]); crc != crc32.Checksum(out[CRCStart:], CRC32C) {
		t.Error("CRC does not match")
	}
}
