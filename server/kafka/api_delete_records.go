package kafka

// DeleteRecords (key 21), v0-v2 (v1 is v0; v2 is flexible), from 0.11
// (KIP-107): sent to each partition's leader (kadm's DeleteRecords,
// sarama's ClusterAdmin.DeleteRecords, kafka-delete-records.sh), which
// moves the partition's log start offset up to the offset asked (-1:
// the high watermark) and answers once every replica's log start,
// followers learning it from their Fetch responses, reached it
// (DelayedDeleteRecords), or at timeout_ms with REQUEST_TIMED_OUT, with
// the low watermark (core.DeleteRecordsRequest). Errors per partition:
// UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER,
// OFFSET_OUT_OF_RANGE (above the high watermark), POLICY_VIOLATION
// (cleanup.policy without delete), INVALID_TOPIC_EXCEPTION
// (__consumer_offsets). A partition named twice is answered once, with
// its last offset, as Kafka takes the partitions into a map
// (KafkaApis.handleDeleteRecordsRequest).

import (
	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(21, 0, 2, handleDeleteRecords) }

func handleDeleteRecords(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.DeleteRecordsRequest)
	dr := &core.DeleteRecordsRequest{TimeoutMs: req.TimeoutMillis, Partitions: []core.DeleteRecordsPartition{}}
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			dr.Partitions = append(dr.Partitions, core.DeleteRecordsPartition{Topic: t.Topic, Partition: p.Partition, Offset: p.Offset})
		}
	}
	return &plan{req: core.BrokerRequest{DeleteRecords: dr}, finish: func(rep *core.Reply) kmsg.Response {
		resp := req.ResponseKind().(*kmsg.DeleteRecordsResponse)
		if rep.DeleteRecords == nil {
			return resp
		}
		byTopic := map[string]int{}
		for _, p := range rep.DeleteRecords.Partitions {
			i := topicAt(byTopic, &resp.Topics, p.Topic, func(t string) kmsg.DeleteRecordsResponseTopic {
				rt := kmsg.NewDeleteRecordsResponseTopic()
				rt.Topic = t
				return rt
			})
			rp := kmsg.NewDeleteRecordsResponseTopicPartition()
			rp.Partition, rp.LowWatermark, rp.ErrorCode = p.Partition, p.LowWatermark, errCode(p.Error)
			resp.Topics[i].Partitions = append(resp.Topics[i].Partitions, rp)
		}
		return resp
	}}, nil
}
