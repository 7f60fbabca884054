package core

import (
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
	// leaderHints: the request's version carries KIP-951's current leader
	// (Produce v10+), so the broker names it with NOT_LEADER_OR_FOLLOWER
	// (namingLeaders).
	leaderHints bool
	// hwOnly (with acks -1): 4.0's group coordinator writing
	// (CoordinatorPartitionWriter.append: requiredAcks = 1, so
	// Partition.appendRecordsToLeader checks no min.insync.replicas) and
	// waiting for the high watermark to pass the records
	// (CoordinatorRuntime's deferredEventQueue, onHighWatermarkUpdated):
	// never NOT_ENOUGH_REPLICAS(_AFTER_APPEND), and no timeout here, the
	// runtime's write timeout is the caller's (appendInternalAt).
	hwOnly bool
}

// producePart is one partition's batch. Each batch carries its own
// producer epoch, as Kafka's record batches do: after an epoch bump a
// partition's batches of the old epoch are still retried with it.
type producePart struct {
	p       *Partition
	records []log.Record
	packed  *log.Packed // a real client's records, kept packed (then records only describe them)
	baseSeq int32
	pepoch  int16
	// createTime is the batch's first timestamp as an outside client
	// stamped it, used when clientTime is set; the core's own producers
	// leave it unset and the leader stamps its clock.
	createTime int64
	clientTime bool
}

// hasNullKey reports whether a record has no key.
func (pp *producePart) hasNullKey() bool {
	if pp.packed != nil {
		return pp.packed.HasNullKey() // no inflating a lazily packed batch
	}
	for _, r := range pp.records {
		if !r.HasKey {
			return true
		}
	}
	return false
}

// count is the number of records.
func (pp *producePart) count() int {
	if pp.packed != nil {
		return pp.packed.Len()
	}
	return len(pp.records)
}

// produceResult is one partition's answer: the batch's base offset or an
// error name (Kafka's Errors enum).
type produceResult struct {
	p          *Partition
	offset     int64
	err        string
	dup        bool
	appendTime int64       // the leader's AppendTime for a LogAppendTime topic, else -1
	leader     *LeaderHint // KIP-951: the current leader the broker names with NOT_LEADER_OR_FOLLOWER (namingLeaders)
}

// pendingProduce is an acks=all request in purgatory (DelayedProduce).
type pendingProduce struct {
	results   []produceResult
	remaining int
	respond   func([]produceResult)
	finished  bool
	hwOnly    bool // produceReq.hwOnly
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
		respond := pp.respond
		// The timeout timer keeps pp until request.timeout.ms is over;
		// it must not keep the request (its records) that long too, as
		// Kafka's DelayedProduce leaves the timer wheel on completion.
		pp.respond = nil
		respond(pp.results)
	}
}

// handleProduce is ReplicaManager.appendRecords on the leader. respond
// runs once with every partition's result: at once, or for acks=all when
// the ISR has the records (or the request timed out). The fetches its
// appends unblock are woken after the response on 2.7+ (queueWakes),
// after each partition's append before.
func (b *Broker) handleProduce(req *produceReq, respond func([]produceResult)) {
	defer b.queueWakes()()
	if respond != nil && req.leaderHints {
		respond = b.namingLeaders(respond)
	}
	results := make([]produceResult, len(req.parts))
	var waits []*Replica
	var waitIdx []int
	for i, pp := range req.parts {
		results[i] = produceResult{p: pp.p, offset: -1, appendTime: -1}
		r, err := b.leaderFor(pp.p)
		if err == "" && req.acks == -1 && !req.hwOnly && len(r.isr) < r.p.Topic.conf.minISR {
			err = "NOT_ENOUGH_REPLICAS" // checked before the append: nothing is written
		}
		if err == "" && r.p.Topic.conf.compact && pp.hasNullKey() {
			// LogValidator.validateKey@3.9: "Compacted topic cannot accept
			// message without key", an InvalidRecordException answered
			// INVALID_RECORD (KIP-467, 2.4+; CORRUPT_MESSAGE before).
			err = "CORRUPT_MESSAGE"
			if b.c.preset.invalidRecord {
				err = "INVALID_RECORD"
			}
		}
		if err == "" && req.pid >= 0 {
			if off, e := r.checkSequence(req.pid, pp.pepoch, pp.baseSeq, pp.count()); e != "" || off >= 0 {
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
					last := off + int64(pp.count()) - 1
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
		if pp.packed != nil {
			bt.Records, bt.Packed = nil, pp.packed
		}
		if req.pid < 0 {
			bt.BaseSequence = -1
		}
		if pp.clientTime {
			bt.Timestamp = pp.createTime
		}
		if r.p.Topic.conf.logAppendTime {
			// LogValidator with LOG_APPEND_TIME: the batch keeps its first
			// timestamp and gets the broker's clock as max timestamp.
			bt.LogAppendTime, bt.AppendTime = true, b.c.now
			results[i].appendTime = b.c.now
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
		} else if req.acks == -1 && !req.hwOnly && len(r.isr) < r.p.Topic.conf.minISR {
			results[i].err = "NOT_ENOUGH_REPLICAS_AFTER_APPEND"
		}
	}
	if req.acks == 0 {
		// acks=0: no response goes to the client; respond (if any) hears
		// the results at once, so the caller can close the connection on
		// an error as KafkaApis does.
		if respond != nil {
			respond(results)
		}
		return
	}
	if len(waits) == 0 {
		respond(results)
		return
	}
	pp := &pendingProduce{results: results, remaining: len(waits), respond: respond, hwOnly: req.hwOnly}
	for k, r := range waits {
		r.waiting = append(r.waiting, &pendingAck{required: results[waitIdx[k]].offset + int64(req.parts[waitIdx[k]].count()), idx: waitIdx[k], req: pp})
	}
	if req.hwOnly {
		return
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
			if len(r.isr) < r.p.Topic.conf.minISR && !w.req.hwOnly {
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
