package storage

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafkasim/kafkasim/core/log"
	"github.com/kafkasim/kafkasim/core/scenario"
)

// validSegment is a few batches as the writer encodes them.
func validSegment() []byte {
	var d []byte
	off := int64(0)
	for i, n := range []int{1, 3, 2} {
		b := &log.Batch{BaseOffset: off, Epoch: int32(i), ProducerID: -1, BaseSequence: -1, Timestamp: 1000 + int64(i)}
		for j := 0; j < n; j++ {
			b.Records = append(b.Records, log.Record{Key: "k", HasKey: j%2 == 0, Value: "value", TimestampDelta: int64(j),
				Headers: []log.Header{{Key: "h", Value: "x"}, {Key: "n", Null: true}}})
		}
		d = appendBatch(d, b, func(t int64) int64 { return t })
		off += int64(n)
	}
	return d
}

// FuzzReadSegment: whatever bytes a .log holds, the reader never
// panics, and what it keeps re-encodes to exactly the bytes before the
// cut: the valid prefix is read faithfully and the cut is where the
// first bad batch starts.
func FuzzReadSegment(f *testing.F) {
	good := validSegment()
	f.Add(good)
	f.Add(good[:len(good)-7])
	f.Add(append(append([]byte(nil), good...), "garbage"...))
	bad := append([]byte(nil), good...)
	bad[30] ^= 0xff
	f.Add(bad)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		bs, torn, err := readSegment(data, 0, 0, 0)
		if err != nil {
			return // foreign: refused, nothing cut
		}
		end := int64(len(data))
		if torn != nil {
			end = torn.at
			if end < 0 || end > int64(len(data)) || torn.size != int64(len(data)) {
				t.Fatalf("cut at %d of %d", end, len(data))
			}
		}
		var re []byte
		for _, b := range bs {
			one := appendBatch(nil, b, func(t int64) int64 { return t })
			if !bytes.Equal(one, appendBatchKmsg(nil, b, func(t int64) int64 { return t })) {
				t.Fatalf("the batch at %d encodes unlike kmsg", b.BaseOffset)
			}
			re = append(re, one...)
		}
		if !bytes.Equal(re, data[:end]) {
			t.Fatalf("kept %d batches re-encode to %d bytes, the valid prefix is %d", len(bs), len(re), end)
		}
		if _, err := log.Restore(log.DefaultConfig(), []log.RestoredSegment{{Base: 0, Batches: bs}}, 0, 0); err != nil {
			t.Fatalf("the core refuses what the reader kept: %v", err)
		}
	})
}

// TestGoodSegmentRoundTrip: the writer's bytes read back whole.
func TestGoodSegmentRoundTrip(t *testing.T) {
	good := validSegment()
	bs, torn, err := readSegment(good, 0, 0, 0)
	if err != nil || torn != nil || len(bs) != 3 {
		t.Fatalf("%d batches, torn %+v, %v", len(bs), torn, err)
	}
	if bs[2].Records[1].Headers[1].Null != true || bs[1].Records[0].HasKey != true || bs[1].Records[1].HasKey {
		t.Fatalf("records differ: %+v", bs[1].Records)
	}
}

// TestNullValueRoundTrip: a null value (a tombstone) is written as value
// length -1 and read back null, an empty value as length 0 and read back
// empty, so a restart from --data-dir keeps the difference a client sees.
func TestNullValueRoundTrip(t *testing.T) {
	b := &log.Batch{ProducerID: -1, BaseSequence: -1, Timestamp: 1000,
		Records: []log.Record{{Key: "k", HasKey: true, NullValue: true}, {Key: "k", HasKey: true}, {Value: "v"}}}
	bs, torn, err := readSegment(appendBatch(nil, b, func(t int64) int64 { return t }), 0, 0, 0)
	if err != nil || torn != nil || len(bs) != 1 {
		t.Fatalf("%d batches, torn %+v, %v", len(bs), torn, err)
	}
	if got := bs[0].Records; !reflect.DeepEqual(got, b.Records) {
		t.Fatalf("read back %+v, wrote %+v", got, b.Records)
	}
}

// TestForeignFiles: files kafkasim did not write are refused with a
// clear error, never cut: a compressed batch, a legacy message format,
// a data dir that is not kafkasim's, another cluster's broker directory.
func TestForeignFiles(t *testing.T) {
	good := validSegment()
	comp := append([]byte(nil), good...)
	comp[22] |= 1 // gzip attribute, CRC fixed below
	fixCRC(comp)
	if _, _, err := readSegment(comp, 0, 0, 0); err == nil || !bytes.Contains([]byte(err.Error()), []byte("compressed")) {
		t.Fatalf("compressed batch: %v", err)
	}
	legacy := append([]byte(nil), good...)
	legacy[16] = 1
	if _, _, err := readSegment(legacy, 0, 0, 0); err == nil {
		t.Fatal("a v1 message set was taken")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello"), 0o644)
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Cluster(); err == nil {
		t.Fatal("a foreign directory was taken as a data dir")
	}
	os.WriteFile(filepath.Join(dir, metadataFile), []byte("{not json"), 0o644)
	if _, err := s.Cluster(); err == nil {
		t.Fatal("a broken cluster-metadata.json was taken")
	}
	if _, err := checkpointLines(writeTemp(t, "0\n2\nt 0 5\n"), 3); err == nil {
		t.Fatal("a checkpoint whose count is wrong was taken")
	}
	if _, err := readEpochCheckpoint(writeTemp(t, "0\n1\n3 x\n")); err == nil {
		t.Fatal("a malformed epoch line was taken")
	}
}

func writeTemp(t *testing.T, s string) string {
	p := filepath.Join(t.TempDir(), "f")
	os.WriteFile(p, []byte(s), 0o644)
	return p
}

// fixCRC recomputes the first batch's CRC.
func fixCRC(d []byte) {
	n := int(uint32(d[8])<<24|uint32(d[9])<<16|uint32(d[10])<<8|uint32(d[11])) + 12
	c := crc32Of(d[21:n])
	d[17], d[18], d[19], d[20] = byte(c>>24), byte(c>>16), byte(c>>8), byte(c)
}

// FuzzRestore: a data dir whose segment, leader-epoch checkpoint and
// broker checkpoints hold anything restores or fails with an error,
// never a panic, and what restores is what the files say.
func FuzzRestore(f *testing.F) {
	good := validSegment()
	f.Add(good, []byte("0\n1\n0 0\n"), []byte("0\n1\nt 0 3\n"), []byte("0\n1\nt 0 0\n"))
	f.Add(good[:40], []byte("0\n2\n5 1\n2 0\n"), []byte("0\n1\nt 0 99\n"), []byte("0\n1\nt 0 4\n"))
	f.Add([]byte("junk"), []byte("junk"), []byte("1\n"), []byte(""))
	f.Fuzz(func(t *testing.T, seg, epochs, hw, start []byte) {
		dir := t.TempDir()
		line := "cluster brokers=1 seed=1 version=3.9 metadata=kraft"
		meta := `{"version":1,"cluster":"` + line + `","topics":[{"name":"t","assign":[[1]],"leaders":[1],"isrs":[[1]],"leaderEpochs":[0]}]}`
		os.MkdirAll(filepath.Join(dir, "broker-1", "t-0"), 0o755)
		os.WriteFile(filepath.Join(dir, metadataFile), []byte(meta), 0o644)
		os.WriteFile(filepath.Join(dir, "broker-1", "t-0", "00000000000000000000.log"), seg, 0o644)
		os.WriteFile(filepath.Join(dir, "broker-1", "t-0", "leader-epoch-checkpoint"), epochs, 0o644)
		os.WriteFile(filepath.Join(dir, "broker-1", "replication-offset-checkpoint"), hw, 0o644)
		os.WriteFile(filepath.Join(dir, "broker-1", "log-start-offset-checkpoint"), start, 0o644)
		s, err := Open(dir, Options{Now: func() time.Time { return fixedNow }})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if _, err := s.Cluster(); err != nil {
			t.Fatal(err)
		}
		sc, _ := scenario.Parse(line)
		r := scenario.NewRunner(scenario.RunOptions{NoTrace: true})
		if err := r.Step(&sc.Steps[0]); err != nil {
			t.Fatal(err)
		}
		m := &sim{t: t, c: r.Cluster(), s: s, dir: dir}
		if err := s.Restore(context.Background(), m); err != nil {
			return
		}
		if _, err := m.c.Advance(1000); err != nil {
			t.Fatal(err)
		}
	})
}

// TestAppendBatchMatchesKmsg: the hand encoder writes byte for byte what
// franz-go's kmsg encodes, for keys and values null and empty, headers
// with null values, negative and large timestamp deltas, LogAppendTime, and
// idempotent producer fields.
func TestAppendBatchMatchesKmsg(t *testing.T) {
	long := strings.Repeat("v", 300)
	cases := []*log.Batch{
		{BaseOffset: 0, Epoch: 0, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Timestamp: 5,
			Records: []log.Record{{Value: ""}, {Key: "", HasKey: true, Value: "x", TimestampDelta: -3}, {Key: "k", HasKey: true, NullValue: true}}},
		{BaseOffset: 1 << 40, Epoch: 7, ProducerID: 12345, ProducerEpoch: 3, BaseSequence: 1 << 30, Timestamp: 1 << 41, LogAppendTime: true, AppendTime: 1<<41 + 9,
			Records: []log.Record{{Key: "k", HasKey: true, Value: long, TimestampDelta: 1 << 33,
				Headers: []log.Header{{Key: "a", Value: "b"}, {Key: "", Null: true}, {Key: long, Value: ""}}}}},
	}
	for i, b := range cases {
		ts := func(t int64) int64 { return t + 1_700_000_000_000 }
		got, want := appendBatch(nil, b, ts), appendBatchKmsg(nil, b, ts)
		if !bytes.Equal(got, want) {
			t.Fatalf("case %d:\n got % x\nwant % x", i, got, want)
		}
		if len(got) != b.Size() {
			t.Fatalf("case %d: %d bytes, the core's size %d", i, len(got), b.Size())
		}
	}
}

// TestCleanedBatchRoundTrip: a batch the log cleaner rewrote keeps its
// offsets with gaps (offset deltas 0 and 2 of 0..3) and an emptied
// producer's last batch keeps its last offset delta with no records
// (LogCleaner RETAIN_EMPTY); both are written at the size the core
// counts and read back as they were. The reader refused them before
// ("kafkasim's batches have no gaps").
func TestCleanedBatchRoundTrip(t *testing.T) {
	gaps := &log.Batch{BaseOffset: 0, ProducerID: -1, BaseSequence: -1, Timestamp: 1000,
		Records:      []log.Record{{Key: "a", HasKey: true, Value: "1"}, {Key: "b", HasKey: true, NullValue: true}},
		OffsetDeltas: []int32{0, 2}, LastOffsetDelta: 3}
	empty := &log.Batch{BaseOffset: 4, ProducerID: 7, BaseSequence: 3, Timestamp: 1000,
		Records: []log.Record{}, OffsetDeltas: []int32{}, LastOffsetDelta: 1}
	id := func(t int64) int64 { return t }
	data := appendBatch(appendBatch(nil, gaps, id), empty, id)
	if len(data) != gaps.Size()+empty.Size() {
		t.Fatalf("%d bytes written, the core counts %d", len(data), gaps.Size()+empty.Size())
	}
	bs, torn, err := readSegment(data, 0, 0, 0)
	if err != nil || torn != nil || len(bs) != 2 {
		t.Fatalf("%d batches, torn %+v, %v", len(bs), torn, err)
	}
	for i, want := range []*log.Batch{gaps, empty} {
		got := bs[i]
		if got.BaseOffset != want.BaseOffset || got.LastOffset() != want.LastOffset() || !reflect.DeepEqual(got.OffsetDeltas, want.OffsetDeltas) ||
			!reflect.DeepEqual(got.Records, want.Records) {
			t.Fatalf("batch %d read back %+v, wrote %+v", i, got, want)
		}
	}
	if _, err := log.Restore(log.DefaultConfig(), []log.RestoredSegment{{Base: 0, Batches: bs}, {Base: 6}}, 0, 0); err != nil {
		t.Fatalf("the core refuses what the reader kept: %v", err)
	}
}

// TestDeleteHorizonRoundTrip: a batch the cleaner gave a delete horizon
// (KIP-534) is written with attributes bit 6 and the horizon as its base
// timestamp, its record's delta re-based on it (negative), and its max
// timestamp the record's; an emptied producer's last batch is written
// as DefaultRecordBatch.writeEmptyHeader writes it, base timestamp -1
// and the max kept. Both read back as they were, horizon included, so a
// restart does not give a tombstone a new delete.retention.ms.
func TestDeleteHorizonRoundTrip(t *testing.T) {
	horizon := &log.Batch{BaseOffset: 0, ProducerID: -1, BaseSequence: -1, Timestamp: 90_000,
		Records:      []log.Record{{Key: "b", HasKey: true, NullValue: true, TimestampDelta: 1000 - 90_000}},
		OffsetDeltas: []int32{1}, LastOffsetDelta: 1, HasDeleteHorizon: true, DeleteHorizonMs: 90_000}
	empty := &log.Batch{BaseOffset: 2, ProducerID: 7, BaseSequence: 3, Timestamp: 1500,
		Records: []log.Record{}, OffsetDeltas: []int32{}, LastOffsetDelta: 1}
	shift := int64(1_700_000_000_000)
	toDisk := func(t int64) int64 { return t + shift }
	data := appendBatch(appendBatch(nil, horizon, toDisk), empty, toDisk)
	if len(data) != horizon.Size()+empty.Size() {
		t.Fatalf("%d bytes written, the core counts %d", len(data), horizon.Size()+empty.Size())
	}
	var rb kmsg.RecordBatch
	if err := rb.ReadFrom(data[:horizon.Size()]); err != nil {
		t.Fatal(err)
	}
	if rb.Attributes&0x40 == 0 || rb.FirstTimestamp != 90_000+shift || rb.MaxTimestamp != 1000+shift {
		t.Fatalf("horizon batch header: attributes %#x, base %d, max %d; want bit 6, %d, %d", rb.Attributes, rb.FirstTimestamp, rb.MaxTimestamp, 90_000+shift, 1000+shift)
	}
	if err := rb.ReadFrom(data[horizon.Size():]); err != nil {
		t.Fatal(err)
	}
	if rb.Attributes != 0 || rb.FirstTimestamp != -1 || rb.MaxTimestamp != 1500+shift {
		t.Fatalf("empty batch header: attributes %#x, base %d, max %d; want 0, -1, %d", rb.Attributes, rb.FirstTimestamp, rb.MaxTimestamp, 1500+shift)
	}
	bs, torn, err := readSegment(data, 0, 0, shift)
	if err != nil || torn != nil || len(bs) != 2 {
		t.Fatalf("%d batches, torn %+v, %v", len(bs), torn, err)
	}
	if h := bs[0]; !h.HasDeleteHorizon || h.DeleteHorizonMs != 90_000 || h.Timestamp != 90_000 || h.RecordTimestamp(0) != 1000 || h.MaxTimestamp() != 1000 {
		t.Fatalf("horizon batch read back: horizon %v %d, base %d, record ts %d, max %d", h.HasDeleteHorizon, h.DeleteHorizonMs, h.Timestamp, h.RecordTimestamp(0), h.MaxTimestamp())
	}
	if e := bs[1]; e.Timestamp != 1500 || e.MaxTimestamp() != 1500 || e.HasDeleteHorizon {
		t.Fatalf("empty batch read back: base %d, max %d, horizon %v", e.Timestamp, e.MaxTimestamp(), e.HasDeleteHorizon)
	}
}
