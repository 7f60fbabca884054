package kafka

// Heartbeat (key 12), v0-v4.
//
// Keeps a member's session alive on the coordinator; REBALANCE_IN_PROGRESS
// tells it to rejoin, UNKNOWN_MEMBER_ID and ILLEGAL_GENERATION that it was
// expelled or is behind, FENCED_INSTANCE_ID (v3+) that another instance
// with its group.instance.id replaced it.

import (
	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(12, 0, 4, handleHeartbeat) }

func handleHeartbeat(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.HeartbeatRequest)
	hr := &core.HeartbeatRequest{Group: req.Group, MemberID: req.MemberID, Generation: req.Generation}
	if req.InstanceID != nil {
		hr.InstanceID = *req.InstanceID
	}
	return &plan{req: core.BrokerRequest{Heartbeat: hr}, finish: func(rep *core.Reply) kmsg.Response {
		resp := req.ResponseKind().(*kmsg.HeartbeatResponse)
		if rep.Heartbeat != nil {
			resp.ErrorCode = errCode(rep.Heartbeat.Error)
		}
		return resp
	}}, nil
}
