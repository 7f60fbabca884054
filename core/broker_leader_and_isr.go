package core

// onLeaderAndIsr applies partition states from the controller: the
// metadata cache for all of them, and role changes for the partitions this
// broker hosts (ReplicaManager.becomeLeaderOrFollower).
func (b *Broker) onLeaderAndIsr(ups []partUpdate, ctrlEpoch int) {
	if ctrlEpoch < b.ctrlEpoch {
		return // a deposed controller
	}
	b.ctrlEpoch = ctrlEpoch
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
		if contains(u.p.Replicas, b.ID) {
			b.applyState(u.p, u.st)
		}
	}
	b.c.wakeClients()
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
	case st.leader == b.ID:
		r.isr, r.version = append([]int(nil), st.isr...), st.version
		r.maybeAdvanceHW()
	case r.role != roleFollower || r.leader != st.leader || r.epoch != st.epoch:
		r.becomeFollower(st)
	}
}
