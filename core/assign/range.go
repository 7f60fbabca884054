package assign

// Range is Kafka's RangeAssignor ("range", eager; the consumer default before
// 3.0 and still first in the 3.0+ default list). Each topic is assigned on
// its own: its subscribers in MemberInfo order (static members by
// group.instance.id first, then member id) take consecutive ranges of
// numPartitions/numSubscribers partitions, and the first
// numPartitions%numSubscribers of them one extra. Rack-aware range
// assignment (KIP-881) is not modelled: members carry no rack.
type Range struct{}

// Name returns "range".
func (Range) Name() string { return "range" }

// Protocol returns "eager".
func (Range) Protocol() string { return Eager }

// Assign implements RangeAssignor.assign. Members subscribed to nothing, or
// only to unknown topics, get an empty list.
func (Range) Assign(partitionsPerTopic map[string]int, members []Member) Assignment {
	g := newGroup(partitionsPerTopic, members)
	out := g.emptyAssignment()
	ordered := g.sortedMembers()
	for _, topic := range g.sortedTopics() {
		var subs []*member
		for _, m := range ordered {
			if m.topicSet[topic] {
				subs = append(subs, m)
			}
		}
		n := g.ppt[topic]
		per, extra := n/len(subs), n%len(subs)
		start := 0
		for i, m := range subs {
			length := per
			if i < extra {
				length++
			}
			for p := start; p < start+length; p++ {
				out[m.id] = append(out[m.id], TopicPartition{topic, p})
			}
			start += length
		}
	}
	return finish(out)
}
