package core

import (
	"fmt"

	"github.com/kafkasim/kafkasim/core/log"
)

type bufRecord struct {
	p      *Partition
	offset int64
	rec    log.Record
}

// maxBuffered bounds a manual consumer's prefetch buffer.
const maxBuffered = 100_000

// pump starts whatever the consumer needs next: positions for new
// partitions, then fetches to each leader.
func (k *Consumer) pump() {
	if !k.alive {
		return
	}
	for _, p := range k.assigned {
		if _, ok := k.pos[p]; !ok && !k.resetting[p] && k.failed[p] == "" {
			k.initPosition(p)
		}
	}
	if k.conf.manual && len(k.buffer) >= maxBuffered || k.holdRecords() {
		return
	}
	leaders := map[int][]fetchPart{}
	var order []int
	for _, p := range k.assigned {
		pos, ok := k.pos[p]
		if !ok || k.failed[p] != "" {
			continue
		}
		l := k.meta.leader(p)
		if l < 0 {
			if !k.meta.lostTopic(p) {
				k.meta.refresh()
			}
			continue
		}
		if k.fetching[l] || !k.conns.ready(l) {
			continue
		}
		if k.buffered[p] > 0 {
			// Fetcher.fetchablePartitions: no new fetch for a partition
			// while records fetched for it wait to be returned by poll.
			continue
		}
		if leaders[l] == nil {
			order = append(order, l)
		}
		epoch := int32(-1)
		if e, ok := k.meta.epochs[p]; ok && k.c.preset.clientEpochs {
			epoch = e // KIP-320: the leader checks it (FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH)
		}
		leaders[l] = append(leaders[l], fetchPart{p: p, offset: pos, epoch: epoch})
	}
	for _, l := range order {
		k.fetch(l, leaders[l])
	}
}

// fetch sends one Fetch to leader l for parts.
func (k *Consumer) fetch(l int, parts []fetchPart) {
	c := k.c
	b := c.Broker(l)
	k.fetching[l] = true
	k.fetchSeq[l]++
	seq := k.fetchSeq[l]
	finish := func() bool {
		if !k.fetching[l] || k.fetchSeq[l] != seq {
			return false
		}
		k.fetching[l] = false
		return true
	}
	k.send(b, "Fetch", func() {
		req := fetchReq{replica: -1, maxWait: k.conf.fetchWaitMs, minBytes: 1, maxBytes: k.conf.maxPartBytes * len(parts), parts: parts, leaderHints: k.c.preset.kip951}
		b.handleFetch(req, func(res []fetchResult) {
			k.reply(b, "FetchResponse", func() {
				if finish() {
					k.onFetch(parts, res)
					k.pump()
				}
			})
		})
	}, func() {
		if finish() {
			k.lostConnection(l, "connection refused")
		}
	})
	k.after(k.conf.requestTimeout, func() {
		if finish() {
			k.lostConnection(l, "request timed out")
		}
	})
}

func (k *Consumer) lostConnection(l int, why string) {
	k.conns.failed(l, why)
	k.meta.refresh()
	k.pump()
}

// brokerReset: broker id's process died; an in-flight fetch to it fails
// one network hop later.
func (k *Consumer) brokerReset(id int) {
	if m, ok := k.member.(*member); ok && k.alive {
		m.connectionReset(id)
	}
	if !k.alive || !k.fetching[id] {
		return
	}
	seq := k.fetchSeq[id]
	k.after(k.c.bc.latency, func() {
		if k.fetching[id] && k.fetchSeq[id] == seq {
			k.fetching[id] = false
			k.lostConnection(id, "connection reset")
		}
	})
}

// onFetch takes records at or after each position (a fetch returns whole
// batches): poll=auto hands them to the application at once, poll=manual
// buffers them for the next poll.
func (k *Consumer) onFetch(parts []fetchPart, res []fetchResult) {
	if !k.conf.manual && k.member != nil {
		// poll=auto: each fetch response is the application's next poll,
		// which auto-commits what the previous ones returned first.
		k.member.onPoll()
	}
	for i, fr := range res {
		p := fr.p
		pos, ok := k.pos[p]
		if !ok || pos != parts[i].offset || !k.owns(p) || k.holdRecords() {
			continue // (held: the records are dropped and fetched again later)
		}
		switch fr.err {
		case "":
		case "OFFSET_OUT_OF_RANGE":
			if k.conf.reset == "none" {
				// FetchCollector.handleInitializeErrors: no reset policy,
				// so poll throws; the position stays where it was.
				k.fail(p, "OffsetOutOfRangeException", fmt.Sprintf("Fetch position %d is out of range for partition %s", pos, p.Name))
				continue
			}
			k.c.emit(Event{Type: EvConsumerInfo, Consumer: k.Name, Partition: p.Name, Offset: pos, Error: fr.err, Detail: fmt.Sprintf("%s %s: offset %d out of range (OFFSET_OUT_OF_RANGE): reset (auto.offset.reset=%s)", k.Name, p.Name, pos, k.conf.reset)})
			// Fetcher.handleOffsetOutOfRange: the position is reset by
			// auto.offset.reset, not from the committed offset.
			k.c.history.reset(ResetRecord{Consumer: k.Name, Group: k.Group, Partition: p.Name, From: pos, At: k.c.now})
			delete(k.pos, p)
			k.resetPosition(p)
			continue
		default:
			k.takeLeader(p, fr)
			k.meta.refresh()
			continue
		}
		var run []log.Record // poll=auto: one hand-out per partition and fetch
		runStart := int64(-1)
		for _, bt := range fr.batches {
			for _, rn := range batchRuns(bt, pos) {
				recs, base := rn.recs, rn.base
				switch {
				case k.conf.manual:
					for j, rec := range recs {
						k.buffer = append(k.buffer, bufRecord{p: p, offset: base + int64(j), rec: rec})
					}
					k.buffered[p] += len(recs)
				case run == nil:
					run, runStart = recs, base
				case runStart+int64(len(run)) == base:
					run = append(run[:len(run):len(run)], recs...) // copies: batches are shared
				default:
					k.handOut(p, runStart, run)
					run, runStart = recs, base
				}
			}
			// The fetch position passes the whole batch, gaps a clean
			// left included (CompletedFetch: nextFetchOffset = lastOffset+1).
			pos = max(pos, bt.LastOffset()+1)
		}
		if run != nil {
			k.handOut(p, runStart, run)
		}
		k.pos[p] = pos
	}
	if !k.conf.manual {
		k.pollDone()
	}
}

// recordRun is a run of records at consecutive offsets from base.
type recordRun struct {
	base int64
	recs []log.Record
}

// batchRuns is bt's records at offsets >= pos in runs of consecutive
// offsets: one run for a batch as appended, one per gap-free stretch for
// a batch the log cleaner rewrote (LogCleaner: offsets never change, so
// a cleaned batch has gaps).
func batchRuns(bt *log.Batch, pos int64) []recordRun {
	if bt.OffsetDeltas == nil {
		recs, base := bt.Records, bt.BaseOffset
		if base < pos {
			if pos-base >= int64(len(recs)) {
				return nil
			}
			recs, base = recs[pos-base:], pos
		}
		return []recordRun{{base, recs}}
	}
	var out []recordRun
	for i := range bt.Len() {
		o := bt.Offset(i)
		if o < pos {
			continue
		}
		if n := len(out); n > 0 && out[n-1].base+int64(len(out[n-1].recs)) == o {
			out[n-1].recs = append(out[n-1].recs, bt.Records[i])
			continue
		}
		out = append(out, recordRun{o, []log.Record{bt.Records[i]}})
	}
	return out
}

// takeLeader is AbstractFetch.handleFetchSuccess's KIP-951 step: a newer
// leader the broker named with its error is taken into the consumer's
// metadata (Metadata.updatePartitionLeadership), so the next fetch for p
// goes to it without waiting for the metadata refresh the error also asks
// for.
func (k *Consumer) takeLeader(p *Partition, fr fetchResult) {
	if !k.meta.takeLeader(p, fr.leader) {
		return
	}
	k.c.emit(Event{Type: EvConsumerInfo, Consumer: k.Name, Partition: p.Name, Error: fr.err, Detail: fmt.Sprintf("%s %s: %s; the broker named broker %d the leader (epoch %d, KIP-951): fetching from it", k.Name, p.Name, fr.err, fr.leader.LeaderID, fr.leader.LeaderEpoch)})
}

// handOut returns a run of consecutive records of p (first at offset
// base) to the application: history, one event, the position.
func (k *Consumer) handOut(p *Partition, base int64, recs []log.Record) {
	c := k.c
	if !c.history.off {
		for j, rec := range recs {
			c.history.consume(Delivery{Consumer: k.Name, Group: k.Group, Partition: p.Name, Offset: base + int64(j), Value: rec.Value, At: c.now, Session: k.session, Gen: p.Topic.gen})
		}
	}
	if !c.quiet {
		c.emit(Event{Type: EvConsume, Consumer: k.Name, Group: k.Group, Partition: p.Name, Offset: base, Records: recs})
	}
	k.next[p] = base + int64(len(recs))
	k.polled += len(recs)
}

// pollDone ends a poll (max.poll.interval.ms counts from here); the
// auto-commit ran at its start (member.onPoll).
func (k *Consumer) pollDone() {
	k.lastPoll = k.c.now
}

// deliver returns up to n buffered records to the application (the end of
// a manual poll).
func (k *Consumer) deliver(n int) int {
	n = min(n, len(k.buffer))
	recs := k.buffer[:n]
	for i := 0; i < n; {
		j := i + 1
		for j < n && recs[j].p == recs[i].p && recs[j].offset == recs[j-1].offset+1 {
			j++
		}
		run := make([]log.Record, 0, j-i)
		for _, br := range recs[i:j] {
			run = append(run, br.rec)
		}
		k.handOut(recs[i].p, recs[i].offset, run)
		k.buffered[recs[i].p] -= len(run)
		i = j
	}
	k.buffer = append(k.buffer[:0], k.buffer[n:]...)
	k.pollDone()
	return n
}

// holdRecords reports that poll returns no records now: the member's
// onJoinPrepare auto-commit is in flight, and either its partitions are
// pending revocation (eager protocol, 3.3+: SubscriptionState
// .markPendingRevocation, so the fetcher neither fetches them nor returns
// what it fetched, KAFKA-14196) or the commit is synchronous and poll
// blocks in it (before 3.3: maybeAutoCommitOffsetsSync). Otherwise
// records handed out after the commit was sent would be past what it
// stores, and the partition's next owner would get them again.
func (k *Consumer) holdRecords() bool {
	m, ok := k.member.(*member)
	return ok && m.committing && (!m.cooperative || !k.c.preset.asyncJoinCommit)
}
