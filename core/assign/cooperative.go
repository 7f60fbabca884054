package assign

import "slices"

// CooperativeSticky is Kafka's CooperativeStickyAssignor
// ("cooperative-sticky", KIP-429, Kafka 2.4+; selects the cooperative
// protocol). It computes the Sticky assignment and then withholds every
// partition that changes owner (adjustAssignment): the new owner does not
// get it this round, so the old owner revokes it, rejoins, and a follow-up
// rebalance assigns it. No partition is ever owned by two members at once.
//
// Which partitions change owner: after the constrained algorithm, those the
// algorithm took from a valid owner over quota or that several members of
// one generation claimed (partitionsTransferringOwnership); after the
// general algorithm, those newly assigned to one member that some member
// listed in Owned but no longer gets (computePartitionsTransferringOwnership).
type CooperativeSticky struct{}

// Name returns "cooperative-sticky".
func (CooperativeSticky) Name() string { return "cooperative-sticky" }

// Protocol returns "cooperative".
func (CooperativeSticky) Protocol() string { return Cooperative }

// Assign implements CooperativeStickyAssignor.assignPartitions.
func (CooperativeSticky) Assign(partitionsPerTopic map[string]int, members []Member) Assignment {
	g := newGroup(partitionsPerTopic, members)
	a, transferring := stickyAssign(g)
	if transferring == nil {
		transferring = transferringOwnership(g, a)
	}
	for tp, id := range transferring {
		a[id] = removeTP(a[id], tp)
	}
	return finish(a)
}

// transferringOwnership ports computePartitionsTransferringOwnership: the
// partitions assigned to a member that did not list them in Owned and that
// some member listed in Owned but is not assigned, mapped to their new owner.
func transferringOwnership(g *group, a Assignment) map[TopicPartition]string {
	added := map[TopicPartition]string{}
	revoked := map[TopicPartition]bool{}
	for _, id := range g.ids {
		owned, assigned := tpSet(g.members[id].owned), tpSet(a[id])
		for _, tp := range a[id] {
			if !owned[tp] {
				added[tp] = id
			}
		}
		for _, tp := range g.members[id].owned {
			if !assigned[tp] {
				revoked[tp] = true
			}
		}
	}
	for tp := range added {
		if !revoked[tp] {
			delete(added, tp)
		}
	}
	return added
}

// Revoked returns, for each member of prev, the partitions it held in prev
// but does not hold in next (all of them if it is absent from next): what
// the member must revoke. Members with nothing to revoke are left out; each
// list is sorted by topic then partition.
func Revoked(prev, next Assignment) map[string][]TopicPartition {
	out := map[string][]TopicPartition{}
	for id, held := range prev {
		keep := tpSet(next[id])
		var lost []TopicPartition
		for _, tp := range held {
			if !keep[tp] {
				keep[tp] = true // report duplicates once
				lost = append(lost, tp)
			}
		}
		if len(lost) > 0 {
			slices.SortFunc(lost, compareTP)
			out[id] = lost
		}
	}
	return out
}

// tpSet returns the set of partitions in l.
func tpSet(l []TopicPartition) map[TopicPartition]bool {
	s := make(map[TopicPartition]bool, len(l))
	for _, tp := range l {
		s[tp] = true
	}
	return s
}
