package core

import (
	"math"

	"github.com/kafkasim/kafkasim/core/log"
)

// produceReq is a Produce request: one batch per partition, as Kafka's
// producer sends one request per broker.
type produceReq struct {
	producer string
	acks     int   // 0, 1 or -1 (all)
	timeout  int64 // request.timeout.ms: how long acks=all may wait
	pid      int64
	parts    []producePart
}

// producePart is one partition's batch. Each batch carries its own
// producer epoch, as Kafka's record batches do: after an epoch bump a
// partition's batches of the old epoch are still retried with it.
type producePart struct {
	p       *Partition
	records []log.Record
	baseSeq int32
	pepoch  int16
}

// produceResult is one partition's answer: the batch's base offset or an
// error name (Kafka's Errors enum).
type produceResult struct {
	p      *Partition
	offset int64
	err    string
	dup    bool
}

// pendingProduce is an acks=all request in purgatory (DelayedProduce).
type pendingProduce struct {
	results   []produceResult
	remaining int
	respond   func([]produceResult)
	finished  bool
}

// pendingAck is one partition of a pendingProduce, waiting for the HW.
type pendingAck struct {
	required int64 // HW the partition must reach: last offset + 1
	idx      int
	req      *pendingProduce
}

func (pp *pendingProduce) done(idx int, err string) {
	if pp.finished {
		return
	}
	pp.results[idx].err = err
	pp.remaining--
	if pp.remaining == 0 {
		pp.finished = true
		pp.respond(pp.results)
	}
}

// handleProduce is ReplicaManager.appendRecords on the leader.
func (b *Broker) handleProduce(req *produceReq, respond func([]produceResult)) {
	results := make([]produceResult, len(req.parts))
	var waits []*Replica
	var waitIdx []int
	for i, pp := range req.parts {
		results[i] = produceResult{p: pp.p, offset: -1}
		r, err := b.leaderFor(pp.p)
		if err == "" && req.acks == -1 && len(r.isr) < r.p.Topic.conf.minISR {
			err = "NOT_ENOUGH_REPLICAS" // checked before the append: nothing is written
		}
		if err == "" && req.pid >= 0 {
			if off, e := r.checkSequence(req.pid, pp.pepoch, pp.baseSeq, len(pp.records)); e != "" || off >= 0 {
				results[i].offset, results[i].dup, err = off, off >= 0, e
				if e == "" {
					// A retry of a batch already in the log is answered with
					// the original offsets, but with acks=all only once the
					// HW has passed them, like the first attempt: Kafka's
					// duplicate LogAppendInfo carries the original last
					// offset and the DelayedProduce waits for it
					// (UnifiedLog.append, ReplicaManager.appendRecords).
					// Answering at once acknowledged records that only a
					// deposed leader had.
					last := off + int64(len(pp.records)) - 1
					if req.acks == -1 && r.hw <= last {
						waits, waitIdx = append(waits, r), append(waitIdx, i)
					} else if req.acks == -1 && len(r.isr) < r.p.Topic.conf.minISR {
						results[i].err = "NOT_ENOUGH_REPLICAS_AFTER_APPEND"
					}
					continue
				}
			}
		}
		if err != "" {
			results[i].err = err
			continue
		}
		bt := &log.Batch{BaseOffset: r.log.LEO(), Epoch: r.epoch, ProducerID: req.pid, ProducerEpoch: pp.pepoch,
			BaseSequence: pp.baseSeq, Timestamp: b.c.now, Records: pp.records}
		if req.pid < 0 {
			bt.BaseSequence = -1
		}
		if e := r.append(bt); e != nil {
			results[i].err = "KAFKA_STORAGE_ERROR"
			continue
		}
		results[i].offset = bt.BaseOffset
		b.wakeParked(pp.p, false)
		r.maybeAdvanceHW()
		if req.acks == -1 && r.hw <= bt.LastOffset() {
			waits, waitIdx = append(waits, r), append(waitIdx, i)
		} else if req.acks == -1 && len(r.isr) < r.p.Topic.conf.minISR {
			results[i].err = "NOT_ENOUGH_REPLICAS_AFTER_APPEND"
		}
	}
	if req.acks == 0 {
		return // acks=0: the broker never answers
	}
	if len(waits) == 0 {
		respond(results)
		return
	}
	pp := &pendingProduce{results: results, remaining: len(waits), respond: respond}
	for k, r := range waits {
		r.waiting = append(r.waiting, &pendingAck{required: results[waitIdx[k]].offset + int64(len(req.parts[waitIdx[k]].records)), idx: waitIdx[k], req: pp})
	}
	b.after(req.timeout, func() {
		for _, i := range waitIdx {
			if pp.results[i].err == "" && !pp.finished {
				pp.done(i, "REQUEST_TIMED_OUT")
			}
		}
	})
}

// leaderFor returns the replica of p this broker leads, or Kafka's error.
func (b *Broker) leaderFor(p *Partition) (*Replica, string) {
	r := b.replicas[p]
	if r == nil {
		if _, known := b.cache[p]; known {
			return nil, "NOT_LEADER_OR_FOLLOWER"
		}
		return nil, "UNKNOWN_TOPIC_OR_PARTITION"
	}
	if r.role != roleLeader {
		return nil, "NOT_LEADER_OR_FOLLOWER"
	}
	return r, ""
}

// completeWaiting answers acks=all requests whose records the whole ISR
// now has (Partition.checkEnoughReplicasReachOffset): fine if the ISR is
// still at least min.insync.replicas, else NOT_ENOUGH_REPLICAS_AFTER_APPEND
// (the records stay in the log).
func (r *Replica) completeWaiting() {
	if len(r.waiting) == 0 {
		return
	}
	keep := r.waiting[:0]
	for _, w := range r.waiting {
		switch {
		case w.req.finished:
		case r.hw >= w.required:
			err := ""
			if len(r.isr) < r.p.Topic.conf.minISR {
				err = "NOT_ENOUGH_REPLICAS_AFTER_APPEND"
			}
			w.req.done(w.idx, err)
		default:
			keep = append(keep, w)
		}
	}
	for i := len(keep); i < len(r.waiting); i++ {
		r.waiting[i] = nil
	}
	r.waiting = keep
}

// failWaiting answers every waiting acks=all request with err (the replica
// stopped leading).
func (r *Replica) failWaiting(err string) {
	for _, w := range r.waiting {
		w.req.done(w.idx, err)
	}
	r.waiting = nil
}

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
	last := int32(int64(b.BaseSequence) + int64(len(b.Records)) - 1)
	if int64(b.BaseSequence)+int64(len(b.Records))-1 > math.MaxInt32 {
		last = int32(int64(b.BaseSequence) + int64(len(b.Records)) - 1 - math.MaxInt32 - 1)
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
