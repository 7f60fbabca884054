package log

import "math/bits"

// batchHeaderBytes is the fixed size of a v2 RecordBatch header
// (DefaultRecordBatch.RECORD_BATCH_OVERHEAD).
const batchHeaderBytes = 61

// Record is one Kafka record. Key "" with HasKey=false is a null key; the value
// is never null (tombstones are not modelled).
type Record struct {
	Key    string `json:"key,omitempty"`
	Value  string `json:"value"`
	HasKey bool   `json:"hasKey,omitempty"`
}

// Batch is an immutable record batch (Kafka's v2 RecordBatch). Once appended to
// a leader's log its fields never change, so followers and consumers share the
// same *Batch. Records must be non-empty when appended. The record at offset o
// is Records[o-BaseOffset].
type Batch struct {
	BaseOffset    int64 // offset of Records[0]; assigned by the leader
	Epoch         int32 // partitionLeaderEpoch of the leader that appended it
	ProducerID    int64 // -1 when not idempotent
	ProducerEpoch int16
	BaseSequence  int32 // -1 when not idempotent
	Timestamp     int64 // create time (virtual ms); used as first and max timestamp
	Records       []Record

	size int32 // cached Size(); 0 means not yet computed (a batch is >= 61 bytes)
}

// LastOffset is the offset of the last record: BaseOffset+Len()-1.
func (b *Batch) LastOffset() int64 { return b.BaseOffset + int64(len(b.Records)) - 1 }

// Len is the number of records in the batch.
func (b *Batch) Len() int { return len(b.Records) }

// Size is the number of bytes the batch occupies in a segment file in Kafka's
// v2 format: the 61-byte header plus, per record, DefaultRecord.sizeInBytes:
// length varint + attributes(1) + timestampDelta varlong(0)=1 + offsetDelta
// varint + keyLen varint (-1 for null) + key + valueLen varint + value +
// headerCount varint(0)=1, all zig-zag varints. It is computed on the first
// call and cached, so Records must not change after Size has been called.
func (b *Batch) Size() int {
	if b.size == 0 {
		n := batchHeaderBytes
		for i := range b.Records {
			n += recordSize(&b.Records[i], int32(i))
		}
		b.size = int32(n)
	}
	return int(b.size)
}

// recordSize is DefaultRecord.sizeInBytes for a record with no headers and a
// timestamp delta of 0.
func recordSize(r *Record, offsetDelta int32) int {
	body := 1 + 1 + varintSize(offsetDelta) // attributes, timestampDelta, offsetDelta
	if r.HasKey {
		body += varintSize(int32(len(r.Key))) + len(r.Key)
	} else {
		body += varintSize(-1)
	}
	body += varintSize(int32(len(r.Value))) + len(r.Value)
	body++ // headerCount varint(0)
	return varintSize(int32(body)) + body
}

// varintSize is ByteUtils.sizeOfVarint: the length of the zig-zag encoding.
func varintSize(v int32) int {
	u := uint32((v << 1) ^ (v >> 31))
	return (bits.Len32(u|1) + 6) / 7
}
