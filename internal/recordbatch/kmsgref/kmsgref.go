// Package kmsgref encodes a record batch with franz-go's kmsg, record by
// record, as the protocol layer once did: the reference that
// recordbatch.Append must match byte for byte. Only tests import it
// (TestBatchCodecMatchesKmsg in server/kafka, TestAppendBatchMatchesKmsg
// and the segment fuzzers in server/storage); kafkasim's own encoder is
// internal/recordbatch, which allocates nothing per record.
package kmsgref

import (
	"encoding/binary"
	"hash/crc32"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafkasim/kafkasim/internal/recordbatch"
)

// Append encodes b after dst with kmsg's RecordBatch and Record
// encoders, uncompressed, with its length and CRC-32C, and returns the
// extended slice. ts maps b's timestamps as recordbatch.Append's does
// (nil: as they are).
func Append(dst []byte, b *recordbatch.Batch, ts func(int64) int64) []byte {
	first, maxTs := b.Timestamp, b.MaxTimestamp
	if ts != nil {
		first, maxTs = ts(first), ts(maxTs)
	}
	if len(b.Records) == 0 {
		first = recordbatch.NoTimestamp
	}
	var recs []byte
	for i := range b.Records {
		r := &b.Records[i]
		kr := kmsg.Record{TimestampDelta64: r.TimestampDelta, OffsetDelta: int32(i)}
		if !r.NullValue {
			kr.Value = []byte(r.Value)
			if kr.Value == nil {
				kr.Value = []byte{} // empty, not null: kmsg writes nil as -1
			}
		}
		if r.HasKey {
			kr.Key = []byte(r.Key)
		}
		for _, h := range r.Headers {
			kh := kmsg.Header{Key: h.Key}
			if !h.Null {
				kh.Value = []byte(h.Value)
			}
			kr.Headers = append(kr.Headers, kh)
		}
		body := kr.AppendTo(nil)
		_, w := binary.Varint(body) // AppendTo wrote Length 0: replace it
		body = body[w:]
		recs = binary.AppendVarint(recs, int64(len(body)))
		recs = append(recs, body...)
	}
	rb := kmsg.RecordBatch{FirstOffset: b.BaseOffset, PartitionLeaderEpoch: b.LeaderEpoch, Magic: 2,
		LastOffsetDelta: int32(len(b.Records) - 1), FirstTimestamp: first, MaxTimestamp: maxTs,
		ProducerID: b.ProducerID, ProducerEpoch: b.ProducerEpoch, FirstSequence: b.BaseSequence,
		NumRecords: int32(len(b.Records)), Records: recs,
		Length: int32(recordbatch.Overhead - recordbatch.LogOverhead + len(recs))}
	if b.LogAppendTime {
		rb.Attributes |= recordbatch.AttrLogAppendTime
	}
	if b.DeleteHorizon {
		rb.Attributes |= recordbatch.AttrDeleteHorizon
	}
	start := len(dst)
	dst = rb.AppendTo(dst)
	binary.BigEndian.PutUint32(dst[start+17:], crc32.Checksum(dst[start+recordbatch.CRCStart:], recordbatch.CRC32C))
	return dst
}
