package core

// The initial rebalance delay (KIP-134, 0.11+): a group that rebalances
// from Empty waits group.initial.rebalance.delay.ms before it completes the
// join, so that members starting together land in one generation.
//
// Kafka runs it in fixed steps counted from the first join, not from the
// last (InitialDelayedJoin in DelayedJoin.scala@3.9, the same since
// 0.11.0): GroupCoordinator.prepareRebalance starts one step of delay D
// with remainingMs = max(rebalanceTimeout - D, 0), the rebalance timeout
// being the largest max.poll.interval.ms among the members then. A member
// joining meanwhile only marks that one was added
// (GroupCoordinator.addMemberAndRebalance: when the group is
// PreparingRebalance and its generation is 0); when the step ends, a mark
// and remainingMs != 0 start the next step of min(D, remainingMs), with
// remainingMs - (the ended step's delay) left, and clear the mark;
// otherwise the join completes at once (onCompleteJoin, forced: members
// still pending with a MEMBER_ID_REQUIRED id are not waited for, and stay
// pending). The steps add up to at most the rebalance timeout. A joining
// member does not end a step early (InitialDelayedJoin.tryComplete is
// false).
//
// D = 0 is no exception: prepareRebalance still builds an InitialDelayedJoin
// (of 0 ms), which expires at once and completes the join with whoever has
// joined, not waiting for pending member ids as a plain DelayedJoin would.
// Only the step's end clears the mark: a mark made during the last step
// (remainingMs == 0) outlives the join (GroupMetadata.newMemberAdded is
// reset nowhere else) and extends the group's next initial delay by a step.
//
// In 4.0 the classic group lives in GroupMetadataManager
// (addMemberThenRebalanceOrCompleteJoin, prepareRebalance,
// tryCompleteInitialRebalanceElseSchedule; the same at trunk 1eb7644 and
// in 3.9's group-coordinator module, which 3.9 uses only when
// group.coordinator.rebalance.protocols names "consumer"): the same steps,
// but a joiner marks the group when its previous state was Empty, in any
// generation (preset.initialDelayAfterEmpty), and a member or pending
// member id whose session expires completes the join at once when everyone
// left has joined (removeMemberAndUpdateClassicGroup,
// removePendingMemberAndUpdateClassicGroup; tryCompleteJoinAfterExpiry).

// markNewMember records that a member joined during the rebalance, which
// extends an initial delay by one step (see above).
func (g *group) markNewMember() {
	if g.co.b.c.preset.initialDelayAfterEmpty {
		if g.prevState == gsEmpty {
			g.newMember = true
		}
		return
	}
	if g.generation == 0 {
		g.newMember = true
	}
}

// initialDelayStep is one InitialDelayedJoin of d ms (conf: the configured
// delay; left: its remainingMs).
func (g *group) initialDelayStep(conf, d, left int64) {
	g.joinGen++
	gen := g.joinGen
	g.co.after(d, func() {
		if g.joinGen != gen || g.state != gsPreparing {
			return
		}
		if g.newMember && left != 0 {
			g.newMember = false
			g.initialDelayStep(conf, min(conf, left), max(left-d, 0))
			return
		}
		g.initial = false
		g.completeJoin()
	})
}
