package core

import (
	"sort"
)

// topicMeta is one topic in a Metadata response.
type topicMeta struct {
	name  string
	err   string
	parts []partMeta
}

// partMeta is one partition in a Metadata response, per the broker's
// metadata cache.
type partMeta struct {
	p      *Partition
	leader int
	epoch  int32
	isr    []int // shared with the cache entry: read only
}

// metadataReq is a Metadata request: the topics of interest, nil for all.
type metadataReq struct {
	topics []string
}

// metadataResult is a Metadata response. empty reports a broker whose
// metadata cache is still empty (just restarted, nothing heard from the
// controller yet; a cache emptied by topic deletions is not): it lists no brokers, and
// clients ignore its answer ("Ignoring empty metadata response",
// NetworkClient). brokers are the live brokers it lists (the nodes a
// client then knows: Metadata.update replaces them), in id order.
type metadataResult struct {
	topics  []topicMeta
	empty   bool
	brokers []int
}

// handleMetadata answers a Metadata request from the broker's cache. An
// unknown topic is created when auto.create.topics.enable is on (the answer
// is then LEADER_NOT_AVAILABLE until the leaders are known).
func (b *Broker) handleMetadata(req metadataReq) metadataResult {
	topics := req.topics
	if topics == nil { // all topics
		for _, t := range b.c.order {
			if _, known := b.cache[t.parts[0]]; known && !t.Internal {
				topics = append(topics, t.Name)
			}
		}
	}
	out := make([]topicMeta, 0, len(topics))
	for _, name := range topics {
		t := b.c.topics[name]
		tm := topicMeta{name: name}
		if t == nil {
			tm.err = "UNKNOWN_TOPIC_OR_PARTITION"
			if validTopicName(name) != nil { // the empty name too
				// KafkaApis.getTopicMetadata (Topic.validate) and, with
				// auto-creation on, AutoTopicCreationManager
				// .filterCreatableTopics: a client asking for an illegal
				// name learns so at once, where UNKNOWN_TOPIC_OR_PARTITION
				// had librdkafka retrying until its message timeout.
				tm.err = "INVALID_TOPIC_EXCEPTION"
			} else if b.c.bc.autoCreate && name != "__transaction_state" {
				// Any legal name, "_schemas" too; the transaction log is
				// Kafka's own internal topic, not simulated.
				if b.c.createTopic(CreateTopic{Topic: name, Partitions: b.c.bc.numPartitions, RF: b.c.bc.defaultRF}, false) == nil {
					tm.err = "LEADER_NOT_AVAILABLE"
				}
			}
			out = append(out, tm)
			continue
		}
		for _, p := range t.parts {
			if st, ok := b.cache[p]; ok { // partitions the broker has not heard of yet are left out
				tm.parts = append(tm.parts, partMeta{p: p, leader: st.leader, epoch: st.epoch, isr: st.isr})
			}
		}
		switch {
		case len(tm.parts) == 0 && t.gone():
			tm.err = "UNKNOWN_TOPIC_OR_PARTITION" // its deletion reached this broker's cache
		case len(tm.parts) == 0:
			tm.err = "LEADER_NOT_AVAILABLE"
		}
		out = append(out, tm)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	empty := len(b.cache) == 0 && !b.metaSeen
	res := metadataResult{topics: out, empty: empty}
	if !empty {
		res.brokers = b.c.md.liveIDs()
	}
	return res
}
