package core

// InitProducerId: an idempotent producer without a transactional id asks
// any broker for a producer id; the broker takes it from the block the
// controller allocated (ProducerIdManager; ZK: /latest_producer_id_block,
// KRaft: AllocateProducerIds). Transactions are not simulated.

// txnDenied is what a transactional id gets, from FindCoordinator (key
// type 1) and InitProducerId: the simulated brokers act as a Kafka whose
// authorizer denies every transactional id (KafkaApis.getCoordinator and
// handleInitProducerIdRequest check DESCRIBE and WRITE on
// TRANSACTIONAL_ID first). It is fatal to every client, which then fails
// at once; COORDINATOR_NOT_AVAILABLE, what a missing coordinator
// answers, is retriable, and a transactional producer (franz-go,
// librdkafka, sarama) retried it until its own timeout.
const txnDenied = "TRANSACTIONAL_ID_AUTHORIZATION_FAILED"

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
		return initProducerIDResult{pid: -1, pepoch: -1, err: txnDenied}
	}
	return initProducerIDResult{pid: b.c.md.allocatePID()}
}
