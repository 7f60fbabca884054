package core

import (
	"fmt"
)

const (
	replicaFetchBackoffMs = 1000  // replica.fetch.backoff.ms
	replicaSocketTimeout  = 30000 // replica.socket.timeout.ms
)

// becomeFollower is Partition.makeFollower plus the fetcher's first step:
// before 0.11 the replica truncates to its own high watermark at once
// (ReplicaManager.makeFollowers@0.10.2, the cause of KIP-101's data loss);
// from 0.11 it asks the leader where its last epoch ended
// (OffsetsForLeaderEpoch) and truncates there; from 2.8
// (preset.truncateOnFetch) it fetches at once, and the Fetch response
// says where to truncate if its log diverged (onFetchResponse).
func (r *Replica) becomeFollower(st pstate) {
	leaderChanged := r.leader != st.leader
	r.failWaiting("NOT_LEADER_OR_FOLLOWER")
	wasLeader := r.role == roleLeader
	r.role, r.leader, r.epoch = roleFollower, st.leader, st.epoch
	r.isr, r.pending, r.followers = nil, nil, nil
	b := r.b
	if wasLeader {
		b.wakeLost(r.p)
	}
	r.onLeadershipChange()
	if wasLeader {
		b.c.emit(Event{Type: EvRole, Partition: r.p.Name, Broker: b.ID, Role: RoleFollower, Leader: st.leader, Epoch: st.epoch, LEO: r.log.LEO(), HW: r.hw})
	}
	if st.leader == -1 {
		r.follow = followIdle
		return
	}
	if !b.c.preset.leaderEpochs {
		if leaderChanged || wasLeader {
			r.truncate(r.hw, TruncateHighWatermark, fmt.Sprintf("new leader %d: truncate to own high watermark %d (pre-KIP-101)", st.leader, r.hw))
		}
		r.follow = followFetching
		b.fetchFrom(st.leader)
		return
	}
	if b.c.preset.truncateOnFetch {
		// AbstractFetcherThread.partitionFetchState: Fetching, with the
		// log's latest epoch as lastFetchedEpoch (none for an empty log,
		// which has nothing to truncate).
		r.follow = followFetching
		b.fetchFrom(st.leader)
		return
	}
	r.follow = followTruncating
	b.queryEpoch(r)
}

// queryEpoch sends OffsetsForLeaderEpoch for the replica's latest epoch.
func (b *Broker) queryEpoch(r *Replica) {
	latest, ok := r.epochs.Latest()
	if !ok {
		r.follow = followFetching // empty log: nothing to truncate
		b.fetchFrom(r.leader)
		return
	}
	lb := b.c.Broker(r.leader)
	if lb == nil {
		return
	}
	epoch, inc := r.epoch, b.incarnation
	retry := func() {
		b.after(replicaFetchBackoffMs, func() {
			if r.role == roleFollower && r.epoch == epoch && r.follow == followTruncating {
				b.queryEpoch(r)
			}
		})
	}
	answered := false
	b.send(lb.node, "OffsetsForLeaderEpoch", func() {
		res := lb.handleOffsetsForLeaderEpoch(offsetsForLeaderEpochReq{replica: b.ID, parts: []epochQuery{{p: r.p, currentEpoch: epoch, leaderEpoch: latest}}})[0]
		found, end, errName := res.leaderEpoch, res.endOffset, res.err
		lb.replyTo(b, "OffsetsForLeaderEpochResponse", func() {
			if answered {
				return // timed out meanwhile: a newer request is out
			}
			answered = true
			if r.role != roleFollower || r.epoch != epoch || r.follow != followTruncating {
				return
			}
			if errName != "" {
				retry()
				return
			}
			if !r.truncateToEpoch(latest, found, end, "OffsetsForLeaderEpoch") {
				b.queryEpoch(r) // truncated part way: ask again for the new latest epoch
				return
			}
			r.follow = followFetching
			b.fetchFrom(r.leader)
		})
	}, func() {
		if !answered {
			answered = true
			b.run(inc, retry)
		}
	})
	// A request or answer lost on the way (a network split) is given up
	// after replica.socket.timeout.ms and sent again, as the fetcher thread
	// does; without this the follower waited to truncate forever.
	b.after(replicaSocketTimeout, func() {
		if !answered {
			answered = true
			if r.role == roleFollower && r.epoch == epoch && r.follow == followTruncating {
				b.queryEpoch(r)
			}
		}
	})
}

// truncateToEpoch truncates after the leader answered OffsetsForLeaderEpoch
// with the end offset of its largest epoch <= asked (found), and reports
// whether truncation is complete (AbstractFetcherThread
// .getOffsetTruncationState). An undefined answer truncates to the high
// watermark. Before 2.0 (KIP-101) the follower truncates to the leader's
// end offset. From 2.0 (KIP-279) it looks the found epoch up in its own
// cache: if it has it, it truncates to the smaller of the two ends; if it
// only has an earlier epoch, it truncates to that epoch's end and asks
// again (false), as many rounds as it takes; if it has none, to the
// leader's end. via names the answer (OffsetsForLeaderEpoch, or a
// Fetch's DivergingEpoch), for the event.
func (r *Replica) truncateToEpoch(asked, found int32, end int64, via string) bool {
	leo := r.log.LEO()
	if found < 0 || end < 0 {
		r.truncate(r.hw, TruncateHighWatermark, fmt.Sprintf("leader has no epoch <= %d: truncate to high watermark %d", asked, r.hw))
		return true
	}
	why := fmt.Sprintf("leader epoch %d ends at %d on the leader (%s)", found, end, via)
	if !r.b.c.preset.kip279 {
		r.truncate(min(end, leo), TruncateLeaderEpoch, why)
		return true
	}
	ownEpoch, ownEnd := r.endOffsetFor(found)
	switch {
	case ownEnd < 0:
		r.truncate(min(end, leo), TruncateLeaderEpoch, why)
	case ownEpoch != found:
		r.truncate(min(ownEnd, leo), TruncateLeaderEpoch, fmt.Sprintf("leader's epoch %d is not in this log: truncate to the end of its epoch %d (%d) and ask again", found, ownEpoch, ownEnd))
		return false
	default:
		r.truncate(min(ownEnd, end, leo), TruncateLeaderEpoch, why)
	}
	return true
}

// endOffsetFor is this replica's LeaderEpochFileCache.endOffsetFor, with
// the 2.1 answer below the earliest epoch (KAFKA-7415) where the version
// has KIP-279 (no preset sits between 2.0 and 2.1).
func (r *Replica) endOffsetFor(epoch int32) (int32, int64) {
	if r.b.c.preset.kip279 {
		return r.epochs.EndOffsetForSince21(epoch, r.log.LEO())
	}
	return r.epochs.EndOffsetFor(epoch, r.log.LEO())
}
