package kafka

// OffsetDelete (key 47), v0 only, from 2.4 (KIP-496): sent to the
// group's coordinator (kadm's DeleteOffsets, sarama's
// ClusterAdmin.DeleteConsumerGroupOffset, kafka-consumer-groups.sh
// --delete-offsets), which deletes the group's committed offsets of the
// partitions named, writing tombstones to __consumer_offsets
// (core.OffsetDeleteRequest): all of an Empty group's, and of a group
// with members those of the topics its members do not subscribe to, the
// others answered GROUP_SUBSCRIBED_TO_TOPIC. A partition the broker's
// metadata does not have is UNKNOWN_TOPIC_OR_PARTITION. A group error
// (INVALID_GROUP_ID, NOT_COORDINATOR, GROUP_ID_NOT_FOUND,
// COORDINATOR_NOT_AVAILABLE) is the top-level error code alone, with no
// topics (OffsetDeleteRequest.getErrorResponse). Topics come back in the
// order they were asked (Kafka's response is keyed by topic).

import (
	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(47, 0, 0, handleOffsetDelete) }

func handleOffsetDelete(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.OffsetDeleteRequest)
	od := &core.OffsetDeleteRequest{Group: req.Group, Partitions: []core.GroupPartition{}}
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			od.Partitions = append(od.Partitions, core.GroupPartition{Topic: t.Topic, Partition: p.Partition})
		}
	}
	return &plan{req: core.BrokerRequest{OffsetDelete: od}, finish: func(rep *core.Reply) kmsg.Response {
		resp := req.ResponseKind().(*kmsg.OffsetDeleteResponse)
		a := rep.OffsetDelete
		if a == nil {
			return resp
		}
		if resp.ErrorCode = errCode(a.Error); a.Error != "" {
			return resp
		}
		byTopic := map[string]int{}
		for _, p := range a.Partitions {
			i := topicAt(byTopic, &resp.Topics, p.Topic, func(t string) kmsg.OffsetDeleteResponseTopic {
				rt := kmsg.NewOffsetDeleteResponseTopic()
				rt.Topic = t
				return rt
			})
			rp := kmsg.NewOffsetDeleteResponseTopicPartition()
			rp.Partition, rp.ErrorCode = p.Partition, errCode(p.Error)
			resp.Topics[i].Partitions = append(resp.Topics[i].Partitions, rp)
		}
		return resp
	}}, nil
}
