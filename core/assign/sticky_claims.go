package assign

import "slices"

// claims is the outcome of AbstractStickyAssignor.allSubscriptionsEqual:
// whether all subscriptions are identical, and each member's valid
// previously owned partitions after resolving conflicting claims.
type claims struct {
	equal         bool                        // all members subscribe to the same topic set
	order         []string                    // member ids in Kafka's HashMap iteration order
	owned         map[string][]TopicPartition // consumerToOwnedPartitions, in claim order
	multi         map[TopicPartition]bool     // partitionsWithMultiplePreviousOwners
	maxGeneration int                         // highest Member.Generation, at least -1
}

// collectClaims ports allSubscriptionsEqual. Members are visited in HashMap
// order because the outcome of three-way conflicts depends on it. Owned
// partitions of topics outside the assignable set, or with a partition
// number outside [0, count), are ignored (Kafka ignores only the former).
//
// Kafka seeds the reference topic set from the first member with a
// non-empty subscription, so an empty subscription visited first does not
// break equality; here every member's set must be identical.
func collectClaims(g *group) *claims {
	c := &claims{
		equal:         true,
		order:         hashMapOrder(g.ids),
		owned:         map[string][]TopicPartition{},
		multi:         map[TopicPartition]bool{},
		maxGeneration: -1,
	}
	owner := map[TopicPartition]string{} // allPreviousPartitionsToOwner
	var ref map[string]bool
	for _, id := range c.order {
		m := g.members[id]
		if ref == nil {
			ref = m.topicSet
		} else if !sameSet(ref, m.topicSet) {
			c.equal = false
		}
		c.maxGeneration = max(c.maxGeneration, m.generation)
		c.owned[id] = []TopicPartition{}
		for _, tp := range m.owned {
			if g.valid(tp) {
				c.claim(g, owner, id, tp)
			}
		}
	}
	return c
}

// claim records member id's claim on tp, resolving a conflict with the
// previous claimant by generation: the higher generation keeps it; equal
// generations invalidate it for both (it lands in multi).
func (c *claims) claim(g *group, owner map[TopicPartition]string, id string, tp TopicPartition) {
	other, taken := owner[tp]
	if !taken {
		c.owned[id] = append(c.owned[id], tp)
		owner[tp] = id
		return
	}
	gen, otherGen := g.members[id].generation, g.members[other].generation
	switch {
	case gen == otherGen:
		c.multi[tp] = true
		c.owned[other] = removeTP(c.owned[other], tp)
		owner[tp] = id
	case gen > otherGen:
		c.owned[id] = append(c.owned[id], tp)
		c.owned[other] = removeTP(c.owned[other], tp)
		owner[tp] = id
	}
}

// sameSet reports whether a and b hold the same keys.
func sameSet(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// removeTP returns l without its first occurrence of tp (Java List.remove).
func removeTP(l []TopicPartition, tp TopicPartition) []TopicPartition {
	if i := slices.Index(l, tp); i >= 0 {
		return slices.Delete(l, i, i+1)
	}
	return l
}
