package assign

import "slices"

// balance assigns the unassigned partitions and then moves partitions
// towards balance (GeneralAssignmentBuilder.balance). If existing owners
// were kept (not initializing) and the moves did not lower the balance
// score, the moves are undone.
func (b *general) balance(sortedAll, unassigned []TopicPartition) {
	initializing := true
	for _, id := range b.g.ids {
		if len(b.current[id]) > 0 {
			initializing = false
		}
	}
	for _, tp := range unassigned {
		if len(b.potential[tp.Topic]) > 0 {
			b.place(tp, b.least(tp.Topic))
		}
	}
	fixedTopic := func(tp TopicPartition) bool { return len(b.potential[tp.Topic]) < 2 }
	sortedAll = slices.DeleteFunc(slices.Clone(sortedAll), fixedTopic)
	unassigned = slices.DeleteFunc(slices.Clone(unassigned), fixedTopic)

	fixed := map[string][]TopicPartition{}
	for _, id := range b.g.ids {
		if !b.canParticipate(id) {
			b.active[id] = false
			fixed[id] = b.current[id]
			delete(b.current, id)
		}
	}
	preBalance, preOwner := b.snapshot()
	if !b.revocationRequired {
		b.performReassignments(unassigned)
	}
	performed := b.performReassignments(sortedAll)
	if !initializing && performed && b.score() >= preBalanceScore(preBalance) {
		b.current, b.owner = preBalance, preOwner
	}
	for id, l := range fixed {
		b.current[id] = l
		b.active[id] = true
	}
}

// place gives unassigned partition tp to member id.
func (b *general) place(tp TopicPartition, id string) {
	b.current[id] = append(b.current[id], tp)
	b.owner[tp] = id
}

// snapshot deep-copies the current assignment and owner map.
func (b *general) snapshot() (map[string][]TopicPartition, map[TopicPartition]string) {
	cur := make(map[string][]TopicPartition, len(b.current))
	for id, l := range b.current {
		cur[id] = slices.Clone(l)
	}
	own := make(map[TopicPartition]string, len(b.owner))
	for tp, id := range b.owner {
		own[tp] = id
	}
	return cur, own
}

// performReassignments moves partitions of reassignable, in order, while the
// assignment is unbalanced, repeating passes until one moves nothing. A
// partition returns to its previous-generation owner when that owner holds
// two or more fewer partitions than the current one; otherwise it goes to
// the least-loaded eligible member if some eligible member holds two or more
// fewer. Returns whether anything moved. Passes are capped so the loop ends
// even where Kafka's would not; the cap is never reached in practice.
func (b *general) performReassignments(reassignable []TopicPartition) bool {
	performed := false
	for pass := 0; pass <= len(reassignable)*len(b.g.ids)+1; pass++ {
		modified := false
		for _, tp := range reassignable {
			if b.isBalanced() {
				break
			}
			if b.tryReassign(tp) {
				performed, modified = true, true
			}
		}
		if !modified {
			break
		}
	}
	return performed
}

// tryReassign applies one step of performReassignments to tp.
func (b *general) tryReassign(tp TopicPartition) bool {
	cur := b.owner[tp]
	size := len(b.current[cur])
	// Kafka does not check that the previous owner is still an eligible,
	// non-fixed member; we do, so no member gets a topic it dropped.
	if p, ok := b.prev[tp]; ok && b.active[p.id] && b.g.members[p.id].topicSet[tp.Topic] &&
		size > len(b.current[p.id])+1 {
		b.reassign(tp, p.id)
		return true
	}
	for _, other := range b.potential[tp.Topic] {
		if b.active[other] && size > len(b.current[other])+1 {
			b.reassign(tp, b.least(tp.Topic))
			return true
		}
	}
	return false
}

// reassign moves tp, or an earlier-moved partition of its topic that undoes
// a previous move (PartitionMovements.getTheActualPartitionToBeMoved), to
// member to.
func (b *general) reassign(tp TopicPartition, to string) {
	actual := b.moves.actual(tp, b.owner[tp], to)
	from := b.owner[actual]
	b.moves.move(actual, from, to)
	b.current[from] = removeTP(b.current[from], actual)
	b.current[to] = append(b.current[to], actual)
	b.owner[actual] = to
}

// isBalanced reports whether sizes differ by at most one, or no member
// could take a partition it is eligible for from a member holding two or
// more partitions more than it.
func (b *general) isBalanced() bool {
	lo, hi := -1, -1
	for id, l := range b.current {
		if !b.active[id] {
			continue
		}
		if lo < 0 || len(l) < lo {
			lo = len(l)
		}
		hi = max(hi, len(l))
	}
	if lo >= hi-1 {
		return true
	}
	for id, l := range b.current {
		if !b.active[id] || len(l) == b.maxAssignmentSize(id) {
			continue
		}
		for _, t := range b.topicsOf[id] {
			for p := 0; p < b.g.ppt[t]; p++ {
				other := b.owner[TopicPartition{t, p}]
				if other != id && b.active[other] && len(l)+1 < len(b.current[other]) {
					return false
				}
			}
		}
	}
	return true
}

// score is getBalanceScore of the current (non-fixed) assignment.
func (b *general) score() int { return preBalanceScore(b.current) }

// preBalanceScore sums |size(a)-size(b)| over all unordered member pairs;
// 0 means perfectly balanced.
func preBalanceScore(a map[string][]TopicPartition) int {
	sizes := make([]int, 0, len(a))
	for _, l := range a {
		sizes = append(sizes, len(l))
	}
	score := 0
	for i := range sizes {
		for j := i + 1; j < len(sizes); j++ {
			score += max(sizes[i]-sizes[j], sizes[j]-sizes[i])
		}
	}
	return score
}
