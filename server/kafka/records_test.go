package kafka

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"hash/crc32"
	"testing"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/log"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestBatchRoundTrip(t *testing.T) {
	in := outBatch{BaseOffset: 42, LeaderEpoch: 3, ProducerID: 7, ProducerEpoch: 1, BaseSequence: 10, Timestamp: 1000,
		Records: []wireRecord{{Key: []byte("k"), Value: []byte("v1"), Timestamp: 1000},
			{Value: []byte("v2"), Timestamp: 1005, Headers: []kmsg.Header{{Key: "h", Value: []byte("x")}}}}}
	b := appendBatch(nil, in)
	got, err := decodeBatches(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(got[0].Records) != 2 {
		t.Fatalf("got %+v", got)
	}
	g := got[0]
	if g.ProducerID != 7 || g.BaseSequence != 10 || string(g.Records[0].Key) != "k" || g.Records[1].Key != nil ||
		string(g.Records[1].Value) != "v2" || g.Records[1].Timestamp != 1005 || g.Records[1].Headers[0].Key != "h" {
		t.Fatalf("got %+v", g)
	}
	b[30] ^= 1 // flip a bit after the CRC
	if _, err := decodeBatches(b); err == nil {
		t.Fatal("corrupted batch decoded")
	}
}

// compressBatch rewrites a batch's records section with codec, as a
// producer does.
func compressBatch(t *testing.T, b []byte, codec int) []byte {
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
	binary.BigEndian.PutUint32(out[17:], crc32.Checksum(out[21:], crc32c))
	return out
}

func TestDecompressCodecs(t *testing.T) {
	plain := appendBatch(nil, outBatch{Timestamp: 5, ProducerID: -1, BaseSequence: -1,
		Records: []wireRecord{{Value: bytes.Repeat([]byte("abc"), 100), Timestamp: 5}, {Value: []byte("z"), Timestamp: 6}}})
	for _, codec := range []int{codecGzip, codecSnappy, codecLZ4, codecZstd} {
		got, err := decodeBatches(compressBatch(t, plain, codec))
		if err != nil {
			t.Fatalf("codec %d: %v", codec, err)
		}
		if len(got[0].Records) != 2 || len(got[0].Records[0].Value) != 300 || string(got[0].Records[1].Value) != "z" {
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

func TestDecodeRejects(t *testing.T) {
	plain := appendBatch(nil, outBatch{Timestamp: 5, Records: []wireRecord{{Value: []byte("v")}}})
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
	f.Add(appendBatch(nil, outBatch{Timestamp: 5, Records: []wireRecord{{Value: []byte("v")}}}))
	f.Fuzz(func(t *testing.T, b []byte) { decodeBatches(b) })
}

// TestStoredBatchSize: the core's Batch.Size (what segments, indexes and
// retention count) is the length of the v2 batch a Fetch sends for it,
// headers, null header values and timestamp deltas included, and the
// round trip through the core's records keeps every field.
func TestStoredBatchSize(t *testing.T) {
	wb := wireBatch{Timestamp: 1_700_000_000_000, Records: []wireRecord{
		{Key: []byte("k"), Value: []byte("v"), Timestamp: 1_700_000_000_000},
		{Value: bytes.Repeat([]byte("x"), 300), Timestamp: 1_700_000_090_000, Headers: []kmsg.Header{{Key: "a", Value: []byte("1")}, {Key: "n"}}},
		{Key: []byte{}, Value: []byte{}, Timestamp: 1_699_999_999_000, Headers: []kmsg.Header{{Key: "long", Value: bytes.Repeat([]byte("h"), 200)}}},
	}}
	var k brokerClock
	k.offset.Store(1_699_000_000_000)
	bt := &log.Batch{BaseOffset: 5, Timestamp: k.toCore(wb.Timestamp), Records: coreRecords(wb)}
	fb := core.FetchedBatch{BaseOffset: 5, Timestamp: bt.Timestamp, MaxTimestamp: bt.MaxTimestamp(), Records: bt.Records}
	enc := appendBatch(nil, fetchedBatch(&k, fb))
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
	for i, r := range got[0].Records {
		w := wb.Records[i]
		if string(r.Key) != string(w.Key) || (r.Key == nil) != (w.Key == nil) || string(r.Value) != string(w.Value) || r.Timestamp != w.Timestamp || len(r.Headers) != len(w.Headers) {
			t.Errorf("record %d: %+v, want %+v", i, r, w)
			continue
		}
		for j, h := range r.Headers {
			if h.Key != w.Headers[j].Key || string(h.Value) != string(w.Headers[j].Value) || (h.Value == nil) != (w.Headers[j].Value == nil) {
				t.Errorf("record %d header %d: %+v, want %+v", i, j, h, w.Headers[j])
			}
		}
	}
}
