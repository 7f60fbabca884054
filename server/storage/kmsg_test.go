package storage

import (
	"encoding/binary"
	"hash/crc32"

	"github.com/kafkasim/kafkasim/core/log"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// appendBatchKmsg encodes b with franz-go's kmsg: the reference the
// hand encoder is tested against.
func appendBatchKmsg(dst []byte, b *log.Batch, ts toDisk) []byte {
	first, maxTs := ts(b.Timestamp), ts(b.MaxTimestamp())
	var recs []byte
	for i := range b.Records {
		r := &b.Records[i]
		kr := kmsg.Record{TimestampDelta64: r.TimestampDelta, OffsetDelta: int32(i), Value: []byte(r.Value)}
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
		if kr.Value == nil {
			kr.Value = []byte{}
		}
		body := kr.AppendTo(nil)
		_, w := binary.Varint(body) // AppendTo wrote Length 0: replace it
		body = body[w:]
		recs = binary.AppendVarint(recs, int64(len(body)))
		recs = append(recs, body...)
	}
	rb := kmsg.RecordBatch{FirstOffset: b.BaseOffset, PartitionLeaderEpoch: b.Epoch, Magic: 2,
		LastOffsetDelta: int32(len(b.Records) - 1), FirstTimestamp: first, MaxTimestamp: maxTs,
		ProducerID: b.ProducerID, ProducerEpoch: b.ProducerEpoch, FirstSequence: b.BaseSequence,
		NumRecords: int32(len(b.Records)), Records: recs}
	if b.LogAppendTime {
		rb.Attributes |= attrLogAppend
	}
	rb.Length = int32(batchOverhead - logOverhead + len(recs))
	start := len(dst)
	dst = rb.AppendTo(dst)
	binary.BigEndian.PutUint32(dst[start+17:], crc32.Checksum(dst[start+21:], crc32c))
	return dst
}
