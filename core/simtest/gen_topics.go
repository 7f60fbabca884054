package simtest

import (
	"strconv"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/internal/xrand"
)

// topicChurn writes, in a seed that churns topics (gen.churn), now and
// then a topic deletion or a new topic in place of a main-phase step, and
// reports whether it did. A deletion may come at any time, brokers down
// or cut off included: in ZooKeeper mode the controller then waits for
// them before the topic is gone (TopicDeletionManager), in KRaft mode it
// is gone at once and returning brokers delete their replicas. Producers
// and consumers of the topic meet it gone (their metadata, a rebalance of
// the groups that subscribed to it); its acknowledged records count as
// deleted, not lost (check.Deleted). At least one topic is kept for the
// final phase. A new topic needs its replication factor of registered
// brokers, so it waits for calm, as a partition increase does, and takes
// a name never used before: a name used again is a topic of a new
// generation, which the checker keys by partition name would mix up with
// the old one.
func (g *gen) topicChurn() bool {
	if !g.churn || !g.rt.Chance(4) {
		return false
	}
	if len(g.topics) > 1 && (len(g.topics) >= 3 || g.rt.Chance(50)) {
		i := g.rt.Intn(len(g.topics))
		g.add(core.DeleteTopic{Topic: g.topics[i].name})
		g.topics = append(g.topics[:i], g.topics[i+1:]...)
		return true
	}
	if g.calmMs < alterCalmMs {
		return false
	}
	t := topicInfo{name: "t" + strconv.Itoa(g.nextTopic), parts: g.rt.Between(1, 3)}
	g.nextTopic++
	rf := 3
	if g.unsafe {
		rf = xrand.Pick(g.rt, []int{min(2, g.brokers), min(3, g.brokers)})
	}
	g.add(core.CreateTopic{Topic: t.name, Partitions: t.parts, RF: rf})
	g.topics = append(g.topics, t)
	return true
}
