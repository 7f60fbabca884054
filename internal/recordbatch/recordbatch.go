// Package recordbatch writes Kafka's record batch, message format v2
// (DefaultRecordBatch and DefaultRecord, apache/kafka clients), from the
// core's records: the one encoder behind Fetch responses (server/kafka)
// and the .log segment files (server/storage).
//
// The layout: baseOffset int64, batchLength int32, partitionLeaderEpoch
// int32, magic int8 (2), crc uint32 (CRC-32C of everything after it),
// attributes int16, lastOffsetDelta int32, baseTimestamp int64,
// maxTimestamp int64, producerId int64, producerEpoch int16, baseSequence
// int32, records count int32, then each record: a zig-zag varint length,
// attributes int8 (0), then timestampDelta, offsetDelta, key length (-1:
// null), key, value length (-1: null, a tombstone), value, header count
// and per header key length, key, value length (-1: null), value, all
// zig-zag varints.
package recordbatch

import (
	"encoding/binary"
	"hash/crc32"

	"github.com/kafkasim/kafkasim/core/log"
)

// Sizes and fields of the format.
const (
	// Overhead is DefaultRecordBatch.RECORD_BATCH_OVERHEAD: the header
	// before the first record.
	Overhead = 61
	// LogOverhead is Records.LOG_OVERHEAD: baseOffset and batchLength,
	// the bytes batchLength does not count.
	LogOverhead = 12
	// CRCStart is where the CRC-covered bytes begin (the attributes).
	CRCStart = 21
	// AttrLogAppendTime is the attributes' timestampType bit.
	AttrLogAppendTime = 0x08
	// AttrTransactional and AttrControl are the attributes'
	// TRANSACTIONAL_FLAG_MASK and CONTROL_FLAG_MASK.
	AttrTransactional = 0x10
	AttrControl       = 0x20
	// AttrDeleteHorizon is the attributes' bit 6 (KIP-534, 3.1+,
	// DELETE_HORIZON_FLAG_MASK): the baseTimestamp is the delete horizon
	// the log cleaner gave the batch.
	AttrDeleteHorizon = 0x40
	// NoTimestamp is RecordBatch.NO_TIMESTAMP.
	NoTimestamp = -1
)

// CRC32C is the Castagnoli table the batch CRC uses.
var CRC32C = crc32.MakeTable(crc32.Castagnoli)

// Batch is one stored batch to encode. Timestamp (the first timestamp,
// the base of every record's TimestampDelta) and MaxTimestamp are on the
// caller's clock; Append maps them.
type Batch struct {
	BaseOffset    int64
	LeaderEpoch   int32
	ProducerID    int64
	ProducerEpoch int16
	BaseSequence  int32
	Timestamp     int64
	MaxTimestamp  int64
	LogAppendTime bool
	Records       []log.Record
	// OffsetDeltas, when set, are the records' offset deltas and
	// LastOffsetDelta the header's (a batch the log cleaner rewrote,
	// log.Batch.OffsetDeltas); nil: 0, 1, 2... and len(Records)-1.
	OffsetDeltas    []int32
	LastOffsetDelta int32
	// DeleteHorizon marks Timestamp as the batch's delete horizon
	// (log.Batch.HasDeleteHorizon): attributes bit 6.
	DeleteHorizon bool
}

// Append encodes b after dst, uncompressed, with its length and CRC, and
// returns the extended slice. ts maps b's timestamps to the ones written
// (the clients' Unix ms: the Fetch clock, or storage's toDisk); nil
// writes them as they are. It allocates nothing beyond dst's growth, and
// writes exactly log.Batch.Size bytes for the same records (the bytes
// kmsg's encoder writes, kmsgref.Append: TestBatchCodecMatchesKmsg in server/kafka,
// TestAppendBatchMatchesKmsg in server/storage). A batch with no records
// (one the log cleaner emptied and kept) gets NO_TIMESTAMP as its base,
// as DefaultRecordBatch.writeEmptyHeader writes it.
func Append(dst []byte, b *Batch, ts func(int64) int64) []byte {
	first, maxTs := b.Timestamp, b.MaxTimestamp
	if ts != nil {
		first, maxTs = ts(first), ts(maxTs)
	}
	if len(b.Records) == 0 {
		first = NoTimestamp
	}
	start := len(dst)
	dst = binary.BigEndian.AppendUint64(dst, uint64(b.BaseOffset))
	dst = binary.BigEndian.AppendUint32(dst, 0) // batchLength, below
	dst = binary.BigEndian.AppendUint32(dst, uint32(b.LeaderEpoch))
	dst = append(dst, 2)                        // magic
	dst = binary.BigEndian.AppendUint32(dst, 0) // crc, below
	attrs := uint16(0)
	if b.LogAppendTime {
		attrs |= AttrLogAppendTime
	}
	if b.DeleteHorizon {
		attrs |= AttrDeleteHorizon
	}
	dst = binary.BigEndian.AppendUint16(dst, attrs)
	last := int32(len(b.Records) - 1)
	if b.OffsetDeltas != nil {
		last = b.LastOffsetDelta
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(last))
	dst = binary.BigEndian.AppendUint64(dst, uint64(first))
	dst = binary.BigEndian.AppendUint64(dst, uint64(maxTs))
	dst = binary.BigEndian.AppendUint64(dst, uint64(b.ProducerID))
	dst = binary.BigEndian.AppendUint16(dst, uint16(b.ProducerEpoch))
	dst = binary.BigEndian.AppendUint32(dst, uint32(b.BaseSequence))
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(b.Records)))
	for i := range b.Records {
		d := int64(i)
		if b.OffsetDeltas != nil {
			d = int64(b.OffsetDeltas[i])
		}
		dst = appendRecord(dst, &b.Records[i], d)
	}
	binary.BigEndian.PutUint32(dst[start+8:], uint32(len(dst)-start-LogOverhead))
	binary.BigEndian.PutUint32(dst[start+17:], crc32.Checksum(dst[start+CRCStart:], CRC32C))
	return dst
}

// appendRecord is DefaultRecord.writeTo: the body's length, then the body.
func appendRecord(dst []byte, r *log.Record, offsetDelta int64) []byte {
	n := 1 + VarintLen(r.TimestampDelta) + VarintLen(offsetDelta) + bytesLen(r.Key, !r.HasKey) + bytesLen(r.Value, r.NullValue) +
		VarintLen(int64(len(r.Headers)))
	for i := range r.Headers {
		h := &r.Headers[i]
		n += bytesLen(h.Key, false) + bytesLen(h.Value, h.Null)
	}
	dst = binary.AppendVarint(dst, int64(n))
	dst = append(dst, 0) // attributes: unused in v2 records
	dst = binary.AppendVarint(dst, r.TimestampDelta)
	dst = binary.AppendVarint(dst, offsetDelta)
	dst = appendBytes(dst, r.Key, !r.HasKey)
	dst = appendBytes(dst, r.Value, r.NullValue)
	dst = binary.AppendVarint(dst, int64(len(r.Headers)))
	for i := range r.Headers {
		h := &r.Headers[i]
		dst = appendBytes(dst, h.Key, false)
		dst = appendBytes(dst, h.Value, h.Null)
	}
	return dst
}

// appendBytes writes a varint length and s, or length -1 when null.
func appendBytes(dst []byte, s string, null bool) []byte {
	if null {
		return binary.AppendVarint(dst, -1)
	}
	return append(binary.AppendVarint(dst, int64(len(s))), s...)
}

// bytesLen is what appendBytes writes.
func bytesLen(s string, null bool) int {
	if null {
		return 1
	}
	return VarintLen(int64(len(s))) + len(s)
}

// VarintLen is the length of v as a zig-zag varint
// (ByteUtils.sizeOfVarlong).
func VarintLen(v int64) int {
	u := uint64(v<<1) ^ uint64(v>>63)
	n := 1
	for u >= 0x80 {
		u >>= 7
		n++
	}
	return n
}
