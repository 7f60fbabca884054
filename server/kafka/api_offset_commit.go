package kafka

// OffsetCommit (key 8), v2-v8.
//
// The group coordinator validates the member and generation and writes
// the offsets to __consumer_offsets (acks=all) before answering. A
// commit with generation -1 and no member id comes from a consumer
// outside the group protocol (assign()). Commit metadata and retention
// times are not kept.

import (
	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(8, 2, 8, handleOffsetCommit) }

func handleOffsetCommit(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.OffsetCommitRequest)
	or := &core.OffsetCommitRequest{Group: req.Group, Generation: req.Generation, MemberID: req.MemberID}
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			or.Partitions = append(or.Partitions, core.OffsetCommitPartition{Topic: t.Topic, Partition: p.Partition, Offset: p.Offset})
		}
	}
	return &plan{req: core.BrokerRequest{OffsetCommit: or}, finish: func(rep *core.Reply) kmsg.Response {
		resp := req.ResponseKind().(*kmsg.OffsetCommitResponse)
		if rep.OffsetCommit == nil {
			return resp
		}
		byTopic := map[string]int{}
		for _, p := range rep.OffsetCommit.Partitions {
			i, ok := byTopic[p.Topic]
			if !ok {
				i = len(resp.Topics)
				byTopic[p.Topic] = i
				rt := kmsg.NewOffsetCommitResponseTopic()
				rt.Topic = p.Topic
				resp.Topics = append(resp.Topics, rt)
			}
			rp := kmsg.NewOffsetCommitResponseTopicPartition()
			rp.Partition, rp.ErrorCode = p.Partition, errCode(p.Error)
			resp.Topics[i].Partitions = append(resp.Topics[i].Partitions, rp)
		}
		return resp
	}}, nil
}
