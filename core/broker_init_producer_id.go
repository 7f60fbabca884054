package core

// InitProducerId: an idempotent producer without a transactional id asks
// any broker for a producer id; the broker takes it from the block the
// controller allocated (ProducerIdManager; ZK: /latest_producer_id_block,
// KRaft: AllocateProducerIds). Transactions are not simulated.

// initProducerIDReq is an InitProducerId request. Only idempotent
// producers are simulated: a transactional id is refused.
type initProducerIDReq struct {
	transactionalID string
}

// initProducerIDResult is an InitProducerId response.
type initProducerIDResult struct {
	pid    int64
	pepoch int16
	err    string
}

// handleInitProducerId is KafkaApis.handleInitProducerIdRequest for a
// producer with no transactional id: a new id at epoch 0.
func (b *Broker) handleInitProducerId(req initProducerIDReq) initProducerIDResult {
	if req.transactionalID != "" {
		// No transaction coordinator: Kafka answers a request it cannot
		// serve this way when the coordinator is missing.
		return initProducerIDResult{pid: -1, pepoch: -1, err: "COORDINATOR_NOT_AVAILABLE"}
	}
	return initProducerIDResult{pid: b.c.md.allocatePID()}
}
