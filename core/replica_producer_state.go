package core

import (
	"math"

	"github.com/kafkasim/kafkasim/core/log"
)

// batchMeta is what a broker remembers of one idempotent batch.
type batchMeta struct {
	firstSeq, lastSeq       int32
	firstOffset, lastOffset int64
}

// producerEntry is a producer's state on one partition
// (ProducerStateEntry): its epoch and last NUM_BATCHES_TO_RETAIN = 5 batches.
type producerEntry struct {
	epoch   int16
	batches []batchMeta
}

const batchesToRetain = 5

func (r *Replica) trackProducer(b *log.Batch) {
	if r.producers == nil {
		r.producers = map[int64]*producerEntry{}
	}
	e := r.producers[b.ProducerID]
	if e == nil || e.epoch != b.ProducerEpoch {
		e = &producerEntry{epoch: b.ProducerEpoch}
		r.producers[b.ProducerID] = e
	}
	// RecordBatch.lastSequence is baseSequence + lastOffsetDelta, not
	// + the record count - 1: a cleaned batch keeps its offset span (and
	// the producer's last batch may be kept with no record left), so its
	// last sequence is still the one the producer sent.
	span := b.LastOffset() - b.BaseOffset
	last := int32(int64(b.BaseSequence) + span)
	if int64(b.BaseSequence)+span > math.MaxInt32 {
		last = int32(int64(b.BaseSequence) + span - math.MaxInt32 - 1)
	}
	e.batches = append(e.batches, batchMeta{b.BaseSequence, last, b.BaseOffset, b.LastOffset()})
	if len(e.batches) > batchesToRetain {
		e.batches = append(e.batches[:0], e.batches[len(e.batches)-batchesToRetain:]...)
	}
}

// rebuildProducers recomputes producer state from the log, as a broker
// does from its snapshot and log after a restart or truncation.
func (r *Replica) rebuildProducers() {
	r.producers = nil
	for _, b := range r.log.Batches(r.log.StartOffset()) {
		if b.ProducerID >= 0 {
			r.trackProducer(b)
		}
	}
}

// checkSequence is ProducerAppendInfo.checkSequence plus the duplicate
// lookup: a retry of one of the last 5 batches returns the original base
// offset (>= 0) and is not appended; otherwise the first sequence must
// follow the last one (MAX_INT wraps to 0) or the batch is rejected with
// OUT_OF_ORDER_SEQUENCE_NUMBER. A new epoch must start at sequence 0, and
// so must a producer the partition has no state for.
//
// That last rule is 0.11-2.4's: 2.5+ takes any sequence then ("If there is
// no current producer epoch ... accept writes with any sequence number",
// KIP-360). The simulator keeps the old rule on purpose: its network can
// lose one request and deliver the next on the same link (a split or
// `net drop`), which TCP never does, and a broker taking the second
// batch first would leave the producer renumbering it after an epoch
// bump: a duplicate real Kafka cannot make (simtest seed 20680).
func (r *Replica) checkSequence(pid int64, epoch int16, firstSeq int32, n int) (int64, string) {
	e := r.producers[pid]
	if e == nil || len(e.batches) == 0 {
		if firstSeq != 0 {
			return -1, "OUT_OF_ORDER_SEQUENCE_NUMBER"
		}
		return -1, ""
	}
	switch {
	case epoch < e.epoch:
		return -1, "INVALID_PRODUCER_EPOCH"
	case epoch > e.epoch:
		if firstSeq != 0 {
			return -1, "OUT_OF_ORDER_SEQUENCE_NUMBER"
		}
		return -1, ""
	}
	lastSeq := int32(int64(firstSeq) + int64(n) - 1)
	for _, bm := range e.batches {
		if bm.firstSeq == firstSeq && bm.lastSeq == lastSeq {
			return bm.firstOffset, ""
		}
	}
	prev := e.batches[len(e.batches)-1].lastSeq
	if !(prev == math.MaxInt32 && firstSeq == 0) && int64(firstSeq) != int64(prev)+1 {
		return -1, "OUT_OF_ORDER_SEQUENCE_NUMBER"
	}
	return -1, ""
}
