package kafka

import (
	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The consumer protocol (ConsumerProtocol.java): what a "consumer" group's
// JoinGroup metadata and SyncGroup assignments hold. Real clients assign
// partitions themselves, so the core sees subscriptions and assignments
// as topics and partitions; user data (the old sticky assignor's) is not
// kept.

// decodeSubscription reads a member's JoinGroup protocol metadata.
func decodeSubscription(b []byte) (topics []string, owned []core.GroupPartition, generation int32, ok bool) {
	var m kmsg.ConsumerMemberMetadata
	if err := m.ReadFrom(b); err != nil {
		return nil, nil, -1, false
	}
	for _, o := range m.OwnedPartitions {
		for _, p := range o.Partitions {
			owned = append(owned, core.GroupPartition{Topic: o.Topic, Partition: p})
		}
	}
	generation = -1
	if m.Version >= 2 {
		generation = m.Generation
	}
	return m.Topics, owned, generation, true
}

// encodeSubscription writes a member's subscription for the leader's
// JoinGroup response (version 1 carries owned partitions, version 2 the
// generation).
func encodeSubscription(m core.JoinGroupMember) []byte {
	s := kmsg.NewConsumerMemberMetadata()
	s.Version, s.Topics, s.Generation = 2, m.Topics, m.Generation
	if s.Topics == nil {
		s.Topics = []string{}
	}
	idx := map[string]int{}
	for _, o := range m.Owned {
		i := topicAt(idx, &s.OwnedPartitions, o.Topic, func(t string) kmsg.ConsumerMemberMetadataOwnedPartition {
			return kmsg.ConsumerMemberMetadataOwnedPartition{Topic: t}
		})
		s.OwnedPartitions[i].Partitions = append(s.OwnedPartitions[i].Partitions, o.Partition)
	}
	return s.AppendTo(nil)
}

// decodeAssignment reads one member's assignment from the leader's SyncGroup.
func decodeAssignment(b []byte) ([]core.GroupPartition, bool) {
	if len(b) == 0 {
		return nil, true
	}
	var a kmsg.ConsumerMemberAssignment
	if err := a.ReadFrom(b); err != nil {
		return nil, false
	}
	var out []core.GroupPartition
	for _, t := range a.Topics {
		for _, p := range t.Partitions {
			out = append(out, core.GroupPartition{Topic: t.Topic, Partition: p})
		}
	}
	return out, true
}

// encodeAssignment writes a member's assignment for its SyncGroup response.
func encodeAssignment(parts []core.GroupPartition) []byte {
	a := kmsg.NewConsumerMemberAssignment()
	a.Version = 1
	idx := map[string]int{}
	for _, p := range parts {
		i := topicAt(idx, &a.Topics, p.Topic, func(t string) kmsg.ConsumerMemberAssignmentTopic {
			return kmsg.ConsumerMemberAssignmentTopic{Topic: t}
		})
		a.Topics[i].Partitions = append(a.Topics[i].Partitions, p.Partition)
	}
	if a.Topics == nil {
		a.Topics = []kmsg.ConsumerMemberAssignmentTopic{}
	}
	return a.AppendTo(nil)
}
