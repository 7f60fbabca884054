package core

import (
	"fmt"
	"sort"

	"github.com/kafkasim/kafkasim/core/log"
)

// fetcher is a follower broker's fetch session with one leader broker
// (Kafka's ReplicaFetcherThread): one Fetch in flight at a time, covering
// every partition this broker follows on that leader.
type fetcher struct {
	leader   int
	inflight bool
	seq      int
}

// fetchFrom sends the next Fetch to leader if none is in flight.
func (b *Broker) fetchFrom(leader int) {
	if b.deferFetch != nil {
		b.deferFetch[leader] = true
		return
	}
	lb := b.c.Broker(leader)
	if lb == nil || b.state != stateUp {
		return
	}
	f := b.fetchers[leader]
	if f == nil {
		f = &fetcher{leader: leader}
		b.fetchers[leader] = f
	}
	if f.inflight {
		return
	}
	var parts []fetchPart
	for _, r := range b.sortedReplicas() {
		if r.role == roleFollower && r.leader == leader && r.follow == followFetching {
			fp := fetchPart{p: r.p, offset: r.log.LEO(), epoch: r.epoch, logStart: r.log.StartOffset()}
			fp.lastFetched, fp.hasLastFetched = r.lastFetchedEpoch()
			parts = append(parts, fp)
		}
	}
	if len(parts) == 0 {
		return
	}
	f.inflight = true
	f.seq++
	seq, inc := f.seq, b.incarnation
	again := func(wait int64) {
		b.run(inc, func() {
			if f.seq == seq && f.inflight {
				f.inflight = false
				b.after(wait, func() { b.fetchFrom(leader) })
			}
		})
	}
	b.send(lb.node, "Fetch", func() {
		req := fetchReq{replica: b.ID, maxWait: b.c.bc.fetchWaitMs, minBytes: 1, maxBytes: b.c.bc.fetchMaxBytes, parts: parts, leaderHints: b.c.preset.kip951}
		lb.handleFetch(req, func(res []fetchResult) {
			lb.replyTo(b, "FetchResponse", func() {
				if f.seq == seq && f.inflight {
					f.inflight = false
					b.onFetchResponse(leader, parts, res)
					b.fetchFrom(leader)
				}
			})
		})
	}, func() { again(replicaFetchBackoffMs) })
	b.after(replicaSocketTimeout, func() { again(0) })
}

// leaderReset: broker id's process died and its OS reset the sockets, so
// a Fetch in flight to it (perhaps parked in its purgatory) fails one
// network hop later instead of waiting out replica.socket.timeout.ms. The
// fetcher then backs off replica.fetch.backoff.ms before it tries again
// (AbstractFetcherThread.processFetchRequest: an exception from the
// leader endpoint marks every partition of the request as failed, and
// handlePartitionsWithErrors delays them by fetchBackOffMs). Without this
// the session stays busy until the timeout, and partitions that move to
// that broker when it returns are not fetched: their followers fall out
// of the ISR of a leader that is fine.
func (b *Broker) leaderReset(id int) {
	f := b.fetchers[id]
	if f == nil || !f.inflight || !b.processUp() {
		return
	}
	seq := f.seq
	b.after(b.c.bc.latency, func() {
		if f.seq == seq && f.inflight {
			f.inflight = false
			b.after(replicaFetchBackoffMs, func() { b.fetchFrom(id) })
		}
	})
}

// shutdownIdleFetchers drops every fetch session left with no partition
// to follow (ReplicaFetcherManager.shutdownIdleFetcherThreads, which
// ReplicaManager runs after each LeaderAndIsr or metadata delta). A Fetch
// still in flight on a dropped session is abandoned: its answer or
// timeout changes nothing, and a later session to the same leader starts
// fresh instead of waiting out replica.socket.timeout.ms behind a request
// to a broker that lost power.
func (b *Broker) shutdownIdleFetchers() {
	for id, f := range b.fetchers {
		if !b.follows(id) {
			f.seq++
			f.inflight = false
			delete(b.fetchers, id)
		}
	}
}

// follows reports whether this broker has a follower replica of leader
// id (fetching or still truncating: both belong to the fetch session).
func (b *Broker) follows(id int) bool {
	for _, r := range b.replicas {
		if r.role == roleFollower && r.leader == id {
			return true
		}
	}
	return false
}

// startDeferredFetches sends the fetches held back while a LeaderAndIsr
// was applied, in leader order.
func (b *Broker) startDeferredFetches() {
	b.shutdownIdleFetchers()
	leaders := make([]int, 0, len(b.deferFetch))
	for id := range b.deferFetch {
		leaders = append(leaders, id)
	}
	b.deferFetch = nil
	sort.Ints(leaders)
	for _, id := range leaders {
		b.fetchFrom(id)
	}
}

// onFetchResponse appends what the leader sent and adopts its HW.
func (b *Broker) onFetchResponse(leader int, parts []fetchPart, res []fetchResult) {
	backoff := false
	for i, fr := range res {
		r := b.replicas[fr.p]
		if r == nil || r.role != roleFollower || r.leader != leader || r.epoch != parts[i].epoch || r.follow != followFetching || r.log.LEO() != parts[i].offset {
			continue
		}
		switch fr.err {
		case "":
			if d := fr.diverging; d != nil {
				// truncateOnFetchResponse: truncate, take nothing else from
				// this answer (not even the HW), fetch on from the new end.
				r.truncateToEpoch(parts[i].lastFetched, d.leaderEpoch, d.endOffset, "Fetch DivergingEpoch")
				continue
			}
		case "OFFSET_OUT_OF_RANGE":
			// AbstractFetcherThread.fetchOffsetAndTruncate: a follower
			// ahead of the leader (an unclean election, or pre-0.11
			// divergence) truncates to the leader's end; one whose log
			// ends below the leader's log start (retention deleted what
			// it still needs) truncates fully and starts again at the
			// leader's log start, then catches up.
			switch {
			case fr.leo < r.log.LEO():
				r.truncate(fr.leo, TruncateOutOfRange, fmt.Sprintf("follower ahead of leader %d (LEO %d): truncate to the leader's end", leader, fr.leo))
			case fr.logStart > r.log.LEO():
				r.truncateFullyAndStartAt(fr.logStart, fmt.Sprintf("follower's end %d is below leader %d's log start %d: truncate fully and start at %d", r.log.LEO(), leader, fr.logStart, fr.logStart))
			}
			continue
		default:
			backoff = true
			continue
		}
		for _, bt := range fr.batches {
			if !r.takeFetched(leader, bt) {
				break
			}
		}
		r.setHW(min(fr.hw, r.log.LEO()))
		if b.c.preset.kip107() {
			r.followLogStart(leader, fr.logStart)
		}
	}
	if backoff {
		if f := b.fetchers[leader]; f != nil {
			f.inflight = true // hold the session for the backoff
			seq := f.seq
			b.after(replicaFetchBackoffMs, func() {
				if f.seq == seq {
					f.inflight = false
					b.fetchFrom(leader)
				}
			})
		}
	}
}

// takeFetched appends a batch from the leader's Fetch response to a
// follower's log, reporting whether the next batch may follow. A batch
// may start above the log end offset: a compacted leader log has holes
// where whole batches were cleaned away (UnifiedLog.appendAsFollower
// takes any first offset at or above the log end). One that starts below
// it is what Partition.appendRecordsToFollowerOrFutureReplica handles on
// UnexpectedAppendOffsetException: when the log is empty at its start
// (LEO == log start, after truncateFullyAndStartAt) and the batch holds
// the log end (the leader's log start, moved by DeleteRecords or
// retention, fell inside the batch), the log starts again at the batch's
// first offset and takes the whole batch; any other overlap fails the
// partition's append, and nothing after it is taken. Appending the batch
// after the overlapping one instead left a hole in the follower's log
// where the leader had records.
func (r *Replica) takeFetched(leader int, bt *log.Batch) bool {
	leo := r.log.LEO()
	if bt.BaseOffset < leo {
		if leo != r.log.StartOffset() || bt.LastOffset() < leo {
			return false
		}
		r.truncateFullyAndStartAt(bt.BaseOffset, fmt.Sprintf("leader %d's first batch %d..%d holds the log start %d: start the log at %d", leader, bt.BaseOffset, bt.LastOffset(), leo, bt.BaseOffset))
	}
	return r.append(bt) == nil
}

// lastFetchedEpoch is what a follower's Fetch carries as lastFetchedEpoch
// on presets that truncate on fetch: the latest epoch in its log
// (AbstractFetcherThread's PartitionFetchState.lastFetchedEpoch, which
// follows latestEpoch after every append and truncation); none (false)
// on other presets, or for a log with no epoch.
func (r *Replica) lastFetchedEpoch() (int32, bool) {
	if !r.b.c.preset.truncateOnFetch {
		return -1, false
	}
	return r.epochs.Latest()
}
