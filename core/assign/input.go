package assign

import "slices"

// group is the normalised input shared by all assignors.
type group struct {
	ppt     map[string]int     // subscribed topics with > 0 partitions
	members map[string]*member // by member id
	ids     []string           // member ids, sorted by javaCompare
}

// member is a Member with set-valued subscription and ownership.
type member struct {
	id, instanceID string
	topics         []string        // deduplicated, in input order
	topicSet       map[string]bool // same as topics
	owned          []TopicPartition
	generation     int
}

// newGroup normalises the assignor input: duplicate member ids keep the last
// occurrence, duplicate topics and owned partitions are dropped, and
// partitionsPerTopic is restricted to subscribed topics with a positive count
// (AbstractPartitionAssignor.assign does the same filtering).
func newGroup(partitionsPerTopic map[string]int, members []Member) *group {
	g := &group{ppt: map[string]int{}, members: map[string]*member{}}
	for _, m := range members {
		nm := &member{id: m.ID, instanceID: m.InstanceID, topicSet: map[string]bool{}, generation: m.Generation}
		for _, t := range m.Topics {
			if !nm.topicSet[t] {
				nm.topicSet[t] = true
				nm.topics = append(nm.topics, t)
			}
		}
		seen := map[TopicPartition]bool{}
		for _, tp := range m.Owned {
			if !seen[tp] {
				seen[tp] = true
				nm.owned = append(nm.owned, tp)
			}
		}
		g.members[m.ID] = nm
	}
	for id, m := range g.members {
		g.ids = append(g.ids, id)
		for _, t := range m.topics {
			if n := partitionsPerTopic[t]; n > 0 {
				g.ppt[t] = n
			}
		}
	}
	slices.SortFunc(g.ids, javaCompare)
	return g
}

// emptyAssignment returns an Assignment with an empty, non-nil list for
// every member.
func (g *group) emptyAssignment() Assignment {
	a := make(Assignment, len(g.ids))
	for _, id := range g.ids {
		a[id] = []TopicPartition{}
	}
	return a
}

// sortedTopics returns the keys of g.ppt in Java String order.
func (g *group) sortedTopics() []string {
	topics := make([]string, 0, len(g.ppt))
	for t := range g.ppt {
		topics = append(topics, t)
	}
	slices.SortFunc(topics, javaCompare)
	return topics
}

// valid reports whether tp exists among the assignable partitions.
func (g *group) valid(tp TopicPartition) bool {
	n, ok := g.ppt[tp.Topic]
	return ok && tp.Partition >= 0 && tp.Partition < n
}

// finish sorts every list of a by topic then partition and returns a.
func finish(a Assignment) Assignment {
	for _, l := range a {
		slices.SortFunc(l, compareTP)
	}
	return a
}
