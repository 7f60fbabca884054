package kafka

import (
	"encoding/binary"
	"hash/crc32"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/log"
	"github.com/kafkasim/kafkasim/internal/recordbatch"
)

// The producer's batch, served back. A topic's compression.type is
// "producer" (Kafka's default, and the only one simulated), so a Kafka
// broker stores the batch a client sent as it came, compression
// included: LogValidator assigns offsets in place (baseOffset,
// lastOffsetDelta, partitionLeaderEpoch, the max timestamp and its type;
// the records section is not touched) and a Fetch returns those bytes.
// Here the core's log keeps the decoded records packed (log.Packed: it
// counts, sizes, replicates and draws them) and, as the Packed's Wire,
// the bytes the client sent: a Fetch copies them and rewrites the header
// from the core's batch instead of encoding every record again. Batches
// the core made itself (its own producers), read back from --data-dir,
// whose records' offset deltas are not 0, 1, 2... (Kafka rewrites those
// too) have no kept bytes and are encoded by recordbatch.Append. A null
// value (length -1) is kept as one, so a batch holding one is served as
// sent.

// servable is the kept bytes of b when a Fetch of version v may return
// them: zstd only for v10+, the first Fetch a client may read zstd with
// (KIP-110).
func servable(b *core.FetchedBatch, v int16) (string, bool) {
	if b.Packed == nil {
		return "", false
	}
	raw := b.Packed.Wire()
	if len(raw) < recordbatch.Overhead || batchCount(raw) != b.Len() || (raw[22]&7 == codecZstd && v < 10) {
		return "", false
	}
	return raw, true
}

// appendFetched appends stored batch b as a Fetch returns it: raw, the
// producer's own bytes when servable, with the
// header the core's batch says (offsets, leader epoch, timestamps and
// their type on the client's clock, producer fields), the CRC computed
// again only when that changed a byte it covers; otherwise recs, the
// batch's records (b.RecordList()), encoded uncompressed.
func appendFetched(dst []byte, b *core.FetchedBatch, raw string, recs []log.Record, toClient func(int64) int64) []byte {
	if raw != "" {
		start := len(dst)
		dst = append(dst, raw...)
		h := dst[start : start+recordbatch.Overhead]
		binary.BigEndian.PutUint64(h[0:], uint64(b.BaseOffset))
		binary.BigEndian.PutUint32(h[12:], uint32(b.PartitionLeaderEpoch))
		var want [recordbatch.Overhead - recordbatch.CRCStart]byte
		attrs := binary.BigEndian.Uint16(h[21:]) &^ recordbatch.AttrLogAppendTime
		if b.LogAppendTime {
			attrs |= recordbatch.AttrLogAppendTime
		}
		binary.BigEndian.PutUint16(want[0:], attrs)
		binary.BigEndian.PutUint32(want[2:], uint32(b.Len()-1))
		binary.BigEndian.PutUint64(want[6:], uint64(toClient(b.Timestamp)))
		binary.BigEndian.PutUint64(want[14:], uint64(toClient(b.MaxTimestamp)))
		binary.BigEndian.PutUint64(want[22:], uint64(b.ProducerID))
		binary.BigEndian.PutUint16(want[30:], uint16(b.ProducerEpoch))
		binary.BigEndian.PutUint32(want[32:], uint32(b.BaseSequence))
		binary.BigEndian.PutUint32(want[36:], uint32(b.Len()))
		if string(want[:]) != string(h[recordbatch.CRCStart:]) {
			copy(h[recordbatch.CRCStart:], want[:])
			binary.BigEndian.PutUint32(h[17:], crc32.Checksum(dst[start+recordbatch.CRCStart:], recordbatch.CRC32C))
		}
		return dst
	}
	ob := fetchedBatch(b, recs)
	return recordbatch.Append(dst, &ob, toClient)
}

// batchCount is the records count of the v2 batch raw (at least the
// 61-byte header).
func batchCount(raw string) int {
	return int(int32(uint32(raw[57])<<24 | uint32(raw[58])<<16 | uint32(raw[59])<<8 | uint32(raw[60])))
}
