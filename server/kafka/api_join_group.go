package kafka

// JoinGroup (key 11), v0-v9.
//
// The classic group protocol on the coordinator: the same
// GroupCoordinator logic as the simulated consumers (generations,
// MEMBER_ID_REQUIRED from 2.2 for v4+ clients without an instance id
// (kafka-python 2.0 sends v2 and would not know the code), static
// membership v5+,
// the initial rebalance delay, session and rebalance timeouts in
// simulated time). Only the "consumer" protocol type is served: its
// metadata is decoded to topics and owned partitions for the core, and
// the leader, which assigns, gets each member's metadata for the chosen
// protocol as the member sent it (GroupCoordinator keeps
// MemberMetadata.supportedProtocols as bytes), user data included; a
// simulated member's, or one past core.MaxRawAssignmentBytes (a request's,
// or the group's in all), is encoded from its subscription.
//
// v8 adds the client's reason for joining (KIP-800), which Kafka only
// logs, in the rebalance it starts ("client reason: ..."): here the
// group's event, the first core.MaxJoinReasonBytes of it. v9 (KIP-814)
// is for a static member that comes back under a new member id while its
// group is Stable and its assignors change nothing: the group keeps its
// generation and assignment, and from v9 a leader is answered with the
// members and SkipAssignment, so that it knows it leads (and watches the
// metadata) without running the assignor; below v9 the answer names the
// leader as it was, the old member id, and no members
// (GroupCoordinator.updateStaticMemberAndRebalance; 4.0's
// GroupMetadataManager.updateStaticMemberThenRebalanceOrCompleteJoin does
// the same). That answer comes once the group, with the new member id, is
// written to __consumer_offsets (storeGroup, acks=all); if the write
// fails, the member keeps its old id and the answer is the error. A
// JoinGroup or SyncGroup the old id still awaits is answered
// FENCED_INSTANCE_ID (GroupMetadata.replaceStaticMember).

import (
	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(11, 0, 9, handleJoinGroup) }

func handleJoinGroup(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.JoinGroupRequest)
	jr := &core.JoinGroupRequest{Group: req.Group, MemberID: req.MemberID, ClientID: cx.h.clientID,
		SessionMs: req.SessionTimeoutMillis, RebalanceMs: req.RebalanceTimeoutMillis, Generation: -1,
		PreKIP394: req.Version < 4, // KIP-394: MEMBER_ID_REQUIRED only for v4+
		PreKIP814: req.Version < 9} // KIP-814: SkipAssignment from v9
	if req.Reason != nil {
		jr.Reason = truncate(*req.Reason, core.MaxJoinReasonBytes)
	}
	if req.Version == 0 {
		jr.RebalanceMs = req.SessionTimeoutMillis
	}
	if req.InstanceID != nil {
		jr.InstanceID = *req.InstanceID
	}
	bad := req.ProtocolType != "consumer"
	raw := 0
	for i, p := range req.Protocols {
		jr.Protocols = append(jr.Protocols, p.Name)
		jr.Metadata = append(jr.Metadata, string(p.Metadata))
		raw += len(p.Metadata)
		if i == 0 {
			topics, owned, gen, ok := decodeSubscription(p.Metadata)
			bad = bad || !ok
			jr.Topics, jr.Owned, jr.Generation = topics, owned, gen
		}
	}
	if raw > core.MaxRawAssignmentBytes {
		jr.Metadata = nil // too large to keep as sent: re-encoded from the subscription
	}
	if bad {
		jr.Protocols, jr.Metadata = nil, nil // the core answers INCONSISTENT_GROUP_PROTOCOL
	}
	return &plan{req: core.BrokerRequest{JoinGroup: jr}, finish: func(rep *core.Reply) kmsg.Response {
		resp := req.ResponseKind().(*kmsg.JoinGroupResponse)
		a := rep.JoinGroup
		if a == nil {
			return resp
		}
		resp.ErrorCode, resp.Generation, resp.LeaderID, resp.MemberID = errCode(a.Error), a.Generation, a.Leader, a.MemberID
		resp.SkipAssignment = a.SkipAssignment
		if a.Protocol != "" {
			proto, typ := a.Protocol, "consumer"
			resp.Protocol, resp.ProtocolType = &proto, &typ
		}
		for _, m := range a.Members {
			rm := kmsg.NewJoinGroupResponseMember()
			rm.MemberID, rm.ProtocolMetadata = m.MemberID, encodeSubscription(m)
			if m.Metadata != "" {
				rm.ProtocolMetadata = []byte(m.Metadata) // as the member sent it
			}
			if m.InstanceID != "" {
				id := m.InstanceID
				rm.InstanceID = &id
			}
			resp.Members = append(resp.Members, rm)
		}
		return resp
	}}, nil
}

// truncate is s's first n bytes at most.
func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
