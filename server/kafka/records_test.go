package kafka

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/log"
	"github.com/kafkasim/kafkasim/internal/recordbatch"
	"github.com/kafkasim/kafkasim/internal/recordbatch/kmsgref"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestBatchRoundTrip(t *testing.T) {
	in := recordbatch.Batch{BaseOffset: 42, LeaderEpoch: 3, ProducerID: 7, ProducerEpoch: 1, BaseSequence: 10, Timestamp: 1000,
		Records: []log.Record{{Key: "k", HasKey: true, Value: "v1"},
			{Value: "v2", TimestampDelta: 5, Headers: []log.Header{{Key: "h", Value: "x"}}}}}
	b := encode(in)
	got, err := decodeBatches(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(got[0].recs()) != 2 {
		t.Fatalf("got %+v", got)
	}
	g := got[0]
	if g.ProducerID != 7 || g.BaseSequence != 10 || g.Timestamp != 1000 || g.recs()[0].Key != "k" || !g.recs()[0].HasKey || g.recs()[1].HasKey ||
		g.recs()[1].Value != "v2" || g.recs()[1].TimestampDelta != 5 || g.recs()[1].Headers[0].Key != "h" {
		t.Fatalf("got %+v", g)
	}
	b[30] ^= 1 // flip a bit after the CRC
	if _, err := decodeBatches(b); err == nil {
		t.Fatal("corrupted batch decoded")
	}
}

// encode is recordbatch.Append of b into a new slice, timestamps as
// they are.
func encode(b recordbatch.Batch) []byte { return recordbatch.Append(nil, &b, nil) }

// compressBatch rewrites a batch's records section with codec, as a
// producer does.
func compressBatch(t testing.TB, b []byte, codec int) []byte {
	var rb kmsg.RecordBatch
	if err := rb.ReadFrom(b); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	switch codec {
	case codecGzip:
		w := gzip.NewWriter(&buf)
		w.Write(rb.Records)
		w.Close()
	case codecSnappy:
		buf.Write(s2.EncodeSnappy(nil, rb.Records))
	case codecLZ4:
		w := lz4.NewWriter(&buf)
		w.Write(rb.Records)
		w.Close()
	case codecZstd:
		e, _ := zstd.NewWriter(nil)
		buf.Write(e.EncodeAll(rb.Records, nil))
	}
	rb.Records = buf.Bytes()
	rb.Attributes = int16(codec)
	rb.Length = int32(batchHeaderBytes + len(rb.Records))
	out := rb.AppendTo(nil)
	binary.BigEndian.PutUint32(out[17:], crc32.Checksum(out[21:], recordbatch.CRC32C))
	return out
}

func TestDecompressCodecs(t *testing.T) {
	plain := encode(recordbatch.Batch{Timestamp: 5, ProducerID: -1, BaseSequence: -1,
		Records: []log.Record{{Value: strings.Repeat("abc", 100)}, {Value: "z", TimestampDelta: 1}}})
	for _, codec := range []int{codecGzip, codecSnappy, codecLZ4, codecZstd} {
		got, err := decodeBatches(compressBatch(t, plain, codec))
		if err != nil {
			t.Fatalf("codec %d: %v", codec, err)
		}
		if len(got[0].recs()) != 2 || len(got[0].recs()[0].Value) != 300 || got[0].recs()[1].Value != "z" {
			t.Fatalf("codec %d: %+v", codec, got)
		}
	}
	// xerial framing, as the Java client's SnappyOutputStream writes.
	var rb kmsg.RecordBatch
	rb.ReadFrom(plain)
	block := s2.EncodeSnappy(nil, rb.Records)
	x := append(append([]byte{}, xerialMagic...), 0, 0, 0, 1, 0, 0, 0, 1)
	x = binary.BigEndian.AppendUint32(x, uint32(len(block)))
	x = append(x, block...)
	got, err := decompress(codecSnappy, x)
	if err != nil || !bytes.Equal(got, rb.Records) {
		t.Fatalf("xerial: %v", err)
	}
}

// TestCompressedBatchesKeepTheirRecords: a compressed batch is inflated
// into a buffer reused for the next batch and kept compressed (packed
// lazily), yet each batch decoded reads back its own records, before and
// after others reused the buffer, for every codec; the wire kept is the
// batch as sent.
func TestCompressedBatchesKeepTheirRecords(t *testing.T) {
	for _, codec := range []int{codecGzip, codecSnappy, codecLZ4, codecZstd} {
		var batches []wireBatch
		var wires [][]byte
		for i := range 4 {
			plain := encode(recordbatch.Batch{Timestamp: 5, ProducerID: -1, BaseSequence: -1,
				Records: []log.Record{{Key: strings.Repeat(string(rune('a'+i)), 50+i), HasKey: true, Value: strings.Repeat("v", 400*(4-i))},
					{Value: string(rune('p' + i)), TimestampDelta: int64(i)}}})
			w := compressBatch(t, plain, codec)
			got, err := decodeBatches(w)
			if err != nil {
				t.Fatalf("codec %d batch %d: %v", codec, i, err)
			}
			batches, wires = append(batches, got[0]), append(wires, w)
		}
		for i, b := range batches {
			recs := b.recs()
			if len(recs) != 2 || recs[0].Key != strings.Repeat(string(rune('a'+i)), 50+i) || len(recs[0].Value) != 400*(4-i) ||
				recs[1].Value != string(rune('p'+i)) || recs[1].TimestampDelta != int64(i) {
				t.Errorf("codec %d batch %d read back %+v", codec, i, recs)
			}
			if b.Packed.Wire() != string(wires[i]) {
				t.Errorf("codec %d batch %d: wire is not the batch as sent", codec, i)
			}
		}
	}
}

// TestLazyBatchesReadConcurrently: a compressed batch is inflated again
// when first read, and a Fetch, the storage writer and the room may read
// the same stored batch at once; run with -race, they must all see the
// same records without a data race.
func TestLazyBatchesReadConcurrently(t *testing.T) {
	plain := encode(recordbatch.Batch{Timestamp: 5, ProducerID: -1, BaseSequence: -1,
		Records: []log.Record{{Key: "k", HasKey: true, Value: strings.Repeat("v", 300)}, {Value: "w"}}})
	got, err := decodeBatches(compressBatch(t, plain, codecSnappy))
	if err != nil {
		t.Fatal(err)
	}
	p := got[0].Packed
	var wg sync.WaitGroup
	values := make([]string, 8)
	for i := range values {
		wg.Add(1)
		go func() {
			defer wg.Done()
			values[i] = p.Record(i%2).Value + p.Records(nil)[1].Value
		}()
	}
	wg.Wait()
	for i, v := range values {
		if want := map[int]string{0: strings.Repeat("v", 300) + "w", 1: "ww"}[i%2]; v != want {
			t.Errorf("reader %d read %q", i, v)
		}
	}
}

func TestDecodeRejects(t *testing.T) {
	plain := encode(recordbatch.Batch{Timestamp: 5, Records: []log.Record{{Value: "v"}}})
	old := append([]byte{}, plain...)
	old[16] = 1
	cases := map[string][]byte{
		"short":     plain[:10],
		"truncated": plain[:len(plain)-1],
		"magic1":    old,
		"trailing":  append(append([]byte{}, plain...), 1, 2, 3),
	}
	for name, b := range cases {
		if _, err := decodeBatches(b); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}

func FuzzDecodeBatches(f *testing.F) {
	f.Add(encode(recordbatch.Batch{Timestamp: 5, Records: []log.Record{{Value: "v"}}}))
	f.Fuzz(func(t *testing.T, b []byte) { decodeBatches(b) })
}

// TestStoredBatchSize: the core's Batch.Size (what segments, indexes and
// retention count) is the length of the v2 batch a Fetch sends for it,
// headers, null header values and timestamp deltas included, and the
// round trip through the core's records keeps every field.
func TestStoredBatchSize(t *testing.T) {
	recs := []log.Record{
		{Key: "k", HasKey: true, Value: "v"},
		{Value: strings.Repeat("x", 300), TimestampDelta: 90_000, Headers: []log.Header{{Key: "a", Value: "1"}, {Key: "n", Null: true}}},
		{HasKey: true, TimestampDelta: -1000, Headers: []log.Header{{Key: "long", Value: strings.Repeat("h", 200)}}},
	}
	var k brokerClock
	k.offset.Store(1_699_000_000_000)
	bt := &log.Batch{BaseOffset: 5, Timestamp: k.toCore(1_700_000_000_000), Records: recs}
	fb := core.FetchedBatch{BaseOffset: 5, Timestamp: bt.Timestamp, MaxTimestamp: bt.MaxTimestamp(), Records: bt.Records}
	ob := fetchedBatch(&fb, fb.RecordList())
	enc := recordbatch.Append(nil, &ob, k.toClient)
	if bt.Size() != len(enc) {
		t.Errorf("Batch.Size %d, encoded batch %d bytes", bt.Size(), len(enc))
	}
	if want := k.toCore(1_700_000_090_000); bt.MaxTimestamp() != want {
		t.Errorf("MaxTimestamp %d, want %d", bt.MaxTimestamp(), want)
	}
	got, err := decodeBatches(enc)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Timestamp != 1_700_000_000_000 || !reflect.DeepEqual(got[0].recs(), recs) {
		t.Errorf("round trip: %d %+v, want %+v", got[0].Timestamp, got[0].recs(), recs)
	}
	// What the log keeps of the decoded batch: packed, the same size,
	// max timestamp and records.
	pb := &log.Batch{BaseOffset: 5, Timestamp: bt.Timestamp, Packed: got[0].Packed}
	if pb.Size() != bt.Size() || pb.MaxTimestamp() != bt.MaxTimestamp() || !reflect.DeepEqual(pb.RecordList(), recs) {
		t.Errorf("packed: size %d, max timestamp %d, records %+v; want %d, %d, %+v", pb.Size(), pb.MaxTimestamp(), pb.RecordList(), bt.Size(), bt.MaxTimestamp(), recs)
	}
}

// TestBatchCodecMatchesKmsg: the hand-written encoder writes exactly the
// bytes kmsg's does, and the decoder reads kmsg's bytes back to the same
// records, for records of every shape (null and empty keys, null and
// empty values, long values whose lengths take several varint bytes,
// negative and large timestamp deltas, null header values).
func TestBatchCodecMatchesKmsg(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	str := func(n int) string { return strings.Repeat(string(rune('a'+rng.IntN(26))), n) }
	for trial := 0; trial < 200; trial++ {
		ob := recordbatch.Batch{BaseOffset: rng.Int64N(1 << 40), LeaderEpoch: rng.Int32N(100), ProducerID: rng.Int64N(1000) - 1,
			ProducerEpoch: int16(rng.IntN(5)), BaseSequence: rng.Int32N(1 << 30), Timestamp: 1_700_000_000_000 + rng.Int64N(1<<30),
			LogAppendTime: trial%7 == 0}
		ob.MaxTimestamp = ob.Timestamp + rng.Int64N(1000)
		for i := 0; i < 1+rng.IntN(40); i++ {
			r := log.Record{Value: str(rng.IntN(300)), TimestampDelta: rng.Int64N(1<<40) - 1<<39}
			if rng.IntN(5) == 0 {
				r.Value, r.NullValue = "", true // a tombstone
			}
			if rng.IntN(3) > 0 {
				r.Key, r.HasKey = str(rng.IntN(20)), true
			}
			for j := 0; j < rng.IntN(3); j++ {
				h := log.Header{Key: str(1 + rng.IntN(10))}
				if rng.IntN(4) == 0 {
					h.Null = true
				} else {
					h.Value = str(rng.IntN(200))
				}
				r.Headers = append(r.Headers, h)
			}
			ob.Records = append(ob.Records, r)
		}
		want := kmsgref.Append(nil, &ob, nil)
		got := recordbatch.Append([]byte("prefix"), &ob, nil)
		if !bytes.Equal(got[6:], want) {
			t.Fatalf("trial %d: recordbatch.Append differs from kmsg's encoding", trial)
		}
		dec, err := decodeBatches(want)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if len(dec) != 1 || !reflect.DeepEqual(dec[0].recs(), ob.Records) || dec[0].ProducerID != ob.ProducerID ||
			dec[0].ProducerEpoch != ob.ProducerEpoch || dec[0].BaseSequence != ob.BaseSequence || dec[0].Timestamp != ob.Timestamp {
			t.Fatalf("trial %d: decoded %+v, want %+v", trial, dec, ob)
		}
	}
}

// TestDecodeRecordRejects: what DefaultRecord.readFrom refuses is
// CORRUPT_MESSAGE here too: a record whose fields do not fill its length
// exactly, a null header key, a count of records the bytes cannot hold.
func TestDecodeRecordRejects(t *testing.T) {
	base := recordbatch.Batch{Timestamp: 5, ProducerID: -1, BaseSequence: -1, Records: []log.Record{{Value: "v"}}}
	rewrite := func(recs []byte, n int32) []byte {
		b := encode(base)
		b = append(b[:61], recs...)
		binary.BigEndian.PutUint32(b[8:], uint32(len(b)-12))
		binary.BigEndian.PutUint32(b[57:], uint32(n))
		binary.BigEndian.PutUint32(b[17:], crc32.Checksum(b[21:], recordbatch.CRC32C))
		return b
	}
	good := encode(base)[61:]
	if _, err := decodeBatches(rewrite(good, 1)); err != nil {
		t.Fatalf("the unchanged record: %v", err)
	}
	long := append([]byte{}, good...)
	long[0] += 2 // the length claims one byte more than the fields use
	long = append(long, 0)
	var body []byte
	for _, v := range []int64{0, 0, -1, 0, 1, -1, 0} { // ts delta, offset delta, null key, empty value, 1 header: null key, empty value
		body = binary.AppendVarint(body, v)
	}
	body = append([]byte{0}, body...) // attributes
	nullKey := append(binary.AppendVarint(nil, int64(len(body))), body...)
	cases := map[string][]byte{
		"record longer than its fields": rewrite(long, 1),
		"null header key":               rewrite(nullKey, 1),
		"more records than bytes":       rewrite(good, 1000),
		"negative record count":         rewrite(good, -1),
	}
	for name, b := range cases {
		if _, err := decodeBatches(b); !errors.Is(err, errCorrupt) {
			t.Errorf("%s: %v, want a corrupt batch", name, err)
		}
	}
}

// recs is the batch's records, read out of the packed batch.
func (wb wireBatch) recs() []log.Record { return wb.Packed.Records(nil) }
