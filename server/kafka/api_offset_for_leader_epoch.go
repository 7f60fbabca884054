package kafka

// OffsetForLeaderEpoch (key 23), v2-v4.
//
// A consumer validating its position after a leader change (KIP-320)
// asks where its last-seen epoch ends in the new leader's log; a position
// past that end is a divergence the client truncates its position for.
// Follower requests (replica id >= 0) are refused: the simulated brokers
// replicate among themselves.

import (
	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(23, 2, 4, handleOffsetForLeaderEpoch) }

func handleOffsetForLeaderEpoch(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.OffsetForLeaderEpochRequest)
	er := &core.OffsetForLeaderEpochRequest{}
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			er.Partitions = append(er.Partitions, core.OffsetForLeaderEpochPartition{Topic: t.Topic, Partition: p.Partition,
				CurrentLeaderEpoch: p.CurrentLeaderEpoch, LeaderEpoch: p.LeaderEpoch})
		}
	}
	follower := req.Version >= 3 && req.ReplicaID >= 0
	return &plan{req: core.BrokerRequest{OffsetForLeaderEpoch: er}, finish: func(rep *core.Reply) kmsg.Response {
		resp := req.ResponseKind().(*kmsg.OffsetForLeaderEpochResponse)
		if rep.OffsetForLeaderEpoch == nil {
			return resp
		}
		byTopic := map[string]int{}
		for _, p := range rep.OffsetForLeaderEpoch.Partitions {
			i := topicAt(byTopic, &resp.Topics, p.Topic, func(t string) kmsg.OffsetForLeaderEpochResponseTopic {
				rt := kmsg.NewOffsetForLeaderEpochResponseTopic()
				rt.Topic = t
				return rt
			})
			rp := kmsg.NewOffsetForLeaderEpochResponseTopicPartition()
			rp.Partition, rp.ErrorCode, rp.LeaderEpoch, rp.EndOffset = p.Partition, errCode(p.Error), p.LeaderEpoch, p.EndOffset
			if follower {
				rp.ErrorCode, rp.LeaderEpoch, rp.EndOffset = 42, -1, -1
			}
			resp.Topics[i].Partitions = append(resp.Topics[i].Partitions, rp)
		}
		return resp
	}}, nil
}
