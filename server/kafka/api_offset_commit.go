package kafka

// OffsetCommit (key 8), v2-v9.
//
// The group coordinator validates the member and generation and writes
// the offsets to __consumer_offsets (acks=all) before answering. A
// commit with generation -1 comes from a consumer outside the group
// protocol (assign()) and is taken while the group is empty. A commit
// with a generation for a group the coordinator does not have is
// refused and leaves no group behind: ILLEGAL_GENERATION
// (GroupCoordinator.handleCommitOffsets). v9 is the KIP-848 version with
// v8's fields, GenerationIdOrMemberEpoch being a classic group's
// generation; from it 4.0's coordinator answers that commit
// GROUP_ID_NOT_FOUND instead (OffsetMetadataManager.validateOffsetCommit),
// 3.9's old one still ILLEGAL_GENERATION. Each partition's committed
// metadata and, from v6, committed leader epoch are stored with its
// offset (OffsetAndMetadata) and OffsetFetch answers them; metadata
// longer than offset.metadata.max.bytes (4096 Java chars) is
// OFFSET_METADATA_TOO_LARGE for that partition, the others written
// (GroupMetadataManager.storeOffsets). Retention times and v7's
// group.instance.id are not kept.

import (
	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(8, 2, 9, handleOffsetCommit) }

func handleOffsetCommit(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.OffsetCommitRequest)
	or := &core.OffsetCommitRequest{Group: req.Group, Generation: req.Generation, MemberID: req.MemberID, KIP848: req.Version >= 9}
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			op := core.OffsetCommitPartition{Topic: t.Topic, Partition: p.Partition, Offset: p.Offset}
			if p.Metadata != nil { // null is NoMetadata, as ""
				op.Metadata = *p.Metadata
			}
			if req.Version >= 6 && p.LeaderEpoch != -1 {
				epoch := p.LeaderEpoch
				op.LeaderEpoch = &epoch
			}
			or.Partitions = append(or.Partitions, op)
		}
	}
	return &plan{req: core.BrokerRequest{OffsetCommit: or}, finish: func(rep *core.Reply) kmsg.Response {
		resp := req.ResponseKind().(*kmsg.OffsetCommitResponse)
		if rep.OffsetCommit == nil {
			return resp
		}
		byTopic := map[string]int{}
		for _, p := range rep.OffsetCommit.Partitions {
			i := topicAt(byTopic, &resp.Topics, p.Topic, func(t string) kmsg.OffsetCommitResponseTopic {
				rt := kmsg.NewOffsetCommitResponseTopic()
				rt.Topic = t
				return rt
			})
			rp := kmsg.NewOffsetCommitResponseTopicPartition()
			rp.Partition, rp.ErrorCode = p.Partition, errCode(p.Error)
			resp.Topics[i].Partitions = append(resp.Topics[i].Partitions, rp)
		}
		return resp
	}}, nil
}
