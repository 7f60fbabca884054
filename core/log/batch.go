package log

import (
	"fmt"
	"math/bits"
	"slices"
)

// batchHeaderBytes is the fixed size of a v2 RecordBatch header
// (DefaultRecordBatch.RECORD_BATCH_OVERHEAD).
const batchHeaderBytes = 61

// Record is one Kafka record. Key "" with HasKey=false is a null key;
// NullValue marks a null value (a tombstone for a compacted topic, which
// DefaultRecord writes as value length -1), distinct from an empty one:
// NullValue implies Value == "". Only a real client sends one (the
// scenario language's records are known by their values). TimestampDelta
// is the record's timestamp minus its batch's first timestamp
// (DefaultRecord's timestampDelta; 0 for every record the core's own
// producers write), and Headers are its headers in the order the client
// sent them (nil: none).
type Record struct {
	Key            string   `json:"key,omitempty"`
	Value          string   `json:"value"`
	NullValue      bool     `json:"nullValue,omitempty"`
	HasKey         bool     `json:"hasKey,omitempty"`
	TimestampDelta int64    `json:"timestampDelta,omitempty"`
	Headers        []Header `json:"headers,omitempty"`
}

// NullText is how a null value reads where learners read values (the
// traces, the picture, the X-ray): what kafka-console-consumer prints for
// one (DefaultMessageFormatter writes "null").
const NullText = "null"

// ValueText is the value as it reads: NullText for a null value, else
// Value. The log itself keeps the two apart with NullValue.
func (r *Record) ValueText() string {
	if r.NullValue {
		return NullText
	}
	return r.Value
}

// Header is one record header (KIP-82): a key and a value, the value null
// when Null is set (Value is then "").
type Header struct {
	Key   string `json:"key"`
	Value string `json:"value,omitempty"`
	Null  bool   `json:"null,omitempty"`
}

// Batch is an immutable record batch (Kafka's v2 RecordBatch). Once appended to
// a leader's log its fields never change, so followers and consumers share the
// same *Batch. Its records are either Records or Packed (a real client's
// batch, kept without a pointer per record): exactly one is set, and
// non-empty, when the batch is appended. Read them with Len, Record and
// RecordList, which work for both; the record at offset o is
// Record(o-BaseOffset).
type Batch struct {
	BaseOffset    int64 // offset of the first record; assigned by the leader
	Epoch         int32 // partitionLeaderEpoch of the leader that appended it
	ProducerID    int64 // -1 when not idempotent
	ProducerEpoch int16
	BaseSequence  int32 // -1 when not idempotent
	// Timestamp is the header's baseTimestamp, the base of the records'
	// TimestampDelta (CreateTime, ms): the first record's timestamp as
	// produced; in a batch the cleaner rebuilt, its delete horizon when
	// it has one (DeleteHorizonMs, the records' deltas then negative),
	// else its first kept record's timestamp; in a cleaned batch with no
	// records, its max timestamp (Kafka writes NO_TIMESTAMP as such a
	// header's base and keeps the max: the encoders do).
	Timestamp int64
	// LogAppendTime marks a batch of a topic with
	// message.timestamp.type=LogAppendTime: the leader stamped AppendTime
	// as the batch's max timestamp, and every record's timestamp reads as
	// AppendTime (DefaultRecordBatch: timestampType bit 3 of attributes).
	LogAppendTime bool
	AppendTime    int64 // the leader's clock at the append; meaningful only with LogAppendTime
	Records       []Record
	// Packed holds the records instead of Records. It is no part of a
	// batch's JSON (a restore's, from --data-dir, has Records): encode a
	// packed batch with Records = RecordList().
	Packed *Packed `json:"-"`
	// OffsetDeltas is set only in a batch the log cleaner rewrote
	// (LogCleaner@3.9 cleanInto, MemoryRecords.filterTo): record i sits
	// at BaseOffset+OffsetDeltas[i], strictly increasing, and
	// LastOffsetDelta is the header's lastOffsetDelta, kept from the
	// original batch, so a cleaned batch keeps its offsets and gaps appear
	// where records went. nil: the records sit at offsets 0, 1, 2... and
	// LastOffsetDelta is unused. A cleaned batch may hold no records at
	// all (BatchRetention.RETAIN_EMPTY: an idempotent producer's last
	// batch); it is never Packed.
	OffsetDeltas    []int32 `json:"offsetDeltas,omitempty"`
	LastOffsetDelta int32   `json:"lastOffsetDelta,omitempty"`
	// HasDeleteHorizon and DeleteHorizonMs are the v2 header's delete
	// horizon (KIP-534, 3.1+; attributes bit 6, the value in
	// baseTimestamp): set by the cleaner the first time it keeps a
	// tombstone of the batch, to that clean's time plus
	// delete.retention.ms; a later clean past it drops the batch's
	// tombstones. Invariant: HasDeleteHorizon implies Timestamp ==
	// DeleteHorizonMs and at least one record.
	HasDeleteHorizon bool  `json:"hasDeleteHorizon,omitempty"`
	DeleteHorizonMs  int64 `json:"deleteHorizonMs,omitempty"`

	size  int32 // cached Size(); 0 means not yet computed (a batch is >= 61 bytes)
	maxTs int64 // cached max record timestamp when sized (CreateTime batches)
}

// MaxTimestamp is the batch header's maxTimestamp: AppendTime for a
// LogAppendTime batch, else the largest record timestamp (Timestamp plus
// the largest TimestampDelta). Like Size it is computed once and cached.
func (b *Batch) MaxTimestamp() int64 {
	if b.LogAppendTime {
		return b.AppendTime
	}
	b.Size()
	return b.maxTs
}

// RecordTimestamp is the timestamp a consumer reads for record i:
// AppendTime in a LogAppendTime batch, else Timestamp+TimestampDelta.
func (b *Batch) RecordTimestamp(i int) int64 {
	if b.LogAppendTime {
		return b.AppendTime
	}
	return b.Timestamp + b.Record(i).TimestampDelta
}

// LastOffset is the header's last offset: BaseOffset+Len()-1, or
// BaseOffset+LastOffsetDelta for a cleaned batch (whose last record may
// be gone: the offset still belongs to the batch).
func (b *Batch) LastOffset() int64 {
	if b.OffsetDeltas != nil {
		return b.BaseOffset + int64(b.LastOffsetDelta)
	}
	return b.BaseOffset + int64(b.Len()) - 1
}

// Offset is the offset of record i: BaseOffset+i, or
// BaseOffset+OffsetDeltas[i] in a cleaned batch.
func (b *Batch) Offset(i int) int64 { return b.BaseOffset + int64(b.delta(i)) }

// delta is record i's offsetDelta.
func (b *Batch) delta(i int) int32 {
	if b.OffsetDeltas != nil {
		return b.OffsetDeltas[i]
	}
	return int32(i)
}

// checkDeltas checks a cleaned batch's OffsetDeltas: one per record,
// strictly increasing, within [0, LastOffsetDelta].
func (b *Batch) checkDeltas() error {
	if b.OffsetDeltas == nil {
		return nil
	}
	if len(b.OffsetDeltas) != b.Len() || b.Packed != nil {
		return fmt.Errorf("%d offset deltas for %d records", len(b.OffsetDeltas), b.Len())
	}
	prev := int32(-1)
	for _, d := range b.OffsetDeltas {
		if d <= prev || d > b.LastOffsetDelta {
			return fmt.Errorf("offset delta %d after %d (last offset delta %d)", d, prev, b.LastOffsetDelta)
		}
		prev = d
	}
	if b.LastOffsetDelta < 0 {
		return fmt.Errorf("last offset delta %d", b.LastOffsetDelta)
	}
	return nil
}

// Index is the index of the record at offset in the batch, or -1 when
// the batch holds no record there (outside it, or cleaned away).
func (b *Batch) Index(offset int64) int {
	d := offset - b.BaseOffset
	if d < 0 || offset > b.LastOffset() {
		return -1
	}
	if b.OffsetDeltas == nil {
		return int(d)
	}
	i, ok := slices.BinarySearch(b.OffsetDeltas, int32(d))
	if !ok {
		return -1
	}
	return i
}

// Len is the number of records in the batch.
func (b *Batch) Len() int { return LenOr(b.Records, b.Packed) }

// Record is record i (0 <= i < Len()).
func (b *Batch) Record(i int) Record {
	if b.Packed != nil {
		return b.Packed.Record(i)
	}
	return b.Records[i]
}

// RecordList is the batch's records: Records itself, or a packed batch's
// records read into a new slice (which the caller may keep). Either way
// the caller must not change them.
func (b *Batch) RecordList() []Record { return RecordsOr(b.Records, b.Packed) }

// Size is the number of bytes the batch occupies in a segment file in Kafka's
// v2 format: the 61-byte header plus, per record, DefaultRecord.sizeInBytes:
// length varint + attributes(1) + timestampDelta varlong + offsetDelta
// varint + keyLen varint (-1 for null) + key + valueLen varint + value +
// headerCount varint + per header keyLen varint + key + valueLen varint
// (-1 for null) + value, all zig-zag varints. It is computed on the first
// call and cached (with the max timestamp), so Records must not change
// after Size or MaxTimestamp has been called. A packed batch's size and
// max timestamp are Pack's, computed by the same rules.
func (b *Batch) Size() int {
	if b.size == 0 && b.Packed != nil {
		b.size = int32(batchHeaderBytes) + b.Packed.size
		b.maxTs = b.Timestamp + b.Packed.maxTsDelta
	}
	if b.size == 0 {
		// Timestamp counts, as Pack's maxTsDelta >= 0 does, except as a
		// delete horizon, which lies after the records.
		n := batchHeaderBytes
		b.maxTs = b.Timestamp
		for i := range b.Records {
			r := &b.Records[i]
			n += recordSize(r, b.delta(i))
			if ts := b.Timestamp + r.TimestampDelta; ts > b.maxTs || i == 0 && b.HasDeleteHorizon {
				b.maxTs = ts
			}
		}
		b.size = int32(n)
	}
	return int(b.size)
}

// BatchOverhead is a v2 RecordBatch header's size, 61 bytes
// (DefaultRecordBatch.RECORD_BATCH_OVERHEAD): MemoryRecordsBuilder counts
// it in a batch's estimated size from the first record on.
const BatchOverhead = batchHeaderBytes

// RecordSize is DefaultRecord.sizeInBytes for r at offsetDelta in its batch:
// what MemoryRecordsBuilder.hasRoomFor adds to the batch's estimated size.
func RecordSize(r *Record, offsetDelta int32) int { return recordSize(r, offsetDelta) }

// recordSize is DefaultRecord.sizeInBytes.
func recordSize(r *Record, offsetDelta int32) int {
	body := 1 + varlongSize(r.TimestampDelta) + varintSize(offsetDelta) // attributes, timestampDelta, offsetDelta
	if r.HasKey {
		body += varintSize(int32(len(r.Key))) + len(r.Key)
	} else {
		body += varintSize(-1)
	}
	if r.NullValue {
		body += varintSize(-1) // DefaultRecord.sizeOfBodyInBytes: NULL_VARINT_SIZE_BYTES
	} else {
		body += varintSize(int32(len(r.Value))) + len(r.Value)
	}
	body += varintSize(int32(len(r.Headers)))
	for _, h := range r.Headers {
		body += varintSize(int32(len(h.Key))) + len(h.Key)
		if h.Null {
			body += varintSize(-1)
		} else {
			body += varintSize(int32(len(h.Value))) + len(h.Value)
		}
	}
	return varintSize(int32(body)) + body
}

// varintSize is ByteUtils.sizeOfVarint: the length of the zig-zag encoding.
func varintSize(v int32) int {
	u := uint32((v << 1) ^ (v >> 31))
	return (bits.Len32(u|1) + 6) / 7
}

// varlongSize is ByteUtils.sizeOfVarlong.
func varlongSize(v int64) int {
	u := uint64((v << 1) ^ (v >> 63))
	return (bits.Len64(u|1) + 6) / 7
}
