package core

import (
	"fmt"
	"slices"
)

// DeleteRecords on the partition leaders (KIP-107, 0.11+): the leader
// moves its log start offset up, its followers take it from their next
// Fetch response (followLogStart) and tell it back in their next Fetch
// request, and the answer waits until every replica's log start reached
// the offset (DelayedDeleteRecords). Segments wholly below a log start
// go at each broker's next retention check (DeleteBelowStart).

// recordsDelete is one partition of a DeleteRecords request.
type recordsDelete struct {
	p      *Partition
	offset int64 // -1: the high watermark
}

// recordsDeleteResult is one partition's answer (LogDeleteRecordsResult
// and DeleteRecordsPartitionResult): the low watermark, -1 on error.
type recordsDeleteResult struct {
	lowWatermark int64
	err          string
}

// recordsDeleteWait is a DelayedDeleteRecords in the broker's purgatory:
// pending marks the partitions whose low watermark has not reached
// required yet (DeleteRecordsPartitionStatus.acksPending).
type recordsDeleteWait struct {
	parts    []*Partition
	required []int64
	pending  []bool
	res      []recordsDeleteResult
	respond  func([]recordsDeleteResult)
	finished bool
}

// deleteRecords is ReplicaManager.deleteRecords: each partition on this
// broker's leader replica (deleteRecordsOnLeader); when some moved its
// log start past the low watermark the answer waits, up to timeout ms,
// for the replicas to catch up, and a partition still short then is
// answered REQUEST_TIMED_OUT with the low watermark it had.
func (b *Broker) deleteRecords(timeout int64, parts []recordsDelete, respond func([]recordsDeleteResult)) {
	w := &recordsDeleteWait{respond: respond}
	wait := false
	for _, d := range parts {
		required, res := b.deleteRecordsOnLeader(d)
		w.parts, w.required, w.res = append(w.parts, d.p), append(w.required, required), append(w.res, res)
		pending := res.err == "" && res.lowWatermark < required
		w.pending = append(w.pending, pending)
		wait = wait || pending
	}
	if !wait {
		respond(w.res)
		return
	}
	for i, pending := range w.pending {
		if pending {
			w.res[i].err = "REQUEST_TIMED_OUT" // cleared when the replicas catch up
		}
	}
	b.recordDeletes = append(b.recordDeletes, w)
	b.after(max(timeout, 0), func() { b.finishRecordsDelete(w) })
}

// deleteRecordsOnLeader is ReplicaManager.deleteRecordsOnLocalLog and
// Partition.deleteRecordsOnLeader for one partition: internal topics
// are refused (INVALID_TOPIC_EXCEPTION), then a broker that does not
// lead it (NOT_LEADER_OR_FOLLOWER, UNKNOWN_TOPIC_OR_PARTITION), a topic
// whose cleanup.policy has no delete (POLICY_VIOLATION: "Records of
// partition ... can not be deleted due to the configured policy") and an
// offset below 0 or above the high watermark (OFFSET_OUT_OF_RANGE,
// UnifiedLog.maybeIncrementLogStartOffset); -1 is the high watermark. The
// log start only moves up: an offset at or below it changes nothing and
// is answered at once, with the low watermark. It returns the offset the
// low watermark must reach.
func (b *Broker) deleteRecordsOnLeader(d recordsDelete) (int64, recordsDeleteResult) {
	fail := func(err string) (int64, recordsDeleteResult) {
		return -1, recordsDeleteResult{lowWatermark: -1, err: err}
	}
	if d.p.Topic.Internal {
		return fail("INVALID_TOPIC_EXCEPTION")
	}
	r, err := b.leaderFor(d.p)
	switch {
	case err != "":
		return fail(err)
	case !d.p.Topic.conf.deleteRetention:
		return fail("POLICY_VIOLATION")
	}
	offset := d.offset
	if offset == -1 {
		offset = r.hw // DeleteRecordsRequest.HIGH_WATERMARK
	}
	if offset < 0 || offset > r.hw {
		return fail("OFFSET_OUT_OF_RANGE")
	}
	if r.log.IncrementStartOffset(offset, r.hw) {
		r.epochs.TruncateFromStart(offset)
		b.c.emit(Event{Type: EvInfo, Partition: r.p.Name, Broker: b.ID, Offset: offset,
			Detail: fmt.Sprintf("%s@%d log start %d (DeleteRecords)", r.p.Name, b.ID, offset)})
	}
	return offset, recordsDeleteResult{lowWatermark: r.lowWatermark()}
}

// lowWatermark is Partition.lowWatermarkIfLeader: the smallest log start
// offset of the leader's and its followers' on brokers the metadata
// names live, as the followers last reported them in their Fetch
// requests (-1 for one that has not fetched since this broker became
// leader).
func (r *Replica) lowWatermark() int64 {
	lw := r.log.StartOffset()
	for _, id := range r.p.replicas {
		if fs := r.followers[id]; id != r.b.ID && fs != nil && r.b.c.md.live(id) && fs.logStart < lw {
			lw = fs.logStart
		}
	}
	return lw
}

// checkRecordDeletes is DelayedDeleteRecords.tryComplete for the waits
// on p, after its low watermark or high watermark moved
// (Partition.tryCompleteDelayedRequests): a partition is done once its
// leader's low watermark reached the offset, or with an error once this
// broker no longer leads it; a wait with every partition done is
// answered.
func (b *Broker) checkRecordDeletes(p *Partition) {
	for _, w := range slices.Clone(b.recordDeletes) {
		if !slices.Contains(w.parts, p) {
			continue
		}
		left := false
		for i, q := range w.parts {
			if !w.pending[i] {
				continue
			}
			r := b.replicas[q]
			switch {
			case r == nil:
				w.pending[i], w.res[i] = false, recordsDeleteResult{lowWatermark: -1, err: "UNKNOWN_TOPIC_OR_PARTITION"}
			case r.role != roleLeader:
				w.pending[i], w.res[i] = false, recordsDeleteResult{lowWatermark: -1, err: "NOT_LEADER_OR_FOLLOWER"}
			case r.lowWatermark() >= w.required[i]:
				w.pending[i], w.res[i] = false, recordsDeleteResult{lowWatermark: r.lowWatermark()}
			default:
				left = true
			}
		}
		if !left {
			b.finishRecordsDelete(w)
		}
	}
}

// finishRecordsDelete answers w once (DelayedDeleteRecords.onComplete).
func (b *Broker) finishRecordsDelete(w *recordsDeleteWait) {
	if w.finished {
		return
	}
	w.finished = true
	b.recordDeletes = slices.DeleteFunc(b.recordDeletes, func(x *recordsDeleteWait) bool { return x == w })
	w.respond(w.res)
}

// adminDeleteRecordsTimeoutMs is the timeout of the Admin client's
// DeleteRecords request (request.timeout.ms, 30 s), which the
// DeleteRecords command's request carries.
const adminDeleteRecordsTimeoutMs = 30_000

// deleteRecords applies the DeleteRecords command: the request reaches
// the partition's leader as the metadata names it (the Admin client
// sends it there) and its answer is an event.
func (c *Cluster) deleteRecords(x DeleteRecords) error {
	p, err := c.Partition(x.Partition)
	if err != nil {
		return fmt.Errorf("UNKNOWN_TOPIC_OR_PARTITION: %v", err)
	}
	if !c.preset.kip107() {
		return fmt.Errorf("DeleteRecords needs 0.11 or later (KIP-107); this cluster is %s", c.Version())
	}
	b := c.Broker(p.Leader())
	if b == nil || b.state != stateUp {
		return fmt.Errorf("LEADER_NOT_AVAILABLE: %s has no leader up", p.Name)
	}
	sync, refused := true, ""
	b.deleteRecords(adminDeleteRecordsTimeoutMs, []recordsDelete{{p: p, offset: x.Offset}}, func(res []recordsDeleteResult) {
		r := res[0]
		if sync && r.err != "" {
			refused = r.err
			return
		}
		detail := fmt.Sprintf("DeleteRecords of %s answered: low watermark %d", p.Name, r.lowWatermark)
		if r.err != "" {
			detail = fmt.Sprintf("DeleteRecords of %s answered %s (low watermark %d)", p.Name, r.err, r.lowWatermark)
		}
		c.emit(Event{Type: EvInfo, Partition: p.Name, Broker: b.ID, Offset: r.lowWatermark, Detail: detail})
	})
	sync = false
	if refused != "" {
		return fmt.Errorf("%s: DeleteRecords of %s to %d refused", refused, p.Name, x.Offset)
	}
	return nil
}
