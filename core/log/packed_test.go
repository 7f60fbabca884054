package log_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/kafkasim/kafkasim/core/log"
	"github.com/kafkasim/kafkasim/internal/recordbatch"
)

// packedSample is records of every shape: null and empty keys, headers
// with null values, negative and large timestamp deltas, a value long
// enough for two-byte varints.
func packedSample() []log.Record {
	return []log.Record{
		{Key: "k", HasKey: true, Value: "v"},
		{Value: strings.Repeat("x", 300), TimestampDelta: 90_000, Headers: []log.Header{{Key: "a", Value: "1"}, {Key: "n", Null: true}}},
		{HasKey: true, TimestampDelta: -1000},
		{Key: strings.Repeat("k", 70), HasKey: true, Value: "w", TimestampDelta: 7, Headers: []log.Header{{Key: "", Value: ""}}},
		{Key: "gone", HasKey: true, NullValue: true}, // a tombstone
		{NullValue: true, Headers: []log.Header{{Key: "h", Value: "x"}}},
	}
}

// recordsSection is recs as a v2 batch's records section.
func recordsSection(recs []log.Record) string {
	enc := recordbatch.Append(nil, &recordbatch.Batch{Records: recs}, func(t int64) int64 { return t })
	return string(enc[recordbatch.Overhead:])
}

// TestPackedIsTheRecords: a packed batch is the same batch as the one
// holding the records: the same size, max timestamp, record timestamps,
// records and offsets in the log, and Pack fills recs with them in the
// same pass.
func TestPackedIsTheRecords(t *testing.T) {
	recs := packedSample()
	data := recordsSection(recs)
	filled := make([]log.Record, len(recs))
	p, err := log.Pack(data, "wire", len(recs), filled)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(filled, recs) {
		t.Errorf("filled %+v, want %+v", filled, recs)
	}
	if !p.Canonical() || p.Wire() != "wire" || p.Len() != len(recs) {
		t.Errorf("canonical %v, wire %q, len %d", p.Canonical(), p.Wire(), p.Len())
	}
	plain := &log.Batch{BaseOffset: 0, ProducerID: -1, BaseSequence: -1, Timestamp: 1000, Records: recs}
	packed := &log.Batch{BaseOffset: 0, ProducerID: -1, BaseSequence: -1, Timestamp: 1000, Packed: p}
	if packed.Size() != plain.Size() || packed.Size() != recordbatch.Overhead+len(data) {
		t.Errorf("size %d, plain %d, encoded %d", packed.Size(), plain.Size(), recordbatch.Overhead+len(data))
	}
	if packed.MaxTimestamp() != plain.MaxTimestamp() || packed.LastOffset() != plain.LastOffset() || packed.Len() != plain.Len() {
		t.Errorf("max timestamp %d/%d, last offset %d/%d", packed.MaxTimestamp(), plain.MaxTimestamp(), packed.LastOffset(), plain.LastOffset())
	}
	for i := range recs {
		if !reflect.DeepEqual(packed.Record(i), recs[i]) || packed.RecordTimestamp(i) != plain.RecordTimestamp(i) {
			t.Errorf("record %d: %+v at %d, want %+v at %d", i, packed.Record(i), packed.RecordTimestamp(i), recs[i], plain.RecordTimestamp(i))
		}
	}
	if got := packed.RecordList(); !reflect.DeepEqual(got, recs) {
		t.Errorf("RecordList %+v", got)
	}
	l := log.New(log.DefaultConfig(), 0)
	if err := l.Append(packed, 5); err != nil {
		t.Fatal(err)
	}
	if r, b, ok := l.At(1); !ok || b != packed || !reflect.DeepEqual(r, recs[1]) {
		t.Errorf("At(1) = %+v %v", r, ok)
	}
	if segs := l.Segments(); segs[0].Records != len(recs) || segs[0].SizeBytes != int64(plain.Size()) {
		t.Errorf("segment %+v", segs[0])
	}
	if err := l.Append(&log.Batch{BaseOffset: l.LEO(), Records: recs, Packed: p}, 6); !errors.Is(err, log.ErrBadAppend) {
		t.Errorf("a batch with both Records and Packed: %v", err)
	}
}

// TestPackNotCanonical: offset deltas other than 0, 1, 2... still pack,
// but keep no wire bytes (Kafka rewrites them); a null value keeps them:
// it is read as a null value and the log writes length -1 for it too.
func TestPackNotCanonical(t *testing.T) {
	rec := func(offsetDelta, valueLen int64) string {
		body := []byte{0}
		for _, v := range []int64{0, offsetDelta, -1, valueLen} { // timestamp delta, offset delta, null key, value length
			body = binary.AppendVarint(body, v)
		}
		if valueLen > 0 {
			body = append(body, strings.Repeat("v", int(valueLen))...)
		}
		body = binary.AppendVarint(body, 0) // no headers
		return string(append(binary.AppendVarint(nil, int64(len(body))), body...))
	}
	for name, data := range map[string]string{"offset deltas 0, 2": rec(0, 1) + rec(2, 1), "a null value": rec(0, 1) + rec(1, -1),
		"an empty value": rec(0, 1) + rec(1, 0)} {
		p, err := log.Pack(data, "wire", 2, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		canonical := name != "offset deltas 0, 2"
		if p.Canonical() != canonical || (p.Wire() == "wire") != canonical {
			t.Errorf("%s: canonical %v, wire %q", name, p.Canonical(), p.Wire())
		}
		if r := p.Record(1); r.Value != "" && name != "offset deltas 0, 2" || r.NullValue != (name == "a null value") {
			t.Errorf("%s reads %+v", name, r)
		}
		recs := []log.Record{p.Record(0), p.Record(1)}
		want := (&log.Batch{Records: recs}).Size()
		if got := (&log.Batch{Packed: p}).Size(); got != want {
			t.Errorf("%s: size %d, want %d (offset deltas 0, 1)", name, got, want)
		}
		if canonical && recordsSection(recs) != data {
			t.Errorf("%s: the log writes %q for %q", name, recordsSection(recs), data)
		}
	}
}

// TestNullValueSize: a null value takes one byte in the log, value length
// -1 (DefaultRecord.sizeOfBodyInBytes: NULL_VARINT_SIZE_BYTES), as an
// empty one does with length 0, and the log encodes it as -1.
func TestNullValueSize(t *testing.T) {
	null := &log.Batch{Records: []log.Record{{NullValue: true}}}
	empty := &log.Batch{Records: []log.Record{{}}}
	if null.Size() != 61+7 || empty.Size() != 61+7 {
		t.Errorf("sizes: null %d, empty %d, want %d", null.Size(), empty.Size(), 61+7)
	}
	// length 6, attributes, timestamp delta 0, offset delta 0, key -1, value -1, no headers
	if got := recordsSection(null.Records); got != "\x0c\x00\x00\x00\x01\x01\x00" {
		t.Errorf("null value encodes as %q", got)
	}
	if got := recordsSection(empty.Records); got != "\x0c\x00\x00\x00\x01\x00\x00" {
		t.Errorf("empty value encodes as %q", got)
	}
}

// TestPackRejects: what DefaultRecord.readFrom rejects, Pack rejects.
func TestPackRejects(t *testing.T) {
	good := recordsSection(packedSample())
	nullHeaderKey := recordsSection([]log.Record{{Value: "v", Headers: []log.Header{{Key: "h"}}}})
	// The header key's length (zig-zag 1 = 0x02) becomes -1 (0x01).
	nullHeaderKey = strings.Replace(nullHeaderKey, "\x02h", "\x01h", 1)
	for _, tc := range []struct {
		name string
		data string
		n    int
		want error
	}{
		{"no records", good, 0, nil},
		{"more records than bytes", good[:6], 1, nil},
		{"one record short", good, len(packedSample()) + 1, log.ErrRecordTruncated},
		{"bytes after the last record", good + "\x00\x00\x00\x00\x00\x00\x00\x00", len(packedSample()), nil},
		{"truncated", good[:len(good)-1], len(packedSample()), log.ErrRecordTruncated},
		{"null header key", nullHeaderKey, 1, log.ErrNullHeaderKey},
		{"length longer than the fields", "\x10\x00\x00\x00\x01\x02v\x00\x00", 1, log.ErrRecordSize},
	} {
		_, err := log.Pack(tc.data, "", tc.n, nil)
		if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}

func FuzzPack(f *testing.F) {
	f.Add(recordsSection(packedSample()), 4)
	f.Fuzz(func(t *testing.T, data string, n int) {
		if n > 1<<16 {
			return
		}
		p, err := log.Pack(data, "", n, nil)
		// Packing without recs (the fast path for plain records) and
		// with them (every record read in full) must agree.
		var slow *log.Packed
		var serr error
		if n > 0 {
			slow, serr = log.Pack(data, "", n, make([]log.Record, n))
		}
		if (err == nil) != (serr == nil && n > 0) {
			t.Fatalf("without records: %v; with: %v", err, serr)
		}
		if err != nil {
			return
		}
		samePacked(t, p, slow)
		// What packed must read back, and encode to the size it claims.
		recs := p.Records(nil)
		if len(recs) != n {
			t.Fatalf("%d records, want %d", len(recs), n)
		}
		if got, want := (&log.Batch{Packed: p}).Size(), (&log.Batch{Records: recs}).Size(); got != want {
			t.Fatalf("size %d, records' %d", got, want)
		}
	})
}

// samePacked fails t unless a and b are the same batch: records, size,
// max timestamp, key and value bytes, canonical.
func samePacked(t *testing.T, a, b *log.Packed) {
	t.Helper()
	ba, bb := &log.Batch{Timestamp: 1, Packed: a}, &log.Batch{Timestamp: 1, Packed: b}
	if ba.Size() != bb.Size() || ba.MaxTimestamp() != bb.MaxTimestamp() || a.KeyValueBytes() != b.KeyValueBytes() || a.Canonical() != b.Canonical() {
		t.Fatalf("size %d/%d, max timestamp %d/%d, key and value bytes %d/%d, canonical %v/%v",
			ba.Size(), bb.Size(), ba.MaxTimestamp(), bb.MaxTimestamp(), a.KeyValueBytes(), b.KeyValueBytes(), a.Canonical(), b.Canonical())
	}
	if !reflect.DeepEqual(a.Records(nil), b.Records(nil)) {
		t.Fatalf("records %+v / %+v", a.Records(nil), b.Records(nil))
	}
}

// TestPackShortcut: Pack takes a shortcut for the plain records clients
// send (no headers, not null, offset deltas 0, 1, 2..., every varint as
// short as it can be: the record's bytes are then what the log would
// write); any other record is read in full. Both give the same batch, and
// a record whose varints are longer than they need be is sized as the
// log writes it (DefaultRecord.sizeInBytes), not by its bytes.
func TestPackShortcut(t *testing.T) {
	// rec is a record with a 0x80-padded (longer) value length when pad.
	rec := func(offsetDelta int64, key string, value string, pad bool) string {
		body := []byte{0}
		body = binary.AppendVarint(body, 5) // timestamp delta
		body = binary.AppendVarint(body, offsetDelta)
		if key == "\x00null" {
			body = binary.AppendVarint(body, -1)
		} else {
			body = append(binary.AppendVarint(body, int64(len(key))), key...)
		}
		if value == "\x00null" {
			body = binary.AppendVarint(body, -1)
			value = ""
		} else if pad {
			l := binary.AppendVarint(nil, int64(len(value)))
			l[len(l)-1] |= 0x80
			body = append(append(body, l...), 0)
		} else {
			body = binary.AppendVarint(body, int64(len(value)))
		}
		body = append(body, value...)
		body = binary.AppendVarint(body, 0) // no headers
		return string(append(binary.AppendVarint(nil, int64(len(body))), body...))
	}
	long := strings.Repeat("v", 200) // two-byte lengths
	for name, tc := range map[string]struct {
		data string
		n    int
	}{
		"plain":              {rec(0, "k", "v", false) + rec(1, "", long, false), 2},
		"null key":           {rec(0, "\x00null", long, false), 1},
		"null value":         {rec(0, "k", "\x00null", false) + rec(1, "", "v", false), 2},
		"headers and more":   {recordsSection(packedSample()), len(packedSample())},
		"a longer varint":    {rec(0, "k", "v", false) + rec(1, "k", long, true), 2},
		"a two-byte zero":    {rec(0, "k", "v", false) + rec(1, "k", "v", true), 2},
		"offset deltas 0, 2": {rec(0, "k", "v", false) + rec(2, "k", "v", false), 2},
	} {
		fast, err := log.Pack(tc.data, "", tc.n, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		slow, err := log.Pack(tc.data, "", tc.n, make([]log.Record, tc.n))
		if err != nil {
			t.Fatalf("%s (records filled): %v", name, err)
		}
		samePacked(t, fast, slow)
		want := (&log.Batch{Records: fast.Records(nil)}).Size()
		if got := (&log.Batch{Packed: fast}).Size(); got != want {
			t.Errorf("%s: size %d, the log writes %d", name, got, want)
		}
		if (name == "a longer varint" || name == "a two-byte zero") && want != recordbatch.Overhead+len(tc.data)-1 {
			t.Errorf("%s: the log writes %d bytes for %d record bytes", name, want, len(tc.data))
		}
	}
}

// BenchmarkPack checks and packs batches of 500 records (8-byte keys,
// 100-byte values), as the protocol layer does for each produced batch.
func BenchmarkPack(b *testing.B) {
	recs := make([]log.Record, 500)
	for i := range recs {
		recs[i] = log.Record{Key: fmt.Sprintf("key-%04d", i), HasKey: true, Value: strings.Repeat("x", 100)}
	}
	data := recordsSection(recs)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := log.Pack(data, "", len(recs), nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*float64(len(recs))/b.Elapsed().Seconds(), "records/s")
}

// TestPackLazy: a lazily packed batch does not keep the buffer it was
// checked in (the caller reuses it; the test, like the protocol layer,
// passes the buffer's bytes as a string without a copy): it inflates its records from the
// wire once, on the first read, and reads back what Pack would; sizes,
// counts and timestamps are known before. Records that are not canonical
// are copied out of the buffer instead, since no wire can serve them.
func TestPackLazy(t *testing.T) {
	recs := packedSample()
	data := recordsSection(recs)
	buf := []byte(data)
	inflate := &countingLazy{data: data}
	p, err := log.PackLazy(unsafe.String(&buf[0], len(buf)), "wire", len(recs), inflate)
	if err != nil {
		t.Fatal(err)
	}
	for i := range buf {
		buf[i] = 0 // the caller reuses its buffer
	}
	plain := &log.Batch{Timestamp: 1000, Records: recs}
	packed := &log.Batch{Timestamp: 1000, Packed: p}
	if p.Len() != len(recs) || packed.Size() != plain.Size() || packed.MaxTimestamp() != plain.MaxTimestamp() || inflate.loads != 0 {
		t.Fatalf("len %d, size %d/%d, max timestamp %d/%d, loaded %d times before a read",
			p.Len(), packed.Size(), plain.Size(), packed.MaxTimestamp(), plain.MaxTimestamp(), inflate.loads)
	}
	if got := p.Records(nil); !reflect.DeepEqual(got, recs) {
		t.Errorf("read back %+v, want %+v", got, recs)
	}
	if r := p.Record(1); r.Value != recs[1].Value || inflate.loads != 2 {
		t.Errorf("record 1 %+v, loaded %d times (once per read)", r, inflate.loads)
	}

	// Offset deltas 0, 2: kept as Pack keeps them, from a copy.
	odd := []byte(recordsSection(recs[:1]) + strings.Replace(recordsSection(recs[:1]), "\x00\x00\x02k", "\x00\x04\x02k", 1))
	q, err := log.PackLazy(unsafe.String(&odd[0], len(odd)), "wire", 2, inflate)
	if err != nil {
		t.Fatal(err)
	}
	for i := range odd {
		odd[i] = 0
	}
	if q.Canonical() || q.Wire() != "" || q.Record(1).Key != "k" || inflate.loads != 2 {
		t.Errorf("not canonical: canonical %v, wire %q, record 1 %+v, loaded %d", q.Canonical(), q.Wire(), q.Record(1), inflate.loads)
	}
}

// countingLazy is a log.Lazy that counts its loads and finds the record
// starts as the protocol layer's does.
type countingLazy struct {
	data  string
	loads int
}

func (l *countingLazy) Load(wire string, n int) (string, []int32) {
	l.loads++
	if wire != "wire" {
		panic("not the batch's wire: " + wire)
	}
	starts, err := log.RecordStarts(l.data, n)
	if err != nil {
		panic(err)
	}
	return l.data, starts
}

// TestPackedKnowsNullKeys: Pack notes whether a record has no key, on the
// fast path (plain records) and the full parse (headers, fill) alike, so
// a compacted topic's produce check needs no record read back.
func TestPackedKnowsNullKeys(t *testing.T) {
	keyed := []log.Record{{Key: "a", HasKey: true, Value: "1"}, {Key: "", HasKey: true, Value: "2"}}
	cases := map[string]struct {
		recs []log.Record
		want bool
	}{
		"keyed":               {keyed, false},
		"plain, one null key": {append(append([]log.Record{}, keyed...), log.Record{Value: "3"}), true},
		"headers, null key":   {[]log.Record{{Key: "a", HasKey: true}, {Value: "v", Headers: []log.Header{{Key: "h"}}}}, true},
		"headers, keyed":      {[]log.Record{{Key: "a", HasKey: true, Headers: []log.Header{{Key: "h"}}}}, false},
	}
	for name, c := range cases {
		data := recordsSection(c.recs)
		for _, fill := range []bool{false, true} {
			var recs []log.Record
			if fill {
				recs = make([]log.Record, len(c.recs))
			}
			p, err := log.Pack(data, "", len(c.recs), recs)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if p.HasNullKey() != c.want {
				t.Errorf("%s (fill %v): HasNullKey %v, want %v", name, fill, p.HasNullKey(), c.want)
			}
		}
	}
}
