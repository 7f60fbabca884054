package kafka

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"sync"
	"unsafe"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/log"
	"github.com/kafkasim/kafkasim/internal/recordbatch"
)

// wireBatch is one v2 record batch from a Produce request, its records
// checked and packed as the core's log keeps them (log.Packed: each
// record's TimestampDelta is relative to Timestamp, the batch's first
// timestamp on the client's clock), with, as the Packed's Wire, the
// whole batch as the client sent it to serve back (wirebatch.go) when its
// records' offset deltas are 0, 1, 2... (what Kafka keeps in place);
// else Wire() is "". A null value is kept null (log.Record.NullValue).
type wireBatch struct {
	ProducerID    int64
	ProducerEpoch int16
	BaseSequence  int32
	Timestamp     int64 // first timestamp
	Codec         int
	Packed        *log.Packed
}

// batchHeaderBytes is the v2 batch header after the 12-byte
// FirstOffset+Length prefix: everything up to the records.
const batchHeaderBytes = recordbatch.Overhead - recordbatch.LogOverhead

// maxRecordsPerBatch bounds the record count a batch may claim.
const maxRecordsPerBatch = 1 << 20

var (
	errCorrupt = errors.New("corrupt record batch")
	errFormat  = errors.New("message format before v2")
	errInvalid = errors.New("invalid record batch") // INVALID_RECORD, where errCorrupt is CORRUPT_MESSAGE
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
// The batch's bytes are copied out of the frame as the packed batch's
// Wire. Uncompressed, its records are that same copy, checked and packed
// by log.Pack: one allocation for the batch's bytes, one for where each
// record starts, none per record, and no Record made (the core reads one
// only when something asks: a page watching, a query). Compressed, the
// records are inflated into a buffer reused from batch to batch, checked,
// and packed lazily (log.PackLazy): what the log keeps is the compressed
// batch, as Kafka's broker appends it, and the records are inflated again
// only if something reads them.
func decodeBatch(raw []byte) (wireBatch, error) {
	attrs := binary.BigEndian.Uint16(raw[21:])
	wb := wireBatch{Timestamp: int64(binary.BigEndian.Uint64(raw[27:])), ProducerID: int64(binary.BigEndian.Uint64(raw[43:])),
		ProducerEpoch: int16(binary.BigEndian.Uint16(raw[51:])), BaseSequence: int32(binary.BigEndian.Uint32(raw[53:])),
		Codec: int(attrs & 7)}
	switch {
	case attrs&recordbatch.AttrControl != 0:
		return wb, fmt.Errorf("%w: clients are not allowed to write control records", errInvalid) // LogValidator.validateBatch
	case attrs&recordbatch.AttrTransactional != 0:
		return wb, fmt.Errorf("%w: transactional batches are not simulated", errInvalid)
	case attrs&recordbatch.AttrDeleteHorizon != 0:
		return wb, fmt.Errorf("%w: a delete horizon is the log cleaner's to set", errInvalid)
	}
	n := int32(binary.BigEndian.Uint32(raw[57:]))
	if n <= 0 || n > maxRecordsPerBatch {
		return wb, fmt.Errorf("%w: %d records", errCorrupt, n)
	}
	if wb.Codec == codecNone {
		return packPlain(wb, raw, n)
	}
	scratch := inflateBuffers.Get().(*[]byte)
	defer putInflateBuffer(scratch)
	data, err := decompressInto(wb.Codec, *scratch, raw[recordbatch.Overhead:])
	if err != nil {
		return wb, fmt.Errorf("%w: %v", errCorrupt, err)
	}
	*scratch = data
	if int64(len(data)) < int64(n)*7 { // the smallest record is 7 bytes
		return wb, fmt.Errorf("%w: %d records in %d bytes", errCorrupt, n, len(data))
	}
	s := unsafe.String(unsafe.SliceData(data), len(data)) // read only until PackLazy returns
	if wb.Packed, err = log.PackLazy(s, string(raw), int(n), &lazyRecords{codec: wb.Codec}); err != nil {
		return wb, fmt.Errorf("%w: %v", errCorrupt, err)
	}
	return wb, nil
}

// packPlain packs an uncompressed batch: its records are the batch's own
// bytes after the header.
func packPlain(wb wireBatch, raw []byte, n int32) (wireBatch, error) {
	if int64(len(raw)-recordbatch.Overhead) < int64(n)*7 {
		return wb, fmt.Errorf("%w: %d records in %d bytes", errCorrupt, n, len(raw)-recordbatch.Overhead)
	}
	whole := string(raw) // raw is the request's frame: copy the batch out of it
	var err error
	if wb.Packed, err = log.Pack(whole[recordbatch.Overhead:], whole, int(n), nil); err != nil {
		return wb, fmt.Errorf("%w: %v", errCorrupt, err)
	}
	return wb, nil
}

// inflateBuffers holds the buffers decodeBatch inflates batches into
// (*[]byte); putInflateBuffer keeps none over maxPooledInflate, so one
// huge batch does not pin its buffer.
var inflateBuffers = sync.Pool{New: func() any { return new([]byte) }}

const maxPooledInflate = 1 << 20

func putInflateBuffer(b *[]byte) {
	if cap(*b) <= maxPooledInflate {
		inflateBuffers.Put(b)
	}
}

// lazyRecords is a lazily packed batch's log.Lazy: its records section
// inflated again from the batch's wire bytes on the first read, into a
// buffer of its own that it keeps. Fetches, the storage writer and the
// room read stored batches from their own goroutines, so once guards the
// inflation (the core imports no sync).
type lazyRecords struct {
	codec  int
	once   sync.Once
	data   string
	starts []int32
}

// Load is log.Lazy.Load. The batch was inflated and checked when it was
// produced, so failing now is a broken invariant, not bad input.
func (l *lazyRecords) Load(wire string, n int) (string, []int32) {
	l.once.Do(func() {
		src := wire[recordbatch.Overhead:]
		data, err := decompress(l.codec, unsafe.Slice(unsafe.StringData(src), len(src))) // only read
		if err != nil {
			panic("kafka: a stored batch no longer inflates: " + err.Error())
		}
		l.data = unsafe.String(unsafe.SliceData(data), len(data)) // never written again
		if l.starts, err = log.RecordStarts(l.data, n); err != nil {
			panic("kafka: a stored batch no longer parses: " + err.Error())
		}
	})
	return l.data, l.starts
}

// fetchedBatch is a stored batch as a Fetch encodes it (timestamps on
// the core's clock: the caller maps them with brokerClock.toClient). The
// records are the core's, shared, not copied (a stored batch never
// changes).
func fetchedBatch(b *core.FetchedBatch, recs []log.Record) recordbatch.Batch {
	return recordbatch.Batch{BaseOffset: b.BaseOffset, LeaderEpoch: b.PartitionLeaderEpoch, ProducerID: b.ProducerID,
		ProducerEpoch: b.ProducerEpoch, BaseSequence: b.BaseSequence, Timestamp: b.Timestamp,
		MaxTimestamp: b.MaxTimestamp, LogAppendTime: b.LogAppendTime, Records: recs,
		OffsetDeltas: b.OffsetDeltas, LastOffsetDelta: b.LastOffsetDelta, DeleteHorizon: b.DeleteHorizon}
}
