package core

import (
	"errors"

	"github.com/kafkasim/kafkasim/core/log"
)

// fetchPart is one partition of a Fetch request.
type fetchPart struct {
	p      *Partition
	offset int64
	epoch  int32
}

// fetchResult is one partition of a Fetch response.
type fetchResult struct {
	p       *Partition
	batches []*log.Batch
	hw      int64
	leo     int64
	err     string
}

// parkedFetch is a Fetch the leader holds until data arrives or its wait
// ends (DelayedFetch): followers are woken by appends, consumers by the HW
// moving, since they only read below it.
type parkedFetch struct {
	replica  int // follower id, or -1 for a consumer
	parts    []fetchPart
	maxBytes int
	respond  func([]fetchResult)
	done     bool
}

// handleFetch serves a follower's Fetch: each fetch offset is the
// follower's LEO, which may grow the ISR and advance the HW.
func (b *Broker) handleFetch(from *Broker, parts []fetchPart, respond func([]fetchResult)) {
	for _, fp := range parts {
		if r := b.replicas[fp.p]; r != nil && r.role == roleLeader && r.epoch == fp.epoch && fp.offset <= r.log.LEO() {
			r.updateFollower(from.ID, fp.offset)
		}
	}
	b.serveFetch(&parkedFetch{replica: from.ID, parts: parts, maxBytes: b.c.bc.fetchMaxBytes, respond: respond}, b.c.bc.fetchWaitMs)
}

// serveFetch answers now if there is data or an error, else parks the
// fetch for up to wait ms.
func (b *Broker) serveFetch(pf *parkedFetch, wait int64) {
	res, ready := b.readFetch(pf)
	if ready || wait <= 0 {
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
		pf.respond(res)
	})
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
	if len(b.parked) == 0 {
		return
	}
	var ready []*parkedFetch
	for _, pf := range b.parked {
		if (pf.replica < 0) != hwMoved || !pf.has(p) {
			continue
		}
		if _, ok := b.readFetch(pf); ok {
			ready = append(ready, pf)
		}
	}
	for _, pf := range ready {
		b.unpark(pf)
		res, _ := b.readFetch(pf)
		pf.respond(res)
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

// readFetch reads every partition of a fetch; ready reports whether any
// partition has data or an error (so the fetch should not wait).
func (b *Broker) readFetch(pf *parkedFetch) ([]fetchResult, bool) {
	res := make([]fetchResult, len(pf.parts))
	ready := false
	budget := pf.maxBytes
	for i, fp := range pf.parts {
		fr := b.readPart(pf.replica, fp, budget)
		res[i] = fr
		for _, bt := range fr.batches {
			budget -= bt.Size()
		}
		if fr.err != "" || len(fr.batches) > 0 {
			ready = true
		}
	}
	return res, ready
}

func (b *Broker) readPart(replica int, fp fetchPart, maxBytes int) fetchResult {
	fr := fetchResult{p: fp.p, hw: -1, leo: -1}
	r := b.replicas[fp.p]
	switch {
	case r == nil:
		fr.err = "UNKNOWN_TOPIC_OR_PARTITION"
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
	fr.hw, fr.leo = r.hw, r.log.LEO()
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
