package core

import (
	"fmt"
	"slices"
)

// becomeLeader is Partition.makeLeader: the replica starts a new leader
// epoch at its LEO and keeps its high watermark until followers report in.
// A new leader forgets what it knew of followers (LEO unknown) and fails
// nothing: its acks=all requests were failed when it stopped leading.
//
// The same leader at a higher epoch (the ZooKeeper controller bumps the
// epoch when it removes a dead follower from the ISR) is not a new
// leadership (isNewLeader false): the followers keep their LEOs, only their
// caught-up clocks restart (Replica.resetReplicaState /
// resetLastCaughtUpTime), waiting acks=all requests stay in purgatory and
// complete as the HW moves (maybeIncrementLeaderHW), and the group
// coordinator is not reloaded (makeLeaders returns only new leaders).
// Pending produces fail only when the broker stops leading
// (ReplicaManager.makeFollowers).
func (r *Replica) becomeLeader(st pstate) {
	c := r.b.c
	if r.role == roleLeader && r.leader == r.b.ID && st.epoch > r.epoch {
		r.reelected(st)
		return
	}
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
		fs := &followerState{leo: -1, logStart: -1}
		if slices.Contains(st.isr, id) {
			fs.lastCaughtUp = c.now
		}
		r.followers[id] = fs
	}
	c.emit(Event{Type: EvRole, Partition: r.p.Name, Broker: r.b.ID, Role: RoleLeader, Leader: r.b.ID, Epoch: st.epoch, LEO: r.log.LEO(), HW: r.hw})
	r.maybeAdvanceHW()
	r.onLeadershipChange()
}

// reelected is makeLeader for the replica that already leads: a new epoch
// and the controller's ISR, the followers' state kept (see becomeLeader).
func (r *Replica) reelected(st pstate) {
	c := r.b.c
	r.epoch = st.epoch
	r.isr, r.version = append([]int(nil), st.isr...), st.version
	if r.pending != nil {
		r.pending = nil
		r.isrReq++
	}
	if c.preset.leaderEpochs {
		r.epochs.Assign(st.epoch, r.log.LEO())
	}
	for _, id := range r.p.replicas {
		fs := r.followers[id]
		if id == r.b.ID || fs == nil {
			continue
		}
		fs.lastCaughtUp = 0
		if slices.Contains(st.isr, id) {
			fs.lastCaughtUp = c.now
		}
		fs.lastFetchLeaderLEO = r.log.LEO()
	}
	c.emit(Event{Type: EvInfo, Partition: r.p.Name, Broker: r.b.ID, Epoch: st.epoch, LEO: r.log.LEO(), HW: r.hw,
		Detail: fmt.Sprintf("%s@%d stays leader at epoch %d (ISR %v): followers and waiting requests kept", r.p.Name, r.b.ID, st.epoch, slices.Sorted(slices.Values(st.isr)))})
	r.maybeAdvanceHW()
	r.completeWaiting()
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
	if len(r.b.recordDeletes) > 0 {
		r.b.checkRecordDeletes(r.p) // Partition.tryCompleteDelayedRequests
	}
	r.b.wakeParked(r.p, true)
}

// updateFollower records a follower's fetch (Replica.updateFetchState): the
// fetch offset is its LEO; it is caught up if it asked for the leader's LEO,
// or for at least what the leader's LEO was at its previous fetch.
//
// From 2.7 (Partition.updateFollowerFetchState@2.8.2, @3.9) the leader
// tries to advance the HW only when the fetch moved the follower's LEO;
// 0.11's updateReplicaLogReadResult tried on every fetch. It matters where
// something else changed the HW's inputs without trying: on 2.8 a
// committed ISR shrink (hwWaitsAfterAlterIsr) leaves the HW where it was
// while caught-up followers keep fetching at the same offset.
//
// The fetch also carries the follower's log start offset (KIP-107); when
// DeleteRecords wait on the partition and the low watermark rose, they
// are checked (Partition.updateFollowerFetchState: leaderLWIncremented).
func (r *Replica) updateFollower(id int, offset, logStart int64) {
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
	moved := fs.leo != offset
	oldLW := int64(-1)
	if len(r.b.recordDeletes) > 0 {
		oldLW = r.lowWatermark()
	}
	fs.leo, fs.lastFetchLeaderLEO, fs.lastFetch, fs.logStart = offset, leo, now, logStart
	if len(r.b.recordDeletes) > 0 && r.lowWatermark() > oldLW {
		r.b.checkRecordDeletes(r.p)
	}
	r.maybeExpandISR(id)
	if moved || !r.b.c.preset.alterIsr {
		r.maybeAdvanceHW()
	}
}
