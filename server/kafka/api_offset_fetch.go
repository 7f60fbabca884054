package kafka

// OffsetFetch (key 9), v1-v7 (v8 batches groups, KIP-709; clients fall
// back to one group per request below it).
//
// The group coordinator answers with each partition's committed offset
// (-1: none); a null topic list (v2+) asks for every partition the group
// committed. v2+ carry a top-level error, so NOT_COORDINATOR and
// COORDINATOR_LOAD_IN_PROGRESS reach the client there; v1 puts it on
// every partition. v7's require_stable (KIP-447) is passed on: 2.5 to 3.9
// answer UNSTABLE_OFFSET_COMMIT on a partition whose commit is still being
// written, 4.0 waits for the writes before the fetch.

import (
	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(9, 1, 7, handleOffsetFetch) }

func handleOffsetFetch(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.OffsetFetchRequest)
	fr := &core.OffsetFetchRequest{Group: req.Group, RequireStable: req.Version >= 7 && req.RequireStable}
	if req.Topics != nil {
		fr.Partitions = []core.OffsetFetchPartition{}
		for _, t := range req.Topics {
			for _, p := range t.Partitions {
				fr.Partitions = append(fr.Partitions, core.OffsetFetchPartition{Topic: t.Topic, Partition: p})
			}
		}
	}
	return &plan{req: core.BrokerRequest{OffsetFetch: fr}, finish: func(rep *core.Reply) kmsg.Response {
		resp := req.ResponseKind().(*kmsg.OffsetFetchResponse)
		a := rep.OffsetFetch
		if a == nil {
			return resp
		}
		top := errCode(a.Error)
		if req.Version >= 2 {
			resp.ErrorCode = top
		}
		byTopic := map[string]int{}
		add := func(topic string, part int32, off int64, code int16) {
			i, ok := byTopic[topic]
			if !ok {
				i = len(resp.Topics)
				byTopic[topic] = i
				rt := kmsg.NewOffsetFetchResponseTopic()
				rt.Topic = topic
				resp.Topics = append(resp.Topics, rt)
			}
			rp := kmsg.NewOffsetFetchResponseTopicPartition()
			rp.Partition, rp.Offset, rp.ErrorCode, rp.LeaderEpoch = part, off, code, -1
			resp.Topics[i].Partitions = append(resp.Topics[i].Partitions, rp)
		}
		if top != 0 && req.Version < 2 {
			for _, p := range fr.Partitions {
				add(p.Topic, p.Partition, -1, top)
			}
			return resp
		}
		for _, p := range a.Partitions {
			add(p.Topic, p.Partition, p.Offset, errCode(p.Error))
		}
		return resp
	}}, nil
}
