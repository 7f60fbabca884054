package kafka

// ListOffsets (key 2), v1-v10.
//
// The partition leader answers: timestamp -2 is the log start, -1 the end
// (the high watermark, what a read_uncommitted client gets; without
// transactions read_committed gets the same), -3 the record with the
// largest timestamp (KIP-734), any other timestamp the first record at or
// after it; timestamps are on the brokers' clock (clock.go). v4+ carry
// the client's leader epoch (KIP-320). Without tiered storage (KIP-405)
// -4, the local log start (v8), is the log start, and -5, the highest
// offset in remote storage (v9, KIP-1005), is offset -1 with epoch -1
// (UnifiedLog.fetchOffsetByTimestamp with remote storage off), after the
// same leader and epoch checks as any other. v10's timeout (KIP-1075)
// bounds remote-storage reads, which there are none of. Kafka's broker
// does not check the version for -4 and -5, nor does this.

import (
	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(2, 1, 10, handleListOffsets) }

// Kafka's special timestamps without a core counterpart (ListOffsetsRequest).
const (
	earliestLocalTimestamp = -4 // EARLIEST_LOCAL_TIMESTAMP
	latestTieredTimestamp  = -5 // LATEST_TIERED_TIMESTAMP
)

func handleListOffsets(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.ListOffsetsRequest)
	lr := &core.ListOffsetsRequest{}
	var tiered []bool // per partition: asked LATEST_TIERED_TIMESTAMP
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			epoch := p.CurrentLeaderEpoch
			if req.Version < 4 {
				epoch = -1
			}
			ts := p.Timestamp
			switch ts {
			case earliestLocalTimestamp:
				ts = -2 // the local log is the whole log
			case latestTieredTimestamp:
				ts = -1 // checked as any other, answered -1 below
			}
			if ts >= 0 {
				ts = cx.s.clock.toCore(ts)
			}
			tiered = append(tiered, p.Timestamp == latestTieredTimestamp)
			lr.Partitions = append(lr.Partitions, core.ListOffsetsPartition{Topic: t.Topic, Partition: p.Partition, Timestamp: ts, CurrentLeaderEpoch: epoch})
		}
	}
	return &plan{req: core.BrokerRequest{ListOffsets: lr}, finish: func(rep *core.Reply) kmsg.Response {
		resp := req.ResponseKind().(*kmsg.ListOffsetsResponse)
		if rep.ListOffsets == nil {
			return resp
		}
		byTopic := map[string]int{}
		for k, p := range rep.ListOffsets.Partitions {
			if k < len(tiered) && tiered[k] && p.Error == "" {
				p.Offset, p.LeaderEpoch, p.Timestamp = -1, -1, -1 // nothing in remote storage
			}
			i := topicAt(byTopic, &resp.Topics, p.Topic, func(t string) kmsg.ListOffsetsResponseTopic {
				rt := kmsg.NewListOffsetsResponseTopic()
				rt.Topic = t
				return rt
			})
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
