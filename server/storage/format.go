package storage

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"strconv"
	"strings"

	"github.com/kafkasim/kafkasim/core/log"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Kafka's on-disk formats, as the broker writes them (apache/kafka 3.9):
//
//   - <base>.log: record batches back to back, each in message format v2
//     exactly as DefaultRecordBatch lays it out: baseOffset int64,
//     batchLength int32, partitionLeaderEpoch int32, magic int8 (2),
//     crc uint32 (CRC-32C of everything after it), attributes int16,
//     lastOffsetDelta int32, baseTimestamp int64, maxTimestamp int64,
//     producerId int64, producerEpoch int16, baseSequence int32,
//     records count int32, then the records (varint-framed DefaultRecord).
//   - <base>.index: OffsetIndex entries, 8 bytes each: offset - base as
//     int32 and the batch's file position as int32, big-endian.
//   - <base>.timeindex: TimeIndex entries, 12 bytes each: timestamp int64
//     and offset - base as int32.
//   - leader-epoch-checkpoint and the broker's offset checkpoints: the
//     CheckpointFile text format, a version line (0), a count line, then
//     one entry a line.
//   - partition.metadata: "version: 0\ntopic_id: <base64 uuid>".

// Sizes and limits of the formats.
const (
	batchOverhead   = 61 // DefaultRecordBatch.RECORD_BATCH_OVERHEAD
	logOverhead     = 12 // Records.LOG_OVERHEAD: baseOffset + batchLength
	headerUpToMagic = 17 // Records.HEADER_SIZE_UP_TO_MAGIC
	indexEntryBytes = 8
	timeEntryBytes  = 12
	attrLogAppend   = 0x08 // attributes: timestampType LogAppendTime
)

var crc32c = crc32.MakeTable(crc32.Castagnoli)

// segmentName is LogFileUtils.filenamePrefixFromOffset: the base offset
// zero-padded to 20 digits.
func segmentName(base int64) string { return fmt.Sprintf("%020d", base) }

// toDisk maps a core timestamp (virtual ms) to the Unix ms stored on disk.
type toDisk func(int64) int64

// appendBatch encodes b as Kafka writes it to a segment: uncompressed
// message format v2 with its CRC, timestamps on the clients' clock (the
// core keeps records uncompressed, so the bytes are exactly b.Size()
// long and sit at the positions the core computed). It allocates nothing
// beyond dst's growth; TestAppendBatchMatchesKmsg checks it against
// franz-go's encoder.
func appendBatch(dst []byte, b *log.Batch, ts toDisk) []byte {
	start := len(dst)
	dst = binary.BigEndian.AppendUint64(dst, uint64(b.BaseOffset))
	dst = binary.BigEndian.AppendUint32(dst, 0) // batchLength, below
	dst = binary.BigEndian.AppendUint32(dst, uint32(b.Epoch))
	dst = append(dst, 2)                        // magic
	dst = binary.BigEndian.AppendUint32(dst, 0) // crc, below
	attrs := uint16(0)
	if b.LogAppendTime {
		attrs |= attrLogAppend
	}
	dst = binary.BigEndian.AppendUint16(dst, attrs)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(b.Records)-1))
	dst = binary.BigEndian.AppendUint64(dst, uint64(ts(b.Timestamp)))
	dst = binary.BigEndian.AppendUint64(dst, uint64(ts(b.MaxTimestamp())))
	dst = binary.BigEndian.AppendUint64(dst, uint64(b.ProducerID))
	dst = binary.BigEndian.AppendUint16(dst, uint16(b.ProducerEpoch))
	dst = binary.BigEndian.AppendUint32(dst, uint32(b.BaseSequence))
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(b.Records)))
	for i := range b.Records {
		dst = appendRecord(dst, &b.Records[i], i)
	}
	binary.BigEndian.PutUint32(dst[start+8:], uint32(len(dst)-start-logOverhead))
	binary.BigEndian.PutUint32(dst[start+17:], crc32.Checksum(dst[start+21:], crc32c))
	return dst
}

// appendRecord is DefaultRecord.writeTo: a varint length, then
// attributes, timestamp delta, offset delta, key (-1: null), value,
// headers (a null value's length is -1), all zig-zag varints.
func appendRecord(dst []byte, r *log.Record, offsetDelta int) []byte {
	n := 1 + varlen(r.TimestampDelta) + varlen(int64(offsetDelta)) + bytesLen(r.Key, !r.HasKey) + bytesLen(r.Value, false) + varlen(int64(len(r.Headers)))
	for _, h := range r.Headers {
		n += bytesLen(h.Key, false) + bytesLen(h.Value, h.Null)
	}
	dst = binary.AppendVarint(dst, int64(n))
	dst = append(dst, 0)
	dst = binary.AppendVarint(dst, r.TimestampDelta)
	dst = binary.AppendVarint(dst, int64(offsetDelta))
	dst = appendBytes(dst, r.Key, !r.HasKey)
	dst = appendBytes(dst, r.Value, false)
	dst = binary.AppendVarint(dst, int64(len(r.Headers)))
	for _, h := range r.Headers {
		dst = appendBytes(dst, h.Key, false)
		dst = appendBytes(dst, h.Value, h.Null)
	}
	return dst
}

func appendBytes(dst []byte, s string, null bool) []byte {
	if null {
		return binary.AppendVarint(dst, -1)
	}
	return append(binary.AppendVarint(dst, int64(len(s))), s...)
}

func bytesLen(s string, null bool) int {
	if null {
		return 1
	}
	return varlen(int64(len(s))) + len(s)
}

// varlen is the length of v as a zig-zag varint.
func varlen(v int64) int {
	u := uint64(v<<1) ^ uint64(v>>63)
	n := 1
	for u >= 0x80 {
		u >>= 7
		n++
	}
	return n
}

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

// appendIndex encodes offset-index entries of the segment at base.
func appendIndex(dst []byte, base int64, es []log.IndexEntry) []byte {
	for _, e := range es {
		dst = binary.BigEndian.AppendUint32(dst, uint32(int32(e.Offset-base)))
		dst = binary.BigEndian.AppendUint32(dst, uint32(e.Position))
	}
	return dst
}

// appendTimeIndex encodes time-index entries of the segment at base.
func appendTimeIndex(dst []byte, base int64, es []log.TimeIndexEntry, ts toDisk) []byte {
	for _, e := range es {
		dst = binary.BigEndian.AppendUint64(dst, uint64(ts(e.Timestamp)))
		dst = binary.BigEndian.AppendUint32(dst, uint32(int32(e.Offset-base)))
	}
	return dst
}

// checkpoint renders the CheckpointFile format: version 0, the count,
// then the lines.
func checkpoint(lines []string) []byte {
	var b strings.Builder
	b.WriteString("0\n" + strconv.Itoa(len(lines)) + "\n")
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	return []byte(b.String())
}

// epochCheckpoint is a leader-epoch-checkpoint ("epoch startOffset" lines).
func epochCheckpoint(es []log.EpochEntry) []byte {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = strconv.Itoa(int(e.Epoch)) + " " + strconv.FormatInt(e.StartOffset, 10)
	}
	return checkpoint(lines)
}

// uuidString is Kafka's Uuid.toString: URL-safe base64 without padding.
func uuidString(id [16]byte) string { return base64.RawURLEncoding.EncodeToString(id[:]) }

// partitionMetadata is PartitionMetadata.encode (no final newline).
func partitionMetadata(topicID [16]byte) []byte {
	return []byte("version: 0\ntopic_id: " + uuidString(topicID))
}

func crc32Of(b []byte) uint32 { return crc32.Checksum(b, crc32c) }
