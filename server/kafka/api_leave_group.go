package kafka

// LeaveGroup (key 13), v0-v5 (v3+ leave several members at once, KIP-345;
// v5 gives each member's reason, KIP-800, which Kafka only logs).
//
// The member leaves at once and the group rebalances, instead of waiting
// for its session to expire. Members named only by instance id (v3+) are
// answered UNKNOWN_MEMBER_ID: the simulated coordinator removes members by
// member id.

import (
	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(13, 0, 5, handleLeaveGroup) }

func handleLeaveGroup(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.LeaveGroupRequest)
	lr := &core.LeaveGroupRequest{Group: req.Group}
	if req.Version < 3 {
		lr.MemberIDs = []string{req.MemberID}
	}
	for _, m := range req.Members {
		lr.MemberIDs = append(lr.MemberIDs, m.MemberID)
	}
	return &plan{req: core.BrokerRequest{LeaveGroup: lr}, finish: func(rep *core.Reply) kmsg.Response {
		resp := req.ResponseKind().(*kmsg.LeaveGroupResponse)
		a := rep.LeaveGroup
		if a == nil {
			return resp
		}
		// LeaveGroupResponse(data, version): below v3 a top-level error
		// stands, else the one member's error is raised to the top.
		if req.Version < 3 {
			resp.ErrorCode = errCode(a.Error)
			if a.Error == "" && len(a.Members) > 0 {
				resp.ErrorCode = errCode(a.Members[0])
			}
			return resp
		}
		resp.ErrorCode = errCode(a.Error)
		if a.Error != "" {
			return resp // the whole request failed: no members (leaveError(error, List.empty))
		}
		for i, m := range req.Members {
			rm := kmsg.NewLeaveGroupResponseMember()
			rm.MemberID, rm.InstanceID = m.MemberID, m.InstanceID
			if i < len(a.Members) {
				rm.ErrorCode = errCode(a.Members[i])
			}
			resp.Members = append(resp.Members, rm)
		}
		return resp
	}}, nil
}
