package kafka

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"unsafe"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/log"
	"github.com/kafkasim/kafkasim/internal/recordbatch"
)

// wireBatch is one v2 record batch from a Produce request, decoded into
// the core's records: each record's TimestampDelta is relative to
// Timestamp, the batch's first timestamp (the client's clock). Wire is
// the whole batch as the client sent it, to serve back (wirebatch.go),
// when its records' offset deltas are 0, 1, 2... (what Kafka keeps in
// place) and no value is null (the core's record holds an empty one, and
// a consumer reads what the core holds); else "".
type wireBatch struct {
	ProducerID    int64
	ProducerEpoch int16
	BaseSequence  int32
	Timestamp     int64 // first timestamp
	Codec         int
	Records       []log.Record
	Wire          string
}

// batchHeaderBytes is the v2 batch header after the 12-byte
// FirstOffset+Length prefix: everything up to the records.
const batchHeaderBytes = recordbatch.Overhead - recordbatch.LogOverhead

// maxRecordsPerBatch bounds the record count a batch may claim.
const maxRecordsPerBatch = 1 << 20

var (
	errCorrupt = errors.New("corrupt record batch")
	errFormat  = errors.New("message format before v2")
)

// decodeBatches splits a partition's records bytes into v2 batches and
// decodes each: CRC checked (CRC-32C over everything after the CRC
// field), records decompressed and parsed. Kafka's LogValidator rejects a
// Produce whose batch is not v2 (clients of 0.11+ always send v2) or does
// not parse.
func decodeBatches(b []byte) ([]wireBatch, error) {
	var out []wireBatch
	for len(b) > 0 {
		if len(b) < 17 {
			return nil, fmt.Errorf("%w: %d trailing bytes", errCorrupt, len(b))
		}
		length := int32(binary.BigEndian.Uint32(b[8:]))
		if b[16] != 2 {
			return nil, fmt.Errorf("%w: magic %d", errFormat, b[16])
		}
		if length < batchHeaderBytes || int64(length) > int64(len(b)-12) {
			return nil, fmt.Errorf("%w: batch length %d of %d bytes", errCorrupt, length, len(b)-12)
		}
		raw := b[:12+length]
		b = b[12+length:]
		if crc32.Checksum(raw[recordbatch.CRCStart:], recordbatch.CRC32C) != binary.BigEndian.Uint32(raw[17:]) {
			return nil, fmt.Errorf("%w: CRC mismatch", errCorrupt)
		}
		wb, err := decodeBatch(raw)
		if err != nil {
			return nil, err
		}
		out = append(out, wb)
	}
	return out, nil
}

// decodeBatch parses one whole v2 batch (length and CRC already checked).
// The records section is decompressed (or, uncompressed, the whole batch
// copied out of the frame) into one string that every key, value and
// header of the batch slices: one allocation for the batch's bytes, one
// for its records, none per record (the strings live exactly as long as
// the batch does in the log). An uncompressed batch's Wire is that same
// copy; a compressed one's is a copy of its compressed bytes.
func decodeBatch(raw []byte) (wireBatch, error) {
	attrs := binary.BigEndian.Uint16(raw[21:])
	wb := wireBatch{Timestamp: int64(binary.BigEndian.Uint64(raw[27:])), ProducerID: int64(binary.BigEndian.Uint64(raw[43:])),
		ProducerEpoch: int16(binary.BigEndian.Uint16(raw[51:])), BaseSequence: int32(binary.BigEndian.Uint32(raw[53:])),
		Codec: int(attrs & 7)}
	if attrs&0x20 != 0 || attrs&0x40 != 0 {
		return wb, fmt.Errorf("%w: transactional and control batches are not simulated", errCorrupt)
	}
	n := int32(binary.BigEndian.Uint32(raw[57:]))
	if n <= 0 || n > maxRecordsPerBatch {
		return wb, fmt.Errorf("%w: %d records", errCorrupt, n)
	}
	data, err := decompress(wb.Codec, raw[61:])
	if err != nil {
		return wb, fmt.Errorf("%w: %v", errCorrupt, err)
	}
	if int64(len(data)) < int64(n)*7 { // the smallest record is 7 bytes
		return wb, fmt.Errorf("%w: %d records in %d bytes", errCorrupt, n, len(data))
	}
	var s, whole string
	pos := 0
	if wb.Codec == codecNone {
		whole = string(raw) // raw is the request's frame: copy the batch out of it
		s, pos = whole, recordbatch.Overhead
	} else {
		// decompress returned a buffer of its own that nothing else
		// holds or will write: the records keep it as it is.
		s = unsafe.String(unsafe.SliceData(data), len(data))
	}
	wb.Records = make([]log.Record, n)
	inPlace := true
	for i := range wb.Records {
		end, same, err := readRecord(s, pos, int64(i), &wb.Records[i])
		if err != nil {
			return wb, fmt.Errorf("%w: record %d: %v", errCorrupt, i, err)
		}
		inPlace = inPlace && same
		pos = end
	}
	if pos != len(s) {
		return wb, fmt.Errorf("%w: %d bytes after the last record", errCorrupt, len(s)-pos)
	}
	if inPlace {
		if whole == "" {
			whole = string(raw)
		}
		wb.Wire = whole
	}
	return wb, nil
}

var (
	errTruncated  = errors.New("truncated")
	errRecordSize = errors.New("record size does not match its fields")
	errNullHeader = errors.New("null header key")
)

// readRecord parses the record at s[pos:] (DefaultRecord.readFrom): its
// length, then attributes, timestamp delta, offset delta, key, value and
// headers, which must fill the length exactly. A negative key length is
// a null key; a negative value length reads as an empty value (the
// simulated log has no null values); a null header key is invalid, as in
// Kafka. It returns where the next record starts, and whether the bytes
// say what the core's record does: the offset delta is offsetDelta and
// the value is not null.
func readRecord(s string, pos int, offsetDelta int64, r *log.Record) (int, bool, error) {
	size, pos, ok := varint(s, pos)
	if !ok || size < 0 || size > int64(len(s)-pos) {
		return 0, false, errTruncated
	}
	end := pos + int(size)
	body := s[:end]
	pos++ // attributes: unused in v2 records
	var tsd, od, klen, vlen, nh int64
	if tsd, pos, ok = varint(body, pos); !ok {
		return 0, false, errTruncated
	}
	if od, pos, ok = varint(body, pos); !ok { // offset delta: the leader assigns offsets
		return 0, false, errTruncated
	}
	r.TimestampDelta = tsd
	if klen, pos, ok = varint(body, pos); !ok {
		return 0, false, errTruncated
	}
	if klen >= 0 {
		if r.Key, pos, ok = span(body, pos, klen); !ok {
			return 0, false, errTruncated
		}
		r.HasKey = true
	}
	if vlen, pos, ok = varint(body, pos); !ok {
		return 0, false, errTruncated
	}
	if vlen >= 0 {
		if r.Value, pos, ok = span(body, pos, vlen); !ok {
			return 0, false, errTruncated
		}
	}
	if nh, pos, ok = varint(body, pos); !ok || nh < 0 || nh > int64(len(body)-pos) {
		return 0, false, errTruncated
	}
	if nh > 0 {
		r.Headers = make([]log.Header, nh)
		for j := range r.Headers {
			h := &r.Headers[j]
			var l int64
			if l, pos, ok = varint(body, pos); !ok {
				return 0, false, errTruncated
			}
			if l < 0 {
				return 0, false, errNullHeader
			}
			if h.Key, pos, ok = span(body, pos, l); !ok {
				return 0, false, errTruncated
			}
			if l, pos, ok = varint(body, pos); !ok {
				return 0, false, errTruncated
			}
			if l < 0 {
				h.Null = true
			} else if h.Value, pos, ok = span(body, pos, l); !ok {
				return 0, false, errTruncated
			}
		}
	}
	if pos != end {
		return 0, false, errRecordSize
	}
	return end, od == offsetDelta && vlen >= 0, nil
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

// fetchedBatch is a stored batch as a Fetch encodes it (timestamps on
// the core's clock: the caller maps them with brokerClock.toClient). The
// records are the core's, shared, not copied (a stored batch never
// changes).
func fetchedBatch(b *core.FetchedBatch) recordbatch.Batch {
	return recordbatch.Batch{BaseOffset: b.BaseOffset, LeaderEpoch: b.PartitionLeaderEpoch, ProducerID: b.ProducerID,
		ProducerEpoch: b.ProducerEpoch, BaseSequence: b.BaseSequence, Timestamp: b.Timestamp,
		MaxTimestamp: b.MaxTimestamp, LogAppendTime: b.LogAppendTime, Records: b.Records}
}
