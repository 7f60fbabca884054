package kafka

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"strings"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/log"
	"github.com/kafkasim/kafkasim/internal/recordbatch"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

// wireSample is a client's uncompressed batch of three records (offset
// deltas 0, 1, 2, as every client writes them) with producer fields.
func wireSample() []byte {
	return encode(recordbatch.Batch{BaseOffset: 0, LeaderEpoch: -1, ProducerID: 9, ProducerEpoch: 2, BaseSequence: 40,
		Timestamp: 1_700_000_000_000, MaxTimestamp: 1_700_000_000_007, Records: []log.Record{
			{Key: "k", HasKey: true, Value: strings.Repeat("v", 150)}, {Value: "w", TimestampDelta: 7,
				Headers: []log.Header{{Key: "h", Null: true}}}, {HasKey: true, Value: "x", TimestampDelta: 3}}})
}

// asStored is what the core's Fetch answer holds for wb once appended at
// base in leader epoch epoch, timestamps on the core's clock.
func asStored(k *brokerClock, wb wireBatch, base int64, epoch int32, appendTime int64) core.FetchedBatch {
	lb := log.Batch{Timestamp: k.toCore(wb.Timestamp), Packed: wb.Packed}
	fb := core.FetchedBatch{BaseOffset: base, PartitionLeaderEpoch: epoch, ProducerID: wb.ProducerID, ProducerEpoch: wb.ProducerEpoch,
		BaseSequence: wb.BaseSequence, Timestamp: lb.Timestamp, MaxTimestamp: lb.MaxTimestamp(), Packed: wb.Packed}
	if appendTime >= 0 {
		fb.LogAppendTime, fb.MaxTimestamp = true, appendTime
	}
	return fb
}

// TestServedBatchIsTheEncodersBytes: an uncompressed batch served from
// the client's bytes is byte for byte what recordbatch.Append writes for
// the stored batch: base offset and leader epoch set, and on a
// LogAppendTime topic the timestamp type and max timestamp rewritten
// with a CRC that covers them.
func TestServedBatchIsTheEncodersBytes(t *testing.T) {
	var k brokerClock
	k.offset.Store(1_699_999_000_000)
	for _, appendTime := range []int64{-1, 1_234_567} {
		wbs, err := decodeBatches(wireSample())
		if err != nil {
			t.Fatal(err)
		}
		wb := wbs[0]
		if wb.Packed.Wire() == "" {
			t.Fatal("an in-place batch kept no bytes")
		}
		fb := asStored(&k, wb, 1<<33, 6, appendTime)
		got := appendFetched([]byte("pre"), &fb, wb.Packed.Wire(), nil, k.toClient)[3:]
		ob := fetchedBatch(&fb, fb.RecordList())
		want := recordbatch.Append(nil, &ob, k.toClient)
		if !bytes.Equal(got, want) {
			t.Fatalf("append time %d: served\n% x\nencoder\n% x", appendTime, got, want)
		}
	}
}

// TestServedCompressedBatch: a compressed batch goes back compressed,
// its records section untouched, its header the stored batch's, its CRC
// valid; zstd only to a Fetch of v10 or later.
func TestServedCompressedBatch(t *testing.T) {
	var k brokerClock
	k.offset.Store(1_699_999_000_000)
	for _, codec := range []int{codecGzip, codecSnappy, codecLZ4, codecZstd} {
		in := compressBatch(t, wireSample(), codec)
		wbs, err := decodeBatches(in)
		if err != nil {
			t.Fatal(err)
		}
		wb := wbs[0]
		if wb.Packed.Wire() != string(in) {
			t.Fatalf("codec %d: kept %d bytes, not the %d the client sent", codec, len(wb.Packed.Wire()), len(in))
		}
		fb := asStored(&k, wb, 77, 3, 5_000)
		out := appendFetched(nil, &fb, wb.Packed.Wire(), nil, k.toClient)
		var rb kmsg.RecordBatch
		if err := rb.ReadFrom(out); err != nil {
			t.Fatal(err)
		}
		if crc32.Checksum(out[21:], recordbatch.CRC32C) != uint32(rb.CRC) {
			t.Errorf("codec %d: CRC does not match", codec)
		}
		if rb.FirstOffset != 77 || rb.PartitionLeaderEpoch != 3 || rb.Attributes != int16(codec)|recordbatch.AttrLogAppendTime ||
			rb.MaxTimestamp != k.toClient(5_000) || rb.FirstTimestamp != 1_700_000_000_000 || rb.LastOffsetDelta != 2 ||
			rb.ProducerID != 9 || rb.FirstSequence != 40 || !bytes.Equal(rb.Records, in[61:]) {
			t.Errorf("codec %d: served %+v", codec, rb)
		}
		for _, v := range []int16{9, 10} {
			raw, ok := servable(&fb, v)
			if want := codec != codecZstd || v >= 10; ok != want || (ok && raw != wb.Packed.Wire()) {
				t.Errorf("codec %d, Fetch v%d: servable %v, want %v", codec, v, ok, want)
			}
		}
	}
}

// TestWireNotKeptOutOfPlace: a batch whose records' offset deltas are not
// 0, 1, 2... keeps no bytes (Kafka rebuilds such a batch): a Fetch encodes
// the core's records. One with a null value keeps them: the core holds
// the null value, and its own encoding of the batch is those bytes.
func TestWireNotKeptOutOfPlace(t *testing.T) {
	body := []byte{0}                            // attributes
	for _, v := range []int64{0, 0, -1, -1, 0} { // timestamp delta, offset delta, null key, null value, no headers
		body = binary.AppendVarint(body, v)
	}
	null := append(encode(recordbatch.Batch{Timestamp: 5, ProducerID: -1, BaseSequence: -1, Records: []log.Record{{}}})[:61],
		append(binary.AppendVarint(nil, int64(len(body))), body...)...)
	binary.BigEndian.PutUint32(null[8:], uint32(len(null)-12))
	binary.BigEndian.PutUint32(null[17:], crc32.Checksum(null[21:], recordbatch.CRC32C))
	if wbs, err := decodeBatches(null); err != nil {
		t.Fatal(err)
	} else if wbs[0].Packed.Wire() != string(null) || !wbs[0].recs()[0].NullValue || !wbs[0].Packed.Record(0).NullValue {
		t.Errorf("a null value: kept %d bytes, record %+v", len(wbs[0].Packed.Wire()), wbs[0].recs()[0])
	} else if enc := encode(recordbatch.Batch{Timestamp: 5, ProducerID: -1, BaseSequence: -1, Records: wbs[0].recs()}); !bytes.Equal(enc, null) {
		t.Errorf("a null value: the core's records encode to % x, the client sent % x", enc, null)
	}

	in := wireSample()
	var rb kmsg.RecordBatch
	if err := rb.ReadFrom(in); err != nil {
		t.Fatal(err)
	}
	// The second record's offset delta (1) becomes 2: its length stays.
	recs := rb.Records
	first, w := binary.Varint(recs)
	second := recs[w+int(first):]
	_, w2 := binary.Varint(second)
	_, w3 := binary.Varint(second[w2+1:]) // timestamp delta
	second[w2+1+w3] = 4                   // zig-zag 2
	binary.BigEndian.PutUint32(in[17:], crc32.Checksum(in[21:], recordbatch.CRC32C))
	wbs, err := decodeBatches(in)
	if err != nil {
		t.Fatal(err)
	}
	if wbs[0].Packed.Wire() != "" {
		t.Error("kept the bytes of a batch whose offsets are not in place")
	}
}

// TestFranzGoReadsProducerCodec: what a producer compressed, a consumer
// reads with the same codec, as from Kafka (compression.type=producer);
// a consumer limited to Fetch v9 gets the zstd batch uncompressed. The
// log keeps every batch packed.
func TestFranzGoReadsProducerCodec(t *testing.T) {
	b := threeBrokers(t, "3.9", "kraft", core.CreateTopic{Topic: "c", Partitions: 1, RF: 3})
	_, addr := startServer(t, b, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	codecs := []kgo.CompressionCodec{kgo.NoCompression(), kgo.GzipCompression(), kgo.SnappyCompression(), kgo.Lz4Compression(), kgo.ZstdCompression()}
	for i, codec := range codecs {
		cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ProducerBatchCompression(codec), kgo.ProducerLinger(20*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		var rs []*kgo.Record
		for j := 0; j < 4; j++ {
			rs = append(rs, &kgo.Record{Topic: "c", Value: []byte(strings.Repeat(string(rune('a'+i)), 200))})
		}
		if err := cl.ProduceSync(ctx, rs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
		cl.Close()
	}
	// The log keeps each batch packed, no Record per record, and the
	// client's bytes with it.
	if err := b.Do(ctx, func(c *core.Cluster) {
		for _, bt := range c.LeaderReplica(c.Topic("c").Partitions()[0]).Log().Batches(0) {
			if bt.Packed == nil || bt.Records != nil || bt.Packed.Wire() == "" || bt.Len() != 4 {
				t.Errorf("batch at %d: packed %v, %d records unpacked", bt.BaseOffset, bt.Packed != nil, len(bt.Records))
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	fetchV9 := kversion.Stable()
	fetchV9.SetMaxKeyVersion(1, 9)
	for _, opts := range [][]kgo.Opt{nil, {kgo.MaxVersions(fetchV9)}} {
		cl, err := kgo.NewClient(append(opts, kgo.SeedBrokers(addr), kgo.ConsumeTopics("c"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))...)
		if err != nil {
			t.Fatal(err)
		}
		got := consume(t, cl, 4*len(codecs))
		cl.Close()
		for _, r := range got {
			i := int(r.Offset / 4)
			want := int8(i)
			if len(opts) > 0 && i == codecZstd {
				want = codecNone
			}
			if r.Attrs.CompressionType() != uint8(want) || string(r.Value) != strings.Repeat(string(rune('a'+i)), 200) {
				t.Errorf("v9 %v: offset %d: codec %d value %.10q, want codec %d", len(opts) > 0, r.Offset, r.Attrs.CompressionType(), r.Value, want)
			}
		}
	}
}
