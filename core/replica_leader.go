package core

import "slices"

// becomeLeader is Partition.makeLeader: the replica starts a new leader
// epoch at its LEO, forgets what it knew of followers (LEO unknown), and
// keeps its high watermark until followers report in.
func (r *Replica) becomeLeader(st pstate) {
	c := r.b.c
	r.failWaiting("NOT_LEADER_OR_FOLLOWER")
	r.role, r.leader, r.epoch, r.follow = roleLeader, r.b.ID, st.epoch, followIdle
	r.isr, r.version, r.pending = append([]int(nil), st.isr...), st.version, nil
	if c.preset.leaderEpochs {
		r.epochs.Assign(st.epoch, r.log.LEO())
	}
	r.followers = map[int]*followerState{}
	for _, id := range r.p.replicas {
		if id == r.b.ID {
			continue
		}
		fs := &followerState{leo: -1}
		if slices.Contains(st.isr, id) {
			fs.lastCaughtUp = c.now
		}
		r.followers[id] = fs
	}
	c.emit(Event{Type: EvRole, Partition: r.p.Name, Broker: r.b.ID, Role: RoleLeader, Leader: r.b.ID, Epoch: st.epoch, LEO: r.log.LEO(), HW: r.hw})
	r.maybeAdvanceHW()
	r.onLeadershipChange()
}

// epochStart is the offset where the leader's current epoch began.
func (r *Replica) epochStart() int64 {
	if !r.b.c.preset.leaderEpochs {
		return 0
	}
	for _, e := range r.epochs.Entries() {
		if e.Epoch == r.epoch {
			return e.StartOffset
		}
	}
	return r.log.LEO()
}

// maximalISR is the ISR plus any replicas being added (AlterPartition's
// "maximal ISR"): the HW waits for them too.
func (r *Replica) maximalISR() []int {
	out := r.isr
	for _, id := range r.pending {
		if !slices.Contains(out, id) {
			out = append(append([]int(nil), out...), id)
		}
	}
	return out
}

// maybeAdvanceHW is Partition.maybeIncrementLeaderHW: the HW is the
// smallest LEO over the maximal ISR; 3.7+ holds it while the ISR is below
// min.insync.replicas (KAFKA-15583).
func (r *Replica) maybeAdvanceHW() {
	if r.role != roleLeader {
		return
	}
	if r.b.c.preset.minIsrHoldsHW && len(r.isr) < r.p.Topic.conf.minISR {
		return
	}
	hw := r.log.LEO()
	for _, id := range r.maximalISR() {
		if fs := r.followers[id]; fs != nil && fs.leo < hw {
			hw = fs.leo
		}
	}
	if hw <= r.hw {
		return
	}
	r.setHW(hw)
	r.completeWaiting()
	r.b.wakeParked(r.p, true)
}

// updateFollower records a follower's fetch (Replica.updateFetchState): the
// fetch offset is its LEO; it is caught up if it asked for the leader's LEO,
// or for at least what the leader's LEO was at its previous fetch.
func (r *Replica) updateFollower(id int, offset int64) {
	fs := r.followers[id]
	if fs == nil {
		return
	}
	now, leo := r.b.c.now, r.log.LEO()
	if offset >= leo {
		fs.lastCaughtUp = max(fs.lastCaughtUp, now)
	} else if offset >= fs.lastFetchLeaderLEO {
		fs.lastCaughtUp = max(fs.lastCaughtUp, fs.lastFetch)
	}
	fs.leo, fs.lastFetchLeaderLEO, fs.lastFetch = offset, leo, now
	r.maybeExpandISR(id)
	r.maybeAdvanceHW()
}
