package core

import (
	"errors"

	"github.com/kafkasim/kafkasim/core/log"
)

// fetchReq is a Fetch request: from a follower (replica >= 0, reading up
// to the leader's LEO) or a consumer (replica -1, reading up to the HW).
// The leader holds it up to maxWait ms until at least minBytes are
// readable (DelayedFetch); maxBytes bounds the whole response, each
// partition's maxBytes (0: no bound of its own) its share, and the first
// batch is returned even if larger (KIP-74).
type fetchReq struct {
	replica  int
	maxWait  int64
	minBytes int
	maxBytes int
	parts    []fetchPart
	// leaderHints: the request's version carries KIP-951's current leader
	// (Fetch v16+), so the broker names it with NOT_LEADER_OR_FOLLOWER and
	// FENCED_LEADER_EPOCH (namingFetchLeaders).
	leaderHints bool
}

// fetchPart is one partition of a Fetch request.
type fetchPart struct {
	p        *Partition
	offset   int64
	epoch    int32 // the fetcher's current leader epoch (KIP-320), -1: not checked
	maxBytes int   // max partition bytes; 0: only the request's bound
	logStart int64 // a follower's log start offset (FetchRequest.PartitionData.logStartOffset)
	// lastFetched is a follower's lastFetchedEpoch (Fetch v12+, 2.8+:
	// preset.truncateOnFetch), the latest epoch in its log, when
	// hasLastFetched (the zero value: none, as consumers send).
	lastFetched    int32
	hasLastFetched bool
}

// fetchResult is one partition of a Fetch response.
type fetchResult struct {
	p        *Partition
	batches  []*log.Batch
	hw       int64
	leo      int64
	logStart int64
	err      string
	leader   *LeaderHint // KIP-951: the current leader the broker names with NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH (namingFetchLeaders)
	// diverging is the DivergingEpoch of a follower whose log diverged
	// from the leader's (divergence); no batches come with it.
	diverging *epochEnd
}

// parkedFetch is a Fetch the leader holds until data arrives or its wait
// ends (DelayedFetch): followers are woken by appends, consumers by the HW
// moving, since they only read below it.
type parkedFetch struct {
	replica  int // follower id, or -1 for a consumer
	parts    []fetchPart
	maxBytes int
	minBytes int
	respond  func([]fetchResult)
	done     bool
}

// maxParkedFetches bounds the fetches one broker holds; past it a fetch is
// answered at once, as if its max wait were 0.
const maxParkedFetches = 100_000

// handleFetch is ReplicaManager.fetchMessages on the leader. A follower's
// fetch offsets are its LEO, which may grow the ISR and advance the HW
// before the read.
func (b *Broker) handleFetch(req fetchReq, respond func([]fetchResult)) {
	if req.replica >= 0 {
		for _, fp := range req.parts {
			if r := b.replicas[fp.p]; r != nil && r.role == roleLeader && r.epoch == fp.epoch && fp.offset <= r.log.LEO() && r.divergence(fp) == nil {
				r.updateFollower(req.replica, fp.offset, fp.logStart)
			}
		}
	}
	if req.leaderHints {
		respond = b.namingFetchLeaders(respond)
	}
	b.serveFetch(&parkedFetch{replica: req.replica, parts: req.parts, maxBytes: req.maxBytes, minBytes: req.minBytes, respond: respond}, req.maxWait)
}

// serveFetch answers now if there is data or an error, else parks the
// fetch for up to wait ms.
func (b *Broker) serveFetch(pf *parkedFetch, wait int64) {
	res, ready := b.readFetch(pf)
	if ready || wait <= 0 || len(b.parked) >= maxParkedFetches {
		pf.respond(res)
		return
	}
	b.parked = append(b.parked, pf)
	b.after(wait, func() {
		if pf.done {
			return
		}
		b.unpark(pf)
		res, _ := b.readFetch(pf)
		pf.answer(res)
	})
}

// answer responds once. The max-wait timer keeps pf until it fires; a
// fetch woken early must not keep its response's closure that long.
func (pf *parkedFetch) answer(res []fetchResult) {
	respond := pf.respond
	pf.respond = nil
	respond(res)
}

func (b *Broker) unpark(pf *parkedFetch) {
	pf.done = true
	for i, x := range b.parked {
		if x == pf {
			b.parked = append(b.parked[:i], b.parked[i+1:]...)
			return
		}
	}
}

// wakeParked answers parked fetches on p that now have data: follower
// fetches after an append (hwMoved false), consumer fetches after the HW
// moved (hwMoved true).
func (b *Broker) wakeParked(p *Partition, hwMoved bool) {
	if b.queueing {
		b.queued = append(b.queued, parkedWake{p, hwMoved})
		return
	}
	b.completeParked(p, func(pf *parkedFetch) bool { return (pf.replica < 0) == hwMoved })
}

// parkedWake is a wakeParked call held back by queueWakes.
type parkedWake struct {
	p       *Partition
	hwMoved bool
}

// queueWakes holds wakeParked calls back until the returned func runs
// them in order (ActionQueue.tryCompleteActions at the end of
// KafkaApis.handle) on presets with an action queue; elsewhere, and when
// already queueing, it returns a func that does nothing.
func (b *Broker) queueWakes() (run func()) {
	if !b.c.preset.actionQueue || b.queueing {
		return func() {}
	}
	b.queueing = true
	return func() {
		b.queueing = false
		q := b.queued
		b.queued = nil
		for _, w := range q {
			b.wakeParked(w.p, w.hwMoved)
		}
	}
}

// wakeLost answers at once the parked fetches on p, followers' and
// consumers' alike, when this broker stops leading p: ReplicaManager
// .makeFollowers (ZooKeeper) and applyLocalFollowersDelta (KRaft) call
// completeDelayedFetchOrProduceRequests, and DelayedFetch.tryComplete
// completes a fetch whose partition this broker no longer leads (its cases
// A-C: NOT_LEADER_OR_FOLLOWER, UNKNOWN_TOPIC_OR_PARTITION). The fetcher
// learns of the change then, not fetch.max.wait.ms later.
func (b *Broker) wakeLost(p *Partition) {
	b.completeParked(p, func(*parkedFetch) bool { return true })
}

// completeParked answers the parked fetches on p that match and are ready
// (DelayedFetch.tryComplete: data, or an error in any partition).
func (b *Broker) completeParked(p *Partition, match func(*parkedFetch) bool) {
	if len(b.parked) == 0 {
		return
	}
	var ready []*parkedFetch
	for _, pf := range b.parked {
		if !pf.has(p) || !match(pf) {
			continue
		}
		if _, ok := b.readFetch(pf); ok {
			ready = append(ready, pf)
		}
	}
	for _, pf := range ready {
		b.unpark(pf)
		res, _ := b.readFetch(pf)
		pf.answer(res)
	}
}

func (pf *parkedFetch) has(p *Partition) bool {
	for _, fp := range pf.parts {
		if fp.p == p {
			return true
		}
	}
	return false
}

// readFetch reads every partition of a fetch; ready reports whether the
// fetch should not wait: some partition has an error, or at least
// minBytes were read (with minBytes <= 1: any data).
func (b *Broker) readFetch(pf *parkedFetch) ([]fetchResult, bool) {
	res := make([]fetchResult, len(pf.parts))
	ready := false
	budget, read := pf.maxBytes, 0
	for i, fp := range pf.parts {
		limit := budget
		if fp.maxBytes > 0 {
			limit = min(limit, fp.maxBytes)
		}
		fr := b.readPart(pf.replica, fp, limit)
		res[i] = fr
		for _, bt := range fr.batches {
			budget -= bt.Size()
			read += bt.Size()
		}
		if fr.err != "" || fr.diverging != nil || len(fr.batches) > 0 && read >= pf.minBytes {
			ready = true
		}
	}
	return res, ready
}

func (b *Broker) readPart(replica int, fp fetchPart, maxBytes int) fetchResult {
	fr := fetchResult{p: fp.p, hw: -1, leo: -1, logStart: -1}
	r := b.replicas[fp.p]
	switch {
	case r == nil:
		// ReplicaManager.getPartitionOrException: a partition this broker
		// does not host but its metadata knows is NOT_LEADER_OR_FOLLOWER
		// (the client's metadata is stale), as for Produce (leaderFor).
		fr.err = "UNKNOWN_TOPIC_OR_PARTITION"
		if _, known := b.cache[fp.p]; known {
			fr.err = "NOT_LEADER_OR_FOLLOWER"
		}
		return fr
	case r.role != roleLeader:
		fr.err = "NOT_LEADER_OR_FOLLOWER"
		return fr
	case fp.epoch >= 0 && fp.epoch < r.epoch:
		fr.err = "FENCED_LEADER_EPOCH"
		return fr
	case fp.epoch > r.epoch:
		fr.err = "UNKNOWN_LEADER_EPOCH"
		return fr
	}
	fr.hw, fr.leo, fr.logStart = r.hw, r.log.LEO(), r.log.StartOffset()
	if d := r.divergence(fp); d != nil {
		if d.err != "" {
			fr.err = d.err
		} else {
			fr.diverging = d
		}
		return fr
	}
	limit := fr.leo
	if replica < 0 {
		limit = r.hw // consumers read committed data only
	}
	if maxBytes <= 0 || fp.offset >= limit && fp.offset <= fr.leo && fp.offset >= r.log.StartOffset() {
		return fr // nothing to read (or the response is full): HW and LEO only
	}
	rd, err := r.log.Read(fp.offset, maxBytes, limit)
	if errors.Is(err, log.ErrOffsetOutOfRange) {
		fr.err = "OFFSET_OUT_OF_RANGE"
		return fr
	}
	fr.batches = rd.Batches
	return fr
}

// divergence is Partition.readRecords' check of a follower's
// lastFetchedEpoch, before anything is read: nil when the fetch has none
// or the follower's log agrees with this leader's up to the fetch offset;
// else the largest epoch <= lastFetchedEpoch in this log and where it
// ends here, the DivergingEpoch the follower truncates to, when that
// epoch is an earlier one or ends below the fetch offset. An epoch this
// log cannot place, or a fetch offset below the log start, is
// OFFSET_OUT_OF_RANGE (err).
func (r *Replica) divergence(fp fetchPart) *epochEnd {
	if !fp.hasLastFetched {
		return nil
	}
	found, end := r.endOffsetFor(fp.lastFetched)
	switch {
	case found < 0 || end < 0, fp.offset < r.log.StartOffset():
		return &epochEnd{p: fp.p, leaderEpoch: -1, endOffset: -1, err: "OFFSET_OUT_OF_RANGE"}
	case found < fp.lastFetched || end < fp.offset:
		return &epochEnd{p: fp.p, leaderEpoch: found, endOffset: end}
	}
	return nil
}
