package kafka

// ListOffsets (key 2), v1-v7.
//
// The partition leader answers: timestamp -2 is the log start, -1 the end
// (the high watermark, what a read_uncommitted client gets; without
// transactions read_committed gets the same), -3 the record with the
// largest timestamp (KIP-734), any other timestamp the first record at or
// after it; timestamps are on the brokers' clock (clock.go). v4+ carry
// the client's leader epoch (KIP-320).

import (
	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(2, 1, 7, handleListOffsets) }

func handleListOffsets(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.ListOffsetsRequest)
	lr := &core.ListOffsetsRequest{}
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			epoch := p.CurrentLeaderEpoch
			if req.Version < 4 {
				epoch = -1
			}
			ts := p.Timestamp
			if ts >= 0 {
				ts = cx.s.clock.toCore(ts)
			}
			lr.Partitions = append(lr.Partitions, core.ListOffsetsPartition{Topic: t.Topic, Partition: p.Partition, Timestamp: ts, CurrentLeaderEpoch: epoch})
		}
	}
	return &plan{req: core.BrokerRequest{ListOffsets: lr}, finish: func(rep *core.Reply) kmsg.Response {
		resp := req.ResponseKind().(*kmsg.ListOffsetsResponse)
		if rep.ListOffsets == nil {
			return resp
		}
		byTopic := map[string]int{}
		for _, p := range rep.ListOffsets.Partitions {
			i, ok := byTopic[p.Topic]
			if !ok {
				i = len(resp.Topics)
				byTopic[p.Topic] = i
				rt := kmsg.NewListOffsetsResponseTopic()
				rt.Topic = p.Topic
				resp.Topics = append(resp.Topics, rt)
			}
			rp := kmsg.NewListOffsetsResponseTopicPartition()
			rp.Partition, rp.ErrorCode, rp.Offset, rp.LeaderEpoch, rp.Timestamp = p.Partition, errCode(p.Error), p.Offset, p.LeaderEpoch, p.Timestamp
			if p.Offset >= 0 && p.Timestamp != -1 {
				rp.Timestamp = cx.s.clock.toClient(p.Timestamp)
			}
			resp.Topics[i].Partitions = append(resp.Topics[i].Partitions, rp)
		}
		return resp
	}}, nil
}
