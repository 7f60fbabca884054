package assign

// Sticky is Kafka's StickyAssignor ("sticky", KIP-54, Kafka 0.11+, eager):
// a balanced assignment that keeps as many previously owned partitions as
// possible. It follows AbstractStickyAssignor (Kafka 3.5+ code, racks not
// modelled):
//
//   - Ownership claims (Member.Owned) are honoured only for subscribed,
//     existing partitions. When several members claim one partition the
//     highest Generation wins; equal generations invalidate the claim for
//     all of them (allSubscriptionsEqual). A claim nobody disputes is kept
//     whatever its generation.
//   - With identical subscriptions the constrained algorithm runs
//     (ConstrainedAssignmentBuilder): every member ends with
//     floor(P/N) or ceil(P/N) partitions, keeping owned ones first.
//   - Otherwise the general algorithm runs (GeneralAssignmentBuilder): keep
//     valid owned partitions, give the rest to the least-loaded eligible
//     member, then move partitions until no member could take one from a
//     member holding two or more partitions more than it.
//
// Where Kafka iterates a java.util.HashMap of member ids the iteration order
// is reproduced (see hashMapOrder); where it iterates a HashSet of
// partitions (only in the general algorithm's move bookkeeping) the smallest
// partition is taken instead. Kafka keeps the highest generation seen in a
// field of the assignor instance across rebalances; here it is per call.
type Sticky struct{}

// Name returns "sticky".
func (Sticky) Name() string { return "sticky" }

// Protocol returns "eager".
func (Sticky) Protocol() string { return Eager }

// Assign implements StickyAssignor.assign.
func (Sticky) Assign(partitionsPerTopic map[string]int, members []Member) Assignment {
	g := newGroup(partitionsPerTopic, members)
	a, _ := stickyAssign(g)
	return finish(a)
}

// stickyAssign is AbstractStickyAssignor.assignPartitions. The second result
// is partitionsTransferringOwnership from the constrained algorithm, or nil
// when the general algorithm ran (Kafka sets the field to null then).
func stickyAssign(g *group) (Assignment, map[TopicPartition]string) {
	if len(g.ids) == 0 {
		return Assignment{}, map[TopicPartition]string{}
	}
	c := collectClaims(g)
	if c.equal {
		return constrainedAssign(g, c)
	}
	return generalAssign(g, c), nil
}
