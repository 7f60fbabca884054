package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/kafkasim/kafkasim/core/log"
	"github.com/kafkasim/kafkasim/internal/recordbatch"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ErrForeign marks a file kafkasim cannot take back although it may be
// valid Kafka data (compressed or transactional batches, the legacy
// message formats, records encoded unlike Kafka's writer): loading
// stops with it rather than cutting data that may be good.
var ErrForeign = errors.New("not a log kafkasim wrote")

// maxBatchRecords bounds the records one batch may claim.
const maxBatchRecords = 1 << 20

// tornTail is where a segment's valid data ends and why.
type tornTail struct {
	at     int64  // validBytes: the file is cut here
	size   int64  // the file's size
	reason string // what was wrong at at
	offset int64  // the base offset the bad batch claimed, -1 when unreadable
}

// readSegment reads a .log file's batches as LogSegment.recover does
// (FileLogInputStream.nextBatch, then RecordBatch.ensureValid and the
// offset range check): it stops at the first batch that is partial or
// corrupt and reports it as the torn tail (nil when the file is whole).
// Timestamps are moved to the core's clock: stored Unix ms minus shift.
// next is the offset the first
// batch may start at (the previous segment's end, or base). An error
// means the file is foreign (ErrForeign), never that it is torn.
func readSegment(data []byte, base, next, shift int64) ([]*log.Batch, *tornTail, error) {
	var out []*log.Batch
	pos := int64(0)
	end := int64(len(data))
	next = max(next, base)
	for pos < end {
		b, n, bad, off := decodeOne(data[pos:], base, next, shift)
		switch {
		case bad != nil && bad.foreign:
			return nil, nil, fmt.Errorf("%w: byte %d (the batch at offset %d): %s", ErrForeign, pos, off, bad.msg)
		case bad != nil:
			return out, &tornTail{at: pos, size: end, reason: bad.msg, offset: off}, nil
		}
		out = append(out, b)
		pos += int64(n)
		next = b.LastOffset() + 1
	}
	return out, nil, nil
}

// badBatch says why decodeOne stopped.
type badBatch struct {
	msg     string
	foreign bool
}

func (b *badBatch) Error() string { return b.msg }

func corrupt(f string, a ...any) *badBatch { return &badBatch{msg: fmt.Sprintf(f, a...)} }

func foreign(f string, a ...any) *badBatch {
	return &badBatch{msg: fmt.Sprintf(f, a...), foreign: true}
}

// decodeOne decodes the batch at the start of d: the batch, its size, or
// why it cannot be taken and the base offset it claims (-1 if unknown).
func decodeOne(d []byte, base, next, shift int64) (*log.Batch, int, *badBatch, int64) {
	if len(d) < headerUpToMagic {
		return nil, 0, corrupt("%d bytes, less than a batch header (a write cut short)", len(d)), -1
	}
	off := int64(binary.BigEndian.Uint64(d))
	length := int64(int32(binary.BigEndian.Uint32(d[8:])))
	if length < 14 { // LegacyRecord.RECORD_OVERHEAD_V0
		return nil, 0, corrupt("record size %d smaller than the minimum record overhead (14)", length), off
	}
	if logOverhead+length > int64(len(d)) {
		return nil, 0, corrupt("a batch of %d bytes with only %d left in the file (a write cut short)", logOverhead+length, len(d)), off
	}
	raw := d[:logOverhead+length]
	switch magic := raw[16]; {
	case magic == 0 || magic == 1:
		return nil, 0, foreign("message format v%d (kafkasim reads v2, Kafka 0.11 and later)", magic), off
	case magic != 2:
		return nil, 0, corrupt("magic byte %d", magic), off
	}
	if len(raw) < batchOverhead {
		return nil, 0, corrupt("record batch size %d is smaller than the minimum allowed overhead %d", len(raw), batchOverhead), off
	}
	stored := binary.BigEndian.Uint32(raw[17:])
	if got := crc32.Checksum(raw[21:], crc32c); got != stored {
		return nil, 0, corrupt("record is corrupt (stored crc = %d, computed crc = %d)", stored, got), off
	}
	var rb kmsg.RecordBatch
	if err := rb.ReadFrom(raw); err != nil {
		return nil, 0, foreign("%v", err), off
	}
	if rb.Attributes&7 != 0 {
		return nil, 0, foreign("compressed batch (codec %d): kafkasim writes records uncompressed", rb.Attributes&7), off
	}
	if rb.Attributes&(recordbatch.AttrTransactional|recordbatch.AttrControl) != 0 {
		return nil, 0, foreign("transactional or control batch, not simulated"), off
	}
	// A batch the log cleaner rewrote keeps its last offset delta with
	// fewer records (gaps), none at all for a producer's last batch
	// (LogCleaner@3.9 RETAIN_EMPTY).
	if rb.NumRecords < 0 || rb.NumRecords > maxBatchRecords || rb.LastOffsetDelta < 0 || int64(rb.LastOffsetDelta) < int64(rb.NumRecords)-1 {
		return nil, 0, foreign("%d records with last offset delta %d", rb.NumRecords, rb.LastOffsetDelta), off
	}
	cleaned := int64(rb.LastOffsetDelta) != int64(rb.NumRecords)-1
	// LogSegment.ensureOffsetInRange, and offsets after the previous batch.
	last := off + int64(rb.LastOffsetDelta)
	if off < next || last-base > 1<<31-1 || last < off {
		return nil, 0, corrupt("batch at offsets %d-%d out of order (the log is at %d, segment base %d)", off, last, next, base), off
	}
	b := &log.Batch{BaseOffset: off, Epoch: rb.PartitionLeaderEpoch, ProducerID: rb.ProducerID, ProducerEpoch: rb.ProducerEpoch,
		BaseSequence: rb.FirstSequence, Timestamp: unshift(rb.FirstTimestamp, shift), Records: make([]log.Record, 0, rb.NumRecords)}
	if cleaned {
		b.OffsetDeltas, b.LastOffsetDelta = make([]int32, 0, rb.NumRecords), rb.LastOffsetDelta
	}
	prev := int32(-1)
	if rb.Attributes&attrLogAppend != 0 {
		b.LogAppendTime, b.AppendTime = true, unshift(rb.MaxTimestamp, shift)
	}
	switch {
	case rb.Attributes&attrDeleteHorizon != 0 && rb.NumRecords == 0:
		return nil, 0, foreign("a delete horizon on a batch with no records"), off
	case rb.Attributes&attrDeleteHorizon != 0:
		// KIP-534: the base timestamp is the horizon the cleaner set.
		b.HasDeleteHorizon, b.DeleteHorizonMs = true, b.Timestamp
	case rb.NumRecords == 0 && rb.FirstTimestamp == recordbatch.NoTimestamp:
		// DefaultRecordBatch.writeEmptyHeader: only the max is kept.
		b.Timestamp = unshift(rb.MaxTimestamp, shift)
	}
	recs := rb.Records
	for i := int32(0); i < rb.NumRecords; i++ {
		n, w := binary.Varint(recs)
		if w <= 0 || n < 0 || int64(len(recs)-w) < n {
			return nil, 0, foreign("record %d does not parse", i), off
		}
		var kr kmsg.Record
		if err := kr.ReadFrom(recs[:w+int(n)]); err != nil || !cleaned && kr.OffsetDelta != i ||
			kr.OffsetDelta <= prev || kr.OffsetDelta > rb.LastOffsetDelta {
			return nil, 0, foreign("record %d does not parse or is out of order", i), off
		}
		prev = kr.OffsetDelta
		if cleaned {
			b.OffsetDeltas = append(b.OffsetDeltas, kr.OffsetDelta)
		}
		recs = recs[w+int(n):]
		// kmsg reads value length -1 as a nil Value, 0 as an empty one.
		r := log.Record{Key: string(kr.Key), HasKey: kr.Key != nil, Value: string(kr.Value), NullValue: kr.Value == nil,
			TimestampDelta: kr.TimestampDelta64}
		for _, h := range kr.Headers {
			r.Headers = append(r.Headers, log.Header{Key: h.Key, Value: string(h.Value), Null: h.Value == nil})
		}
		b.Records = append(b.Records, r)
	}
	if len(recs) != 0 {
		return nil, 0, foreign("%d bytes after the last record", len(recs)), off
	}
	if b.Size() != len(raw) {
		return nil, 0, foreign("%d bytes where Kafka's encoding of its records takes %d", len(raw), b.Size()), off
	}
	return b, len(raw), nil, off
}

// unshift moves a stored timestamp to the core's clock (NO_TIMESTAMP stays).
func unshift(ts, shift int64) int64 {
	if ts == -1 {
		return ts
	}
	return ts - shift
}
