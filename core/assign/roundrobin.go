package assign

// RoundRobin is Kafka's RoundRobinAssignor ("roundrobin", eager). All
// partitions of all subscribed topics, sorted by topic then partition, are
// dealt to the members in MemberInfo order (static members by
// group.instance.id first, then member id) through one circular iterator
// that skips members not subscribed to the partition's topic. With equal
// subscriptions the counts differ by at most one; with unequal ones the
// result can be unbalanced (see the RoundRobinAssignor javadoc).
type RoundRobin struct{}

// Name returns "roundrobin".
func (RoundRobin) Name() string { return "roundrobin" }

// Protocol returns "eager".
func (RoundRobin) Protocol() string { return Eager }

// Assign implements RoundRobinAssignor.assign.
func (RoundRobin) Assign(partitionsPerTopic map[string]int, members []Member) Assignment {
	g := newGroup(partitionsPerTopic, members)
	out := g.emptyAssignment()
	ring := g.sortedMembers()
	next := 0 // CircularIterator position, shared across all partitions
	for _, topic := range g.sortedTopics() {
		for p := 0; p < g.ppt[topic]; p++ {
			// Some member subscribes to topic (g.ppt holds subscribed topics only),
			// so this loop ends within one lap.
			for !ring[next].topicSet[topic] {
				next = (next + 1) % len(ring)
			}
			m := ring[next]
			out[m.id] = append(out[m.id], TopicPartition{topic, p})
			next = (next + 1) % len(ring)
		}
	}
	return finish(out)
}
