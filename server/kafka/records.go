package kafka

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/log"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// wireRecord is one record as a client sent it or will read it.
type wireRecord struct {
	Key       []byte // nil: no key
	Value     []byte
	Timestamp int64
	Headers   []kmsg.Header
}

// wireBatch is one v2 record batch from a Produce request, decoded.
type wireBatch struct {
	ProducerID    int64
	ProducerEpoch int16
	BaseSequence  int32
	Timestamp     int64 // first timestamp
	Codec         int
	Records       []wireRecord
}

var crc32c = crc32.MakeTable(crc32.Castagnoli)

// batchHeaderBytes is the v2 batch header after the 12-byte
// FirstOffset+Length prefix: everything up to the records.
const batchHeaderBytes = 49

// maxRecordsPerBatch bounds the record count a batch may claim.
const maxRecordsPerBatch = 1 << 20

// errCorrupt marks input Kafka answers with CORRUPT_MESSAGE; errFormat
// one it answers with UNSUPPORTED_FOR_MESSAGE_FORMAT (message format v0/v1).
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
		var rb kmsg.RecordBatch
		if err := rb.ReadFrom(raw); err != nil {
			return nil, fmt.Errorf("%w: %v", errCorrupt, err)
		}
		if crc32.Checksum(raw[21:], crc32c) != uint32(rb.CRC) {
			return nil, fmt.Errorf("%w: CRC mismatch", errCorrupt)
		}
		wb, err := decodeBatch(&rb)
		if err != nil {
			return nil, err
		}
		out = append(out, wb)
	}
	return out, nil
}

func decodeBatch(rb *kmsg.RecordBatch) (wireBatch, error) {
	wb := wireBatch{ProducerID: rb.ProducerID, ProducerEpoch: rb.ProducerEpoch, BaseSequence: rb.FirstSequence,
		Timestamp: rb.FirstTimestamp, Codec: int(rb.Attributes & 7)}
	if rb.Attributes&0x20 != 0 || rb.Attributes&0x40 != 0 {
		return wb, fmt.Errorf("%w: transactional and control batches are not simulated", errCorrupt)
	}
	if rb.NumRecords <= 0 || rb.NumRecords > maxRecordsPerBatch {
		return wb, fmt.Errorf("%w: %d records", errCorrupt, rb.NumRecords)
	}
	data, err := decompress(wb.Codec, rb.Records)
	if err != nil {
		return wb, fmt.Errorf("%w: %v", errCorrupt, err)
	}
	wb.Records = make([]wireRecord, 0, rb.NumRecords)
	for i := int32(0); i < rb.NumRecords; i++ {
		n, w := binary.Varint(data)
		if w <= 0 || n < 0 || int64(len(data)-w) < n {
			return wb, fmt.Errorf("%w: record %d truncated", errCorrupt, i)
		}
		var r kmsg.Record
		if err := r.ReadFrom(data[:w+int(n)]); err != nil {
			return wb, fmt.Errorf("%w: record %d: %v", errCorrupt, i, err)
		}
		data = data[w+int(n):]
		wb.Records = append(wb.Records, wireRecord{Key: r.Key, Value: r.Value, Timestamp: rb.FirstTimestamp + r.TimestampDelta64, Headers: r.Headers})
	}
	if len(data) != 0 {
		return wb, fmt.Errorf("%w: %d bytes after the last record", errCorrupt, len(data))
	}
	return wb, nil
}

// outBatch is what a Fetch returns for one stored batch. Timestamps are
// the client's (Unix ms): Timestamp the first, MaxTimestamp the header's
// max, each record's its own; LogAppendTime sets the timestampType bit.
type outBatch struct {
	BaseOffset    int64
	LeaderEpoch   int32
	ProducerID    int64
	ProducerEpoch int16
	BaseSequence  int32
	Timestamp     int64
	MaxTimestamp  int64
	LogAppendTime bool
	Records       []wireRecord
}

// attrLogAppendTime is the batch attributes' timestampType bit.
const attrLogAppendTime = 0x08

// appendBatch encodes a stored batch as a v2 record batch, uncompressed
// (the simulated log keeps records uncompressed; clients accept any
// codec), with its CRC.
func appendBatch(dst []byte, ob outBatch) []byte {
	var recs []byte
	for i, r := range ob.Records {
		kr := kmsg.Record{TimestampDelta64: r.Timestamp - ob.Timestamp, OffsetDelta: int32(i), Key: r.Key, Value: r.Value, Headers: r.Headers}
		body := kr.AppendTo(nil)
		// AppendTo wrote Length 0 as the first varint; replace it.
		_, w := binary.Varint(body)
		body = body[w:]
		recs = binary.AppendVarint(recs, int64(len(body)))
		recs = append(recs, body...)
	}
	rb := kmsg.RecordBatch{FirstOffset: ob.BaseOffset, PartitionLeaderEpoch: ob.LeaderEpoch, Magic: 2,
		LastOffsetDelta: int32(len(ob.Records) - 1), FirstTimestamp: ob.Timestamp, MaxTimestamp: ob.MaxTimestamp,
		ProducerID: ob.ProducerID, ProducerEpoch: ob.ProducerEpoch, FirstSequence: ob.BaseSequence,
		NumRecords: int32(len(ob.Records)), Records: recs}
	if ob.LogAppendTime {
		rb.Attributes |= attrLogAppendTime
	}
	rb.Length = int32(batchHeaderBytes + len(recs))
	start := len(dst)
	dst = rb.AppendTo(dst)
	binary.BigEndian.PutUint32(dst[start+17:], crc32.Checksum(dst[start+21:], crc32c))
	return dst
}

// coreRecords turns a produced batch's records into the core's, keeping
// each record's timestamp delta and its headers (a nil header value is
// a null one).
func coreRecords(wb wireBatch) []log.Record {
	recs := make([]log.Record, len(wb.Records))
	for i, wr := range wb.Records {
		recs[i] = log.Record{Key: string(wr.Key), HasKey: wr.Key != nil, Value: string(wr.Value), TimestampDelta: wr.Timestamp - wb.Timestamp}
		if len(wr.Headers) > 0 {
			hs := make([]log.Header, len(wr.Headers))
			for j, h := range wr.Headers {
				hs[j] = log.Header{Key: h.Key, Value: string(h.Value), Null: h.Value == nil}
			}
			recs[i].Headers = hs
		}
	}
	return recs
}

// fetchedBatch is a stored batch as a Fetch returns it, timestamps on
// the client's clock.
func fetchedBatch(k *brokerClock, b core.FetchedBatch) outBatch {
	ob := outBatch{BaseOffset: b.BaseOffset, LeaderEpoch: b.PartitionLeaderEpoch, ProducerID: b.ProducerID,
		ProducerEpoch: b.ProducerEpoch, BaseSequence: b.BaseSequence, Timestamp: k.toClient(b.Timestamp),
		MaxTimestamp: k.toClient(b.MaxTimestamp), LogAppendTime: b.LogAppendTime, Records: make([]wireRecord, len(b.Records))}
	for i, rec := range b.Records {
		wr := wireRecord{Value: []byte(rec.Value), Timestamp: ob.Timestamp + rec.TimestampDelta}
		if rec.HasKey {
			wr.Key = []byte(rec.Key)
		}
		if len(rec.Headers) > 0 {
			wr.Headers = make([]kmsg.Header, len(rec.Headers))
			for j, h := range rec.Headers {
				wr.Headers[j] = kmsg.Header{Key: h.Key}
				if !h.Null {
					wr.Headers[j].Value = []byte(h.Value)
				}
			}
		}
		ob.Records[i] = wr
	}
	return ob
}
