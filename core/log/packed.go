package log

import (
	"errors"
	"fmt"
	"strings"
)

// Packed is a batch's records kept the way a segment file keeps them: the
// records section of a v2 RecordBatch, uncompressed (DefaultRecord each:
// length, attributes, timestampDelta, offsetDelta, key, value, headers, in
// zig-zag varints), and where each record starts. A real client's batch
// is stored this way instead of as a []Record: a Record holds two or three
// pointers (key, value, headers) that the garbage collector follows in
// every cycle for as long as the log keeps the batch, while a Packed holds
// three pointers however many records it has. Record reads one back, the
// same Record a []Record would have held (a null value as NullValue). A
// Packed never changes after Pack returns it, so any number of batches,
// replicas and goroutines may share it.
//
// A batch the client compressed may be packed lazily (PackLazy): Kafka's
// broker appends such a batch as it came, compressed, and reads its
// records only to validate them, so the packed batch keeps only the wire
// bytes and a Lazy that inflates its records again when something reads
// them, as a page showing a record's story does. Then data and starts
// are empty; n, size, maxTsDelta, kvBytes and canonical never depend on
// them.
type Packed struct {
	data   string  // the records section; every key, value and header is a substring
	starts []int32 // starts[i] is where record i begins in data; strictly increasing
	n      int32   // the record count: len(starts) once loaded
	// size is what the records occupy in a segment with offset deltas
	// 0, 1, 2... (Batch.Size minus the header), maxTsDelta the largest
	// timestamp delta (0 at least: Batch.Timestamp itself counts).
	size       int32
	maxTsDelta int64
	kvBytes    int64 // the keys' and values' bytes, for request limits
	canonical  bool  // offset deltas 0, 1, 2...: data is what the log would write
	nullKey    bool  // some record has no key
	wire       string
	lazy       Lazy // when set, where data and starts come from instead
}

// Lazy recovers a lazily packed batch's records section from wire, the
// batch as its client encoded it (decompressed: what PackLazy checked),
// and where each of its n records starts (RecordStarts). Load is given
// the same batch's wire and n every time and must return the same,
// never-written bytes; it may be called from any goroutine reading the
// batch: the protocol layer that implements it (and decides what runs
// concurrently) memoises and guards it, so the core stays free of locks.
type Lazy interface {
	Load(wire string, n int) (data string, starts []int32)
}

// Errors Pack reports, wrapped with the record they concern.
var (
	ErrRecordTruncated = errors.New("truncated")
	ErrRecordSize      = errors.New("record size does not match its fields")
	ErrNullHeaderKey   = errors.New("null header key")
)

// maxPackedBytes bounds a records section (int32 positions);
// minRecordBytes is the smallest v2 record (seven one-byte varints and
// attributes, no key, value or header bytes).
const (
	maxPackedBytes = 1<<31 - 1
	minRecordBytes = 7
)

// Pack checks that data is exactly n v2 records (DefaultRecord.readFrom:
// each record's fields fill its length, header keys are not null) and
// returns them packed. If recs has length n, it also fills recs[i] with
// record i, its strings substrings of data: one parse for both. wire is
// the whole batch as the client encoded it (header, records compressed or
// not), which the packed batch keeps (Wire) when its records are
// canonical, for the protocol layer to serve back; the core never reads
// it.
func Pack(data, wire string, n int, recs []Record) (*Packed, error) {
	if n <= 0 || len(data) > maxPackedBytes || int64(n)*minRecordBytes > int64(len(data)) {
		return nil, fmt.Errorf("%d records in %d bytes", n, len(data))
	}
	p := &Packed{data: data, starts: make([]int32, n), n: int32(n), canonical: true}
	fill := len(recs) == n
	pos := 0
	size := 0
	var r Record
	for i := range n {
		p.starts[i] = int32(pos)
		if !fill {
			if end, tsd, kv, nk, ok := plainRecord(data, pos, i); ok {
				p.maxTsDelta = max(p.maxTsDelta, tsd)
				p.kvBytes += kv
				p.nullKey = p.nullKey || nk
				size += end - pos
				pos = end
				continue
			}
		}
		end, od, err := readRecord(data, pos, &r)
		if err != nil {
			return nil, fmt.Errorf("record %d: %w", i, err)
		}
		p.canonical = p.canonical && od == int64(i)
		p.maxTsDelta = max(p.maxTsDelta, r.TimestampDelta)
		p.kvBytes += int64(len(r.Key) + len(r.Value))
		p.nullKey = p.nullKey || !r.HasKey
		size += recordSize(&r, int32(i))
		if fill {
			recs[i] = r
		}
		r = Record{}
		pos = end
	}
	if pos != len(data) {
		return nil, fmt.Errorf("%d bytes after the last record", len(data)-pos)
	}
	if size > maxPackedBytes-batchHeaderBytes {
		return nil, fmt.Errorf("%d bytes of records", size)
	}
	p.size = int32(size)
	if p.canonical {
		p.wire = wire
	}
	return p, nil
}

// PackLazy is Pack for a compressed batch whose records section, data,
// lives in a buffer the caller reuses once PackLazy returns: it checks
// data as Pack does, and, when the records are canonical, keeps only
// wire (the batch as the client sent it, compressed) and lazy, which
// reads data back from wire when Record or Records needs it. Records
// that are not canonical (a Fetch cannot serve wire) are copied out of
// data and kept as Pack keeps them. Either way p reads back the same
// records.
func PackLazy(data, wire string, n int, lazy Lazy) (*Packed, error) {
	p, err := Pack(data, wire, n, nil)
	if err != nil {
		return nil, err
	}
	if p.canonical && lazy != nil {
		p.data, p.starts, p.lazy = "", nil, lazy
	} else {
		p.data = strings.Clone(data) // starts index the same bytes
	}
	return p, nil
}

// section is the records section and where each record starts: p's
// own, or, lazily packed, what its Lazy loads.
func (p *Packed) section() (string, []int32) {
	if p.lazy != nil {
		return p.lazy.Load(p.wire, int(p.n))
	}
	return p.data, p.starts
}

// RecordStarts is where each of data's n records begins (each record's
// length varint says where the next one starts), for records Pack
// checked already, as a Lazy returns them; an error if they do not fill
// data exactly.
func RecordStarts(data string, n int) ([]int32, error) {
	starts := make([]int32, n)
	pos := 0
	for i := range starts {
		size, next, ok := varint(data, pos)
		if !ok || size < 0 || size > int64(len(data)-next) {
			return nil, fmt.Errorf("record %d: %w", i, ErrRecordTruncated)
		}
		starts[i] = int32(pos)
		pos = next + int(size)
	}
	if pos != len(data) {
		return nil, fmt.Errorf("%d bytes after the last record", len(data)-pos)
	}
	return starts, nil
}

// Len is the number of records.
func (p *Packed) Len() int { return int(p.n) }

// RecordsOr is recs, or, when recs is nil, p's records read into a new
// slice (nil when p is nil too): how every holder of records in either
// form (Batch, and the core's produce partitions, fetched batches and
// events) reads them. When both are set they hold the same records. The
// caller must not change them.
func RecordsOr(recs []Record, p *Packed) []Record {
	if recs == nil && p != nil {
		return p.Records(make([]Record, 0, p.Len()))
	}
	return recs
}

// LenOr is len(RecordsOr(recs, p)), without reading p's records.
func LenOr(recs []Record, p *Packed) int {
	if recs == nil && p != nil {
		return p.Len()
	}
	return len(recs)
}

// Record is record i (0 <= i < Len()). Its strings share the packed
// bytes; only headers, when the record has some, are allocated.
func (p *Packed) Record(i int) Record {
	data, starts := p.section()
	return recordAt(data, starts[i])
}

// Records appends every record to dst and returns it.
func (p *Packed) Records(dst []Record) []Record {
	data, starts := p.section()
	for _, at := range starts {
		dst = append(dst, recordAt(data, at))
	}
	return dst
}

// recordAt is the record at data[at:], which Pack checked.
func recordAt(data string, at int32) Record {
	var r Record
	if _, _, err := readRecord(data, int(at), &r); err != nil {
		panic("log: a packed record no longer parses: " + err.Error())
	}
	return r
}

// Canonical reports whether the records' offset deltas are 0, 1, 2...:
// the bytes are then exactly what the log's own records encode to (Kafka
// rewrites other offset deltas). Null values keep length -1 both ways.
func (p *Packed) Canonical() bool { return p.canonical }

// Wire is the batch as the client encoded it, given to Pack, when the
// records are canonical; else "".
func (p *Packed) Wire() string { return p.wire }

// HasNullKey reports whether some record has no key (a null key length),
// known without reading the records back.
func (p *Packed) HasNullKey() bool { return p.nullKey }

// KeyValueBytes is the total length of the keys and values.
func (p *Packed) KeyValueBytes() int64 { return p.kvBytes }

// readRecord parses the record at s[pos:] into r (DefaultRecord.readFrom):
// its length, then attributes, timestamp delta, offset delta, key, value
// and headers, which must fill the length exactly. A negative key length
// is a null key, a negative value length a null value (NullValue). It
// returns where the next record starts and the offset delta as written.
func readRecord(s string, pos int, r *Record) (end int, offsetDelta int64, err error) {
	size, pos, ok := varint(s, pos)
	if !ok || size < 0 || size > int64(len(s)-pos) {
		return 0, 0, ErrRecordTruncated
	}
	end = pos + int(size)
	body := s[:end]
	pos++ // attributes: unused in v2 records
	var tsd, od, klen, vlen, nh int64
	if tsd, pos, ok = varint(body, pos); !ok {
		return 0, 0, ErrRecordTruncated
	}
	if od, pos, ok = varint(body, pos); !ok {
		return 0, 0, ErrRecordTruncated
	}
	r.TimestampDelta = tsd
	if klen, pos, ok = varint(body, pos); !ok {
		return 0, 0, ErrRecordTruncated
	}
	if klen >= 0 {
		if r.Key, pos, ok = span(body, pos, klen); !ok {
			return 0, 0, ErrRecordTruncated
		}
		r.HasKey = true
	}
	if vlen, pos, ok = varint(body, pos); !ok {
		return 0, 0, ErrRecordTruncated
	}
	if vlen >= 0 {
		if r.Value, pos, ok = span(body, pos, vlen); !ok {
			return 0, 0, ErrRecordTruncated
		}
	} else {
		r.NullValue = true
	}
	if nh, pos, ok = varint(body, pos); !ok || nh < 0 || nh > int64(len(body)-pos) {
		return 0, 0, ErrRecordTruncated
	}
	if nh > 0 {
		r.Headers = make([]Header, nh)
		for j := range r.Headers {
			h := &r.Headers[j]
			var l int64
			if l, pos, ok = varint(body, pos); !ok {
				return 0, 0, ErrRecordTruncated
			}
			if l < 0 {
				return 0, 0, ErrNullHeaderKey
			}
			if h.Key, pos, ok = span(body, pos, l); !ok {
				return 0, 0, ErrRecordTruncated
			}
			if l, pos, ok = varint(body, pos); !ok {
				return 0, 0, ErrRecordTruncated
			}
			if l < 0 {
				h.Null = true
			} else if h.Value, pos, ok = span(body, pos, l); !ok {
				return 0, 0, ErrRecordTruncated
			}
		}
	}
	if pos != end {
		return 0, 0, ErrRecordSize
	}
	return end, od, nil
}

// plainRecord is Pack's fast path for the record at s[pos:], the i-th:
// ok when it is the record a client usually sends and readRecord would
// accept (offset delta i, a key or none, a value or none, no
// headers, its fields filling its length exactly) and every varint in it
// is as short as it can be, so that what the log would write for it
// (recordSize, with offset delta i) is its bytes as they are: end - pos.
// It returns where the next record starts, the timestamp delta and the
// key and value bytes. Any other record, valid or not, is !ok, and Pack
// reads it with readRecord (which says what is wrong with a bad one).
func plainRecord(s string, pos, i int) (end int, tsd, kv int64, nullKey, ok bool) {
	size, pos, ok := shortVarint(s, pos)
	if !ok || size < 0 || size > int64(len(s)-pos) {
		return 0, 0, 0, false, false
	}
	end = pos + int(size)
	body := s[:end]
	pos++ // attributes: unused in v2 records
	var od, klen, vlen, nh int64
	if tsd, pos, ok = shortVarint(body, pos); !ok {
		return 0, 0, 0, false, false
	}
	if od, pos, ok = shortVarint(body, pos); !ok || od != int64(i) {
		return 0, 0, 0, false, false
	}
	if klen, pos, ok = shortVarint(body, pos); !ok || klen < -1 || klen > int64(end-pos) {
		return 0, 0, 0, false, false
	}
	pos += int(max(klen, 0))
	if vlen, pos, ok = shortVarint(body, pos); !ok || vlen < -1 || vlen > int64(end-pos) {
		return 0, 0, 0, false, false
	}
	pos += int(max(vlen, 0))
	if nh, pos, ok = shortVarint(body, pos); !ok || nh != 0 || pos != end {
		return 0, 0, 0, false, false
	}
	return end, tsd, max(klen, 0) + max(vlen, 0), klen < 0, true
}

// shortVarint is varint, ok only when the encoding is the shortest for
// its value (a longer one ends in a 0x00 byte), as ByteUtils.writeVarint
// and every client write it.
func shortVarint(s string, pos int) (v int64, next int, ok bool) {
	if pos+1 < len(s) { // one or two bytes: nearly every varint in a record
		if c := int64(s[pos]); c < 0x80 {
			return (c >> 1) ^ -(c & 1), pos + 1, true
		} else if d := int64(s[pos+1]); d < 0x80 {
			u := c&0x7f | d<<7
			return (u >> 1) ^ -(u & 1), pos + 2, d != 0
		}
	}
	start := pos
	if v, next, ok = varint(s, pos); ok && next-start > 1 && s[next-1] == 0 {
		ok = false
	}
	return v, next, ok
}

// varint reads a zig-zag varint at s[pos:] (ByteUtils.readVarlong), at
// most 10 bytes; ok is false past the end or on overflow.
func varint(s string, pos int) (v int64, next int, ok bool) {
	var u uint64
	for shift := uint(0); shift < 70; shift += 7 {
		if pos >= len(s) {
			return 0, pos, false
		}
		c := s[pos]
		pos++
		u |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return int64(u>>1) ^ -int64(u&1), pos, true
		}
	}
	return 0, pos, false
}

// span is s[pos:pos+n] when it fits.
func span(s string, pos int, n int64) (string, int, bool) {
	if n > int64(len(s)-pos) {
		return "", pos, false
	}
	return s[pos : pos+int(n)], pos + int(n), true
}
