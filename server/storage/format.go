package storage

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"strconv"
	"strings"

	"github.com/kafkasim/kafkasim/core/log"
	"github.com/kafkasim/kafkasim/internal/recordbatch"
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
	batchOverhead     = recordbatch.Overhead
	logOverhead       = recordbatch.LogOverhead
	headerUpToMagic   = 17 // Records.HEADER_SIZE_UP_TO_MAGIC
	indexEntryBytes   = 8
	timeEntryBytes    = 12
	attrLogAppend     = recordbatch.AttrLogAppendTime
	attrDeleteHorizon = recordbatch.AttrDeleteHorizon
)

var crc32c = recordbatch.CRC32C

// segmentName is LogFileUtils.filenamePrefixFromOffset: the base offset
// zero-padded to 20 digits.
func segmentName(base int64) string { return fmt.Sprintf("%020d", base) }

// toDisk maps a core timestamp (virtual ms) to the Unix ms stored on disk.
type toDisk func(int64) int64

// appendBatch encodes b as Kafka writes it to a segment
// (recordbatch.Append): uncompressed message format v2 with its CRC,
// timestamps on the clients' clock (the core keeps records uncompressed,
// so the bytes are exactly b.Size() long and sit at the positions the
// core computed).
func appendBatch(dst []byte, b *log.Batch, ts toDisk) []byte {
	rb := toRecordBatch(b)
	return recordbatch.Append(dst, &rb, ts)
}

// toRecordBatch is what the encoder needs of a stored batch.
func toRecordBatch(b *log.Batch) recordbatch.Batch {
	return recordbatch.Batch{BaseOffset: b.BaseOffset, LeaderEpoch: b.Epoch, ProducerID: b.ProducerID,
		ProducerEpoch: b.ProducerEpoch, BaseSequence: b.BaseSequence, Timestamp: b.Timestamp,
		MaxTimestamp: b.MaxTimestamp(), LogAppendTime: b.LogAppendTime, Records: b.RecordList(),
		OffsetDeltas: b.OffsetDeltas, LastOffsetDelta: b.LastOffsetDelta, DeleteHorizon: b.HasDeleteHorizon}
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
