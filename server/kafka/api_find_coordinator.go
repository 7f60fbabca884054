package kafka

// FindCoordinator (key 10), v0-v3 (v4 batches keys, KIP-699; clients
// fall back to one key per request when a broker advertises v3, as
// brokers before 3.0 do).
//
// The coordinator of a group is the leader of its __consumer_offsets
// partition (abs(hashCode) % 50), as the asked broker's metadata cache has
// it; the first request creates __consumer_offsets, answered
// COORDINATOR_NOT_AVAILABLE until its leaders are elected. Transaction
// coordinators (key type 1) are not simulated; neither are coordinators
// in the 0.8 preset, where groups live in ZooKeeper.

import (
	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(10, 0, 3, handleFindCoordinator) }

func handleFindCoordinator(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.FindCoordinatorRequest)
	fr := &core.FindCoordinatorRequest{Key: req.CoordinatorKey, KeyType: req.CoordinatorType}
	return &plan{req: core.BrokerRequest{FindCoordinator: fr}, finish: func(rep *core.Reply) kmsg.Response {
		resp := req.ResponseKind().(*kmsg.FindCoordinatorResponse)
		resp.NodeID, resp.Port = -1, -1
		a := rep.FindCoordinator
		if a == nil {
			return resp
		}
		resp.ErrorCode = errCode(a.Error)
		if a.Error == "" && a.Coordinator > 0 {
			host, port := cx.s.Addr(a.Coordinator)
			resp.NodeID, resp.Host, resp.Port = int32(a.Coordinator), host, int32(port)
		}
		return resp
	}}, nil
}
