package kafka

import (
	"encoding/binary"
	"hash/crc32"
	"runtime"
	"sync"
	"weak"

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
// Here the core still gets the decoded records (it counts, sizes,
// replicates and draws them), and the bytes the client sent are kept
// beside them, found again by the identity of the records slice the core
// stores (a stored batch never changes, and replicas and Fetch replies
// share its slice): a Fetch copies them and rewrites the header from the
// core's batch instead of encoding every record again. Batches the core
// made itself (its own producers), read back from --data-dir, whose
// records' offset deltas are not 0, 1, 2... (Kafka rewrites those too) or
// that hold a null value (not simulated: the core keeps an empty one, and
// a consumer must read what the core has) have no kept bytes and are
// encoded by recordbatch.Append.

// wireTable maps a produced batch's records (a weak pointer to the first,
// so that it never keeps a batch alive) to the batch's bytes as the
// client sent them. An entry goes when its records are collected: the
// table is bounded by the logs' retention like the records themselves.
type wireTable struct {
	mu sync.Mutex
	m  map[weak.Pointer[log.Record]]string
}

var wireBatches = wireTable{m: map[weak.Pointer[log.Record]]string{}}

// keep remembers raw as the bytes of the batch whose decoded records are
// recs. raw must not reference recs (a string does not).
func (t *wireTable) keep(recs []log.Record, raw string) {
	if len(recs) == 0 || raw == "" {
		return
	}
	p := &recs[0]
	k := weak.Make(p)
	t.mu.Lock()
	t.m[k] = raw
	t.mu.Unlock()
	runtime.AddCleanup(p, t.forget, k)
}

func (t *wireTable) forget(k weak.Pointer[log.Record]) {
	t.mu.Lock()
	delete(t.m, k)
	t.mu.Unlock()
}

// lookup is the kept bytes of the batch whose records are recs.
func (t *wireTable) lookup(recs []log.Record) (string, bool) {
	if len(recs) == 0 {
		return "", false
	}
	k := weak.Make(&recs[0])
	t.mu.Lock()
	raw, ok := t.m[k]
	t.mu.Unlock()
	return raw, ok
}

// size is the number of batches kept.
func (t *wireTable) size() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.m)
}

// servable is the kept bytes of b when a Fetch of version v may return
// them: zstd only for v10+, the first Fetch a client may read zstd with
// (KIP-110).
func servable(b *core.FetchedBatch, v int16) (string, bool) {
	raw, ok := wireBatches.lookup(b.Records)
	if !ok || len(raw) < recordbatch.Overhead || batchCount(raw) != len(b.Records) || (raw[22]&7 == codecZstd && v < 10) {
		return "", false
	}
	return raw, true
}

// appendFetched appends stored batch b as a Fetch returns it: raw, the
// producer's own bytes when servable, with the
// header the core's batch says (offsets, leader epoch, timestamps and
// their type on the client's clock, producer fields), the CRC computed
// again only when that changed a byte it covers; otherwise the core's
// records encoded uncompressed.
func appendFetched(dst []byte, b *core.FetchedBatch, raw string, toClient func(int64) int64) []byte {
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
		binary.BigEndian.PutUint32(want[2:], uint32(len(b.Records)-1))
		binary.BigEndian.PutUint64(want[6:], uint64(toClient(b.Timestamp)))
		binary.BigEndian.PutUint64(want[14:], uint64(toClient(b.MaxTimestamp)))
		binary.BigEndian.PutUint64(want[22:], uint64(b.ProducerID))
		binary.BigEndian.PutUint16(want[30:], uint16(b.ProducerEpoch))
		binary.BigEndian.PutUint32(want[32:], uint32(b.BaseSequence))
		binary.BigEndian.PutUint32(want[36:], uint32(len(b.Records)))
		if string(want[:]) != string(h[recordbatch.CRCStart:]) {
			copy(h[recordbatch.CRCStart:], want[:])
			binary.BigEndian.PutUint32(h[17:], crc32.Checksum(dst[start+recordbatch.CRCStart:], recordbatch.CRC32C))
		}
		return dst
	}
	ob := fetchedBatch(b)
	return recordbatch.Append(dst, &ob, toClient)
}

// batchCount is the records count of the v2 batch raw (at least the
// 61-byte header).
func batchCount(raw string) int {
	return int(int32(uint32(raw[57])<<24 | uint32(raw[58])<<16 | uint32(raw[59])<<8 | uint32(raw[60])))
}
