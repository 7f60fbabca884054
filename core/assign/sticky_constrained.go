package assign

import (
	"cmp"
	"slices"
)

// constrained is AbstractStickyAssignor.ConstrainedAssignmentBuilder without
// racks. Invariant after build: every member holds minQuota or maxQuota
// partitions, exactly expectedOver of them hold maxQuota, and every
// partition is assigned once.
type constrained struct {
	g                *group
	c                *claims
	minQ             int // floor(P/N)
	maxQ             int // ceil(P/N)
	expOver, curOver int // members expected at / currently at maxQ (when minQ < maxQ)

	assignment   Assignment
	assigned     []TopicPartition
	revoked      map[TopicPartition]bool // allRevokedPartitions
	under        []string                // unfilledMembersWithUnderMinQuotaPartitions
	exactlyMin   []string                // unfilledMembersWithExactlyMinQuotaPartitions
	transferring map[TopicPartition]string
}

// constrainedAssign runs the constrained algorithm for identical
// subscriptions and returns the assignment and partitionsTransferringOwnership.
func constrainedAssign(g *group, c *claims) (Assignment, map[TopicPartition]string) {
	total := 0
	for _, n := range g.ppt {
		total += n
	}
	n := len(g.ids)
	b := &constrained{
		g: g, c: c,
		minQ: total / n, maxQ: (total + n - 1) / n, expOver: total % n,
		assignment:   g.emptyAssignment(),
		revoked:      map[TopicPartition]bool{},
		transferring: map[TopicPartition]string{},
	}
	b.assignOwned()
	unassigned := b.unassigned()
	slices.SortFunc(b.under, javaCompare)
	slices.SortFunc(b.exactlyMin, javaCompare)
	b.roundRobin(unassigned)
	return b.assignment, b.transferring
}

// assignOwned keeps previously owned partitions up to the quota
// (assignOwnedPartitions). Members are visited in HashMap order, which
// decides who keeps maxQuota when more members own that many than expected.
// Owned partitions are kept lowest partition number first, then by topic.
func (b *constrained) assignOwned() {
	for _, id := range b.c.order {
		owned := slices.Clone(b.c.owned[id])
		owned = slices.DeleteFunc(owned, func(tp TopicPartition) bool { return b.c.multi[tp] })
		slices.SortFunc(owned, func(x, y TopicPartition) int {
			if c := cmp.Compare(x.Partition, y.Partition); c != 0 {
				return c
			}
			return javaCompare(x.Topic, y.Topic)
		})
		switch {
		case len(owned) < b.minQ:
			b.keep(id, owned, len(owned))
			b.under = append(b.under, id)
		case len(owned) >= b.maxQ && b.curOver < b.expOver:
			b.curOver++
			if b.curOver == b.expOver {
				b.exactlyMin = b.exactlyMin[:0]
			}
			b.keep(id, owned, b.maxQ)
		default:
			b.keep(id, owned, b.minQ)
			if b.curOver < b.expOver {
				b.exactlyMin = append(b.exactlyMin, id)
			}
		}
	}
}

// keep assigns owned[:n] to member id and marks owned[n:] revoked.
func (b *constrained) keep(id string, owned []TopicPartition, n int) {
	b.assignment[id] = append(b.assignment[id], owned[:n]...)
	b.assigned = append(b.assigned, owned[:n]...)
	for _, tp := range owned[n:] {
		b.revoked[tp] = true
	}
}

// unassigned lists the partitions not kept by assignOwned, by topic then
// partition (getUnassignedPartitions).
func (b *constrained) unassigned() []TopicPartition {
	taken := make(map[TopicPartition]bool, len(b.assigned))
	for _, tp := range b.assigned {
		taken[tp] = true
	}
	var out []TopicPartition
	for _, t := range b.g.sortedTopics() {
		for p := 0; p < b.g.ppt[t]; p++ {
			if tp := (TopicPartition{t, p}); !taken[tp] {
				out = append(out, tp)
			}
		}
	}
	return out
}

// roundRobin deals the unassigned partitions (assignRoundRobin): first
// cyclically over the under-minQuota members, then one each to members at
// exactly minQuota, in the order they reached it.
func (b *constrained) roundRobin(unassigned []TopicPartition) {
	next := 0 // iterator position in b.under
	for _, tp := range unassigned {
		var id string
		switch {
		case next < len(b.under):
			id = b.under[next]
			next++
		case len(b.under) == 0 && len(b.exactlyMin) == 0:
			// Kafka throws IllegalStateException: the quotas cannot hold all partitions.
			panic("assign: sticky: no more unfilled consumers to be assigned")
		case len(b.under) == 0:
			id = b.exactlyMin[0]
			b.exactlyMin = b.exactlyMin[1:]
		default:
			id = b.under[0]
			next = 1
		}
		count := b.assignNew(tp, id)
		if count == b.minQ {
			next--
			b.under = slices.Delete(b.under, next, next+1)
			b.exactlyMin = append(b.exactlyMin, id)
		} else if count == b.maxQ {
			b.curOver++
		}
	}
}

// assignNew gives tp to id and records it as transferring ownership if a
// previous owner had to give it up (revoked or multiply claimed).
func (b *constrained) assignNew(tp TopicPartition, id string) int {
	b.assignment[id] = append(b.assignment[id], tp)
	if b.revoked[tp] || b.c.multi[tp] {
		b.transferring[tp] = id
	}
	return len(b.assignment[id])
}
