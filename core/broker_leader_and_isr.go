package core

import "slices"

// leaderAndIsrReq is the controller's word on partition states: ZK mode's
// LeaderAndIsr (with UpdateMetadata folded in: every partition's state goes
// to the metadata cache), or in KRaft the partition records the broker
// fetched from the metadata log (its controller epoch is then constant).
type leaderAndIsrReq struct {
	ctrlEpoch int
	parts     []partUpdate
	// cacheOnly: only the metadata cache takes the states. It is the
	// word to the leader of an ISR change it made itself, whose replica
	// has the change already or from the answer to its request.
	cacheOnly bool
}

// handleLeaderAndIsr applies partition states from the controller: the
// metadata cache for all of them, and role changes for the partitions this
// broker hosts (ReplicaManager.becomeLeaderOrFollower). A request from a
// deposed controller (older epoch) is ignored.
func (b *Broker) handleLeaderAndIsr(req leaderAndIsrReq) {
	ups, ctrlEpoch := req.parts, req.ctrlEpoch
	if ctrlEpoch < b.ctrlEpoch {
		return // a deposed controller
	}
	b.ctrlEpoch = ctrlEpoch
	b.metaSeen = true // it knows the live brokers now, partitions or none
	// Like ReplicaManager.becomeLeaderOrFollower, apply every partition
	// first, then start the fetchers once, so the first Fetch to each
	// leader covers all the partitions it leads.
	b.deferFetch = map[int]bool{}
	defer b.startDeferredFetches()
	for _, u := range ups {
		if old, ok := b.cache[u.p]; ok && (u.st.epoch < old.epoch || u.st.epoch == old.epoch && u.st.version < old.version) {
			continue // stale
		}
		b.cache[u.p] = u.st
		if !req.cacheOnly && slices.Contains(u.p.replicas, b.ID) {
			b.applyState(u.p, u.st)
		}
	}
}

func (b *Broker) applyState(p *Partition, st pstate) {
	r := b.replicas[p]
	if r == nil {
		r = newReplica(b, p, b.c.now)
		b.replicas[p] = r
	}
	switch {
	case st.leader == b.ID && (r.role != roleLeader || r.epoch != st.epoch):
		r.becomeLeader(st)
	case st.leader == b.ID && !b.c.md.kraft:
		// ZooKeeper mode: a LeaderAndIsr that does not raise the leader
		// epoch is ignored for the partition (ReplicaManager
		// .becomeLeaderOrFollower: "not higher than the current leader
		// epoch"); the leader's ISR changes only by its own writes, and a
		// pending one stays pending.
	case st.leader == b.ID:
		// KRaft: Partition.makeLeader with the same leader commits a
		// newer partition epoch from the metadata log, and an ISR change
		// still pending is superseded (its answer, if it comes, is
		// ignored). A state no newer than the leader's is not a change
		// (a metadata delta holds only changed partitions).
		if st.version <= r.version {
			break
		}
		r.isr, r.version = append([]int(nil), st.isr...), st.version
		if r.pending != nil {
			r.pending = nil
			r.isrReq++
		}
		r.maybeAdvanceHW()
	case r.role != roleFollower || r.leader != st.leader || r.epoch != st.epoch:
		r.becomeFollower(st)
	}
}
