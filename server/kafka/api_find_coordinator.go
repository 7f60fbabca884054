package kafka

// FindCoordinator (key 10), v0-v6.
//
// The coordinator of a group is the leader of its __consumer_offsets
// partition (abs(hashCode) % 50), as the asked broker's metadata cache has
// it; the first request creates __consumer_offsets, answered
// COORDINATOR_NOT_AVAILABLE until its leaders are elected. Transaction
// coordinators (key type 1) are not simulated: a transactional id is
// TRANSACTIONAL_ID_AUTHORIZATION_FAILED, as from a Kafka whose authorizer
// denies it (KafkaApis.getCoordinator), fatal to clients where a
// retriable error had them retry until their timeout. Neither are
// coordinators in the 0.8 preset, where groups live in ZooKeeper.
//
// v1-v3 answer with an error message, as Kafka does: Errors.message(),
// the error's description, and "NONE" on success
// (KafkaApis.handleFindCoordinatorRequestLessThanV4; an error is the
// request's error response, FindCoordinatorResponse.prepareOldResponse,
// node -1, host "", port -1).
//
// v4 (KIP-699) batches keys: CoordinatorKeys, each looked up as v3 looks
// up its one key and answered in Coordinators, in order, with no error
// message (handleFindCoordinatorRequestV4AndAbove); no key, no
// coordinator. v5 only adds TRANSACTION_ABORTABLE (KIP-890), which no
// answer here carries. v6 admits key type 2, a share-partition key for
// the share coordinator (KIP-932): below v6 that key type is
// INVALID_REQUEST (getCoordinator); at v6 3.9, which has no share
// coordinator yet, answers COORDINATOR_NOT_AVAILABLE, and 4.0 answers
// INVALID_REQUEST unless share groups are enabled (group.share.enable
// and the share rebalance protocol are off by default:
// BrokerServer.createShareCoordinator gives None). A key type Kafka does
// not know (CoordinatorType.forId throws InvalidRequestException) is the
// request's error response: INVALID_REQUEST with its message for every
// key (FindCoordinatorRequest.getErrorResponse).

import (
	"context"
	"slices"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(10, 0, 6, handleFindCoordinator) }

const (
	coordinatorNotAvailable = 15
	invalidRequest          = 42
)

// errorMessage is Kafka's Errors.message() for code: the error's
// description, or "NONE" for no error.
func errorMessage(code int16) *string {
	msg := "NONE"
	if code != 0 {
		msg = kerr.ErrorForCode(code).(*kerr.Error).Description
	}
	return &msg
}

// preset is the cluster's preset version as the answer is made.
func (cx *reqCtx) preset() string {
	var v string
	cx.s.backend.Do(context.Background(), func(c *core.Cluster) { v = c.Version() })
	return v
}

func handleFindCoordinator(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.FindCoordinatorRequest)
	switch req.CoordinatorType {
	case 0, 1:
	case 2:
		return local(cx, func() kmsg.Response {
			code := int16(invalidRequest)
			if req.Version >= 6 && cx.preset() == "3.9" {
				code = coordinatorNotAvailable
			}
			return findCoordinatorError(req, code, req.Version < 4)
		}), nil
	default:
		return local(cx, func() kmsg.Response { return findCoordinatorError(req, invalidRequest, true) }), nil
	}
	fr := &core.FindCoordinatorRequest{Key: req.CoordinatorKey, KeyType: req.CoordinatorType}
	if req.Version >= 4 {
		if len(req.CoordinatorKeys) == 0 {
			return local(cx, func() kmsg.Response { return req.ResponseKind() }), nil
		}
		fr.Key, fr.Keys = "", slices.Clone(req.CoordinatorKeys)
	}
	return &plan{req: core.BrokerRequest{FindCoordinator: fr}, finish: func(rep *core.Reply) kmsg.Response {
		resp := req.ResponseKind().(*kmsg.FindCoordinatorResponse)
		resp.NodeID, resp.Port = -1, -1
		a := rep.FindCoordinator
		if a == nil {
			return resp
		}
		if req.Version >= 4 {
			for _, k := range a.Coordinators {
				rc := kmsg.NewFindCoordinatorResponseCoordinator()
				rc.Key, rc.ErrorCode = k.Key, errCode(k.Error)
				rc.NodeID, rc.Port = -1, -1 // Node.noNode
				if k.Error == "" && k.Coordinator > 0 {
					host, port := cx.s.Addr(k.Coordinator)
					rc.NodeID, rc.Host, rc.Port = int32(k.Coordinator), host, int32(port)
				}
				resp.Coordinators = append(resp.Coordinators, rc)
			}
			return resp
		}
		resp.ErrorCode = errCode(a.Error)
		if req.Version >= 1 {
			resp.ErrorMessage = errorMessage(resp.ErrorCode)
		}
		if a.Error == "" && a.Coordinator > 0 {
			host, port := cx.s.Addr(a.Coordinator)
			resp.NodeID, resp.Host, resp.Port = int32(a.Coordinator), host, int32(port)
		}
		return resp
	}}, nil
}

// findCoordinatorError answers every key of req with code and no node,
// with the error's message if withMessage (always below v4, where the
// error is the response's own).
func findCoordinatorError(req *kmsg.FindCoordinatorRequest, code int16, withMessage bool) kmsg.Response {
	resp := req.ResponseKind().(*kmsg.FindCoordinatorResponse)
	if req.Version < 4 {
		resp.ErrorCode, resp.NodeID, resp.Port = code, -1, -1
		if req.Version >= 1 {
			resp.ErrorMessage = errorMessage(code)
		}
		return resp
	}
	for _, key := range req.CoordinatorKeys {
		rc := kmsg.NewFindCoordinatorResponseCoordinator()
		rc.Key, rc.ErrorCode, rc.NodeID, rc.Port = key, code, -1, -1
		if withMessage {
			rc.ErrorMessage = errorMessage(code)
		}
		resp.Coordinators = append(resp.Coordinators, rc)
	}
	return resp
}
