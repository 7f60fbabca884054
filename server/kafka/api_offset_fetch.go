package kafka

// OffsetFetch (key 9), v1-v9.
//
// The group coordinator answers with each partition's committed offset
// (-1: none, a partition of no topic too: GroupMetadataManager.getOffsets
// answers what the group has, and KafkaApis does not look topics up); a
// null topic list (v2+) asks for every partition the group committed, an
// empty one for none (core.OffsetFetchRequest.None keeps them apart in
// the room's history).
// v2+ carry a top-level error, so NOT_COORDINATOR and
// COORDINATOR_LOAD_IN_PROGRESS reach the client there, with no
// partitions; v1 puts it on every partition. v7's require_stable (KIP-447)
// is passed on: 2.5 to 3.9 answer UNSTABLE_OFFSET_COMMIT on a partition
// whose commit is still being written, 4.0 waits for the writes before
// the fetch.
//
// v8 (KIP-709) asks for several groups in one request: each group is
// fetched from its coordinator as a request of its own would be (a group
// this broker does not coordinate gets NOT_COORDINATOR, the others their
// offsets), and the response lists them in request order, each with its
// own error (KafkaApis.handleOffsetFetchRequest: one future per group,
// answered once all are done). v9 adds each group's member id and member
// epoch, which only KIP-848 consumer groups check (STALE_MEMBER_EPOCH,
// UNKNOWN_MEMBER_ID); for a classic group, the only kind simulated, both
// coordinators ignore them (3.9's GroupCoordinatorAdapter.fetchOffsets
// does not read them; 4.0's ClassicGroup.validateOffsetFetch only refuses
// a Dead group), so v9 answers as v8. Each partition carries the
// metadata committed with its offset ("", OffsetAndMetadata.NoMetadata,
// when none) and, from v5, its committed leader epoch (-1 when none).

import (
	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(9, 1, 9, handleOffsetFetch) }

func handleOffsetFetch(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.OffsetFetchRequest)
	if req.Version >= 8 {
		return offsetFetchGroups(cx, req), nil
	}
	fr := &core.OffsetFetchRequest{Group: req.Group, RequireStable: req.Version >= 7 && req.RequireStable}
	if req.Topics != nil {
		fr.Partitions = []core.OffsetFetchPartition{}
		for _, t := range req.Topics {
			for _, p := range t.Partitions {
				fr.Partitions = append(fr.Partitions, core.OffsetFetchPartition{Topic: t.Topic, Partition: p})
			}
		}
		fr.None = len(fr.Partitions) == 0 // a list of no partitions, not null: nothing
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
		add := func(topic string, part int32, off int64, code int16, meta string, epoch int32) {
			i := topicAt(byTopic, &resp.Topics, topic, func(t string) kmsg.OffsetFetchResponseTopic {
				rt := kmsg.NewOffsetFetchResponseTopic()
				rt.Topic = t
				return rt
			})
			rp := kmsg.NewOffsetFetchResponseTopicPartition()
			rp.Partition, rp.Offset, rp.ErrorCode, rp.LeaderEpoch, rp.Metadata = part, off, code, epoch, &meta
			resp.Topics[i].Partitions = append(resp.Topics[i].Partitions, rp)
		}
		if top != 0 && req.Version < 2 {
			// OffsetFetchResponse: below v2 the group's error goes on
			// every partition asked for.
			for _, p := range fr.Partitions {
				add(p.Topic, p.Partition, -1, top, "", -1)
			}
			return resp
		}
		for _, p := range a.Partitions {
			add(p.Topic, p.Partition, p.Offset, errCode(p.Error), p.Metadata, p.LeaderEpoch)
		}
		return resp
	}}, nil
}

// offsetFetchGroups is OffsetFetch v8+: the groups of one request, in
// one core request.
func offsetFetchGroups(cx *reqCtx, req *kmsg.OffsetFetchRequest) *plan {
	if len(req.Groups) == 0 {
		return local(cx, func() kmsg.Response { return req.ResponseKind() })
	}
	fr := &core.OffsetFetchRequest{RequireStable: req.RequireStable}
	for _, g := range req.Groups {
		og := core.OffsetFetchGroup{Group: g.Group, All: g.Topics == nil}
		if g.Topics != nil {
			for _, t := range g.Topics {
				for _, p := range t.Partitions {
					og.Partitions = append(og.Partitions, core.OffsetFetchPartition{Topic: t.Topic, Partition: p})
				}
			}
		}
		fr.Groups = append(fr.Groups, og)
	}
	return &plan{req: core.BrokerRequest{OffsetFetch: fr}, finish: func(rep *core.Reply) kmsg.Response {
		resp := req.ResponseKind().(*kmsg.OffsetFetchResponse)
		if rep.OffsetFetch == nil {
			return resp
		}
		for _, g := range rep.OffsetFetch.Groups {
			rg := kmsg.NewOffsetFetchResponseGroup()
			rg.Group, rg.ErrorCode = g.Group, errCode(g.Error)
			byTopic := map[string]int{}
			for _, p := range g.Partitions {
				i := topicAt(byTopic, &rg.Topics, p.Topic, func(t string) kmsg.OffsetFetchResponseGroupTopic {
					rt := kmsg.NewOffsetFetchResponseGroupTopic()
					rt.Topic = t
					return rt
				})
				rp := kmsg.NewOffsetFetchResponseGroupTopicPartition()
				meta := p.Metadata
				rp.Partition, rp.Offset, rp.ErrorCode, rp.LeaderEpoch, rp.Metadata = p.Partition, p.Offset, errCode(p.Error), p.LeaderEpoch, &meta
				rg.Topics[i].Partitions = append(rg.Topics[i].Partitions, rp)
			}
			resp.Groups = append(resp.Groups, rg)
		}
		return resp
	}}
}
