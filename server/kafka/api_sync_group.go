package kafka

// SyncGroup (key 14), v0-v5.
//
// The leader's assignment (consumer protocol bytes) is decoded to
// partitions for the core and stored by the coordinator in
// __consumer_offsets, and each member gets its share as the leader sent
// it: Kafka keeps the bytes and answers with them (franz-go compares
// them with its own plan after a SkipAssignment join, KIP-814). A member
// whose assignment came from a simulated leader, or from a request past
// core.MaxRawAssignmentBytes, gets it re-encoded. An assignment that does
// not parse is INCONSISTENT_GROUP_PROTOCOL for the leader.

import (
	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(14, 0, 5, handleSyncGroup) }

func handleSyncGroup(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.SyncGroupRequest)
	sr := &core.SyncGroupRequest{Group: req.Group, MemberID: req.MemberID, Generation: req.Generation}
	bad := false
	if len(req.GroupAssignment) > 0 {
		sr.Assignments = map[string][]core.GroupPartition{}
		sr.Raw = map[string]string{}
		raw := 0
		for _, ga := range req.GroupAssignment {
			parts, ok := decodeAssignment(ga.MemberAssignment)
			bad = bad || !ok
			sr.Assignments[ga.MemberID] = parts
			sr.Raw[ga.MemberID] = string(ga.MemberAssignment)
			raw += len(ga.MemberID) + len(ga.MemberAssignment)
		}
		if raw > core.MaxRawAssignmentBytes {
			sr.Raw = nil // too large to keep as sent: re-encoded from the partitions
		}
	}
	if bad {
		return local(cx, func() kmsg.Response {
			resp := req.ResponseKind().(*kmsg.SyncGroupResponse)
			resp.ErrorCode = 23 // INCONSISTENT_GROUP_PROTOCOL
			return resp
		}), nil
	}
	return &plan{req: core.BrokerRequest{SyncGroup: sr}, finish: func(rep *core.Reply) kmsg.Response {
		resp := req.ResponseKind().(*kmsg.SyncGroupResponse)
		a := rep.SyncGroup
		if a == nil {
			return resp
		}
		resp.ErrorCode = errCode(a.Error)
		if a.Error == "" {
			resp.MemberAssignment = encodeAssignment(a.Assignment)
			if a.Raw != "" {
				resp.MemberAssignment = []byte(a.Raw) // the leader's bytes, as Kafka keeps them
			}
			if a.Protocol != "" {
				proto, typ := a.Protocol, "consumer"
				resp.Protocol, resp.ProtocolType = &proto, &typ
			}
		}
		return resp
	}}, nil
}
