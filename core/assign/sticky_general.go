package assign

import (
	"cmp"
	"slices"
)

// general is AbstractStickyAssignor.GeneralAssignmentBuilder without racks.
// Invariant after build: every partition of a subscribed topic is assigned
// once, to a member subscribed to its topic.
type general struct {
	g                  *group
	potential          map[string][]string         // topic2AllPotentialConsumers, in HashMap order
	topicsOf           map[string][]string         // consumer2AllPotentialTopics
	current            map[string][]TopicPartition // currentAssignment (fixed members removed while balancing)
	owner              map[TopicPartition]string   // currentPartitionConsumer
	active             map[string]bool             // members in sortedCurrentSubscriptions
	prev               map[TopicPartition]genOwner // prevAssignment
	moves              *movements
	revocationRequired bool
}

// genOwner is ConsumerGenerationPair: an older claim on a partition.
type genOwner struct {
	id         string
	generation int
}

// generalAssign runs the general algorithm for differing subscriptions.
func generalAssign(g *group, c *claims) Assignment {
	b := &general{
		g: g, potential: map[string][]string{}, topicsOf: map[string][]string{},
		current: map[string][]TopicPartition{}, owner: map[TopicPartition]string{},
		active: map[string]bool{}, prev: map[TopicPartition]genOwner{}, moves: newMovements(),
	}
	for _, id := range c.order {
		for _, t := range g.members[id].topics {
			if g.ppt[t] > 0 {
				b.topicsOf[id] = append(b.topicsOf[id], t)
				b.potential[t] = append(b.potential[t], id)
			}
		}
		b.current[id] = slices.Clone(c.owned[id])
		for _, tp := range b.current[id] {
			b.owner[tp] = id
		}
	}
	sortedAll := b.sortedAllPartitions()
	b.prepopulatePrev(c)
	assigned := b.assignOwned(c.order)
	var unassigned []TopicPartition
	for _, tp := range sortedAll {
		if !assigned[tp] {
			unassigned = append(unassigned, tp)
		}
	}
	for _, id := range g.ids {
		b.active[id] = true
	}
	b.balance(sortedAll, unassigned)
	out := g.emptyAssignment()
	for id, l := range b.current {
		out[id] = append(out[id], l...)
	}
	return out
}

// sortedAllPartitions lists all partitions, topics ordered by number of
// potential consumers then name (TopicComparator), partitions ascending.
func (b *general) sortedAllPartitions() []TopicPartition {
	topics := b.g.sortedTopics()
	slices.SortStableFunc(topics, func(x, y string) int {
		return cmp.Compare(len(b.potential[x]), len(b.potential[y]))
	})
	var out []TopicPartition
	for _, t := range topics {
		for p := 0; p < b.g.ppt[t]; p++ {
			out = append(out, TopicPartition{t, p})
		}
	}
	return out
}

// prepopulatePrev records, for each partition, the most recent claim by a
// member of an older generation than the group's newest
// (prepopulateCurrentAssignments); the balancing step prefers to move a
// partition back to that member. Ties keep the first claim in HashMap order.
func (b *general) prepopulatePrev(c *claims) {
	for _, id := range c.order {
		m := b.g.members[id]
		if m.generation >= c.maxGeneration {
			continue
		}
		for _, tp := range m.owned {
			if p, ok := b.prev[tp]; !ok || m.generation > p.generation {
				b.prev[tp] = genOwner{id, m.generation}
			}
		}
	}
}

// assignOwned drops owned partitions whose topic the owner no longer
// subscribes to (requiring a revocation) and returns the ones kept.
func (b *general) assignOwned(order []string) map[TopicPartition]bool {
	kept := map[TopicPartition]bool{}
	for _, id := range order {
		m := b.g.members[id]
		b.current[id] = slices.DeleteFunc(b.current[id], func(tp TopicPartition) bool {
			if !m.topicSet[tp.Topic] {
				b.revocationRequired = true
				delete(b.owner, tp)
				return true
			}
			kept[tp] = true
			return false
		})
	}
	return kept
}

// least returns the active member subscribed to topic with the fewest
// partitions, ties broken by member id: the first match when iterating
// Kafka's sortedCurrentSubscriptions TreeSet.
func (b *general) least(topic string) string {
	best := ""
	for _, id := range b.g.ids {
		if !b.active[id] || !b.g.members[id].topicSet[topic] {
			continue
		}
		if best == "" || len(b.current[id]) < len(b.current[best]) {
			best = id
		}
	}
	return best
}

// maxAssignmentSize is the number of partitions member id could hold.
func (b *general) maxAssignmentSize(id string) int {
	n := 0
	for _, t := range b.topicsOf[id] {
		n += b.g.ppt[t]
	}
	return n
}

// canParticipate reports whether member id may gain or lose partitions
// (canConsumerParticipateInReassignment).
func (b *general) canParticipate(id string) bool {
	if len(b.current[id]) < b.maxAssignmentSize(id) {
		return true
	}
	for _, tp := range b.current[id] {
		if len(b.potential[tp.Topic]) >= 2 {
			return true
		}
	}
	return false
}
