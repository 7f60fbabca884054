package kafka

// InitProducerId (key 22), v0-v5 (v5, KIP-890, only allows
// TRANSACTION_ABORTABLE for a transactional producer: the same as v4
// without transactions).
//
// An idempotent producer asks any broker for a producer id, from the
// block the simulated controller allocated. A transactional id gets
// TRANSACTIONAL_ID_AUTHORIZATION_FAILED (as FindCoordinator answers it):
// transactions are not simulated. v3+ may
// carry an existing id and epoch to bump (KIP-360); the simulated broker
// hands out a new id instead, which a producer accepts.

import (
	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(22, 0, 5, handleInitProducerID) }

func handleInitProducerID(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.InitProducerIDRequest)
	ir := &core.InitProducerIDRequest{}
	if req.TransactionalID != nil {
		ir.TransactionalID = *req.TransactionalID
	}
	return &plan{req: core.BrokerRequest{InitProducerID: ir}, finish: func(rep *core.Reply) kmsg.Response {
		resp := req.ResponseKind().(*kmsg.InitProducerIDResponse)
		resp.ProducerID, resp.ProducerEpoch = -1, -1
		if a := rep.InitProducerID; a != nil {
			resp.ErrorCode, resp.ProducerID, resp.ProducerEpoch = errCode(a.Error), a.ProducerID, a.ProducerEpoch
		}
		return resp
	}}, nil
}
