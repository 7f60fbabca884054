package core

// The errors a failed write to __consumer_offsets answers. The
// coordinator appends with acks=all (appendInternalAt; 4.0 with acks=1,
// waiting for the high watermark, appendRuntime) and gets the produce
// path's error; what it answers depends on what it wrote and on the
// coordinator:
//
//	append error                      3.9 group   3.9 offsets   4.0 (both)
//	UNKNOWN_TOPIC_OR_PARTITION        CNA         CNA           CNA
//	NOT_ENOUGH_REPLICAS               CNA         CNA           CNA
//	NOT_ENOUGH_REPLICAS_AFTER_APPEND  CNA         CNA           CNA (runtimeStoreError)
//	REQUEST_TIMED_OUT                 REBALANCE   TIMED_OUT     CNA
//	NOT_LEADER_OR_FOLLOWER            NC          NC            NC
//	KAFKA_STORAGE_ERROR               NC          NC            NC
//	MESSAGE_TOO_LARGE and the like    UNKNOWN     COMMIT_SIZE   UNKNOWN
//
// (CNA: COORDINATOR_NOT_AVAILABLE, NC: NOT_COORDINATOR, REBALANCE:
// REBALANCE_IN_PROGRESS, TIMED_OUT: REQUEST_TIMED_OUT, UNKNOWN:
// UNKNOWN_SERVER_ERROR, COMMIT_SIZE: INVALID_COMMIT_OFFSET_SIZE; "the
// like": RECORD_LIST_TOO_LARGE, INVALID_FETCH_SIZE; any other error is
// answered as it is.)
// Sources: GroupMetadataManager.storeGroup's putCacheCallback and
// GroupMetadataManager.maybeConvertOffsetCommitError (storeOffsets) from
// 0.11 to 3.9; 4.0's GroupMetadataManager
// .appendGroupMetadataErrorToResponseError for a classic group's records
// and CoordinatorOperationExceptionHelper.handleOperationException for an
// OffsetCommit (GroupCoordinatorService.commitOffsets), whose
// CoordinatorRuntime fails a write that outlives offsets.commit.timeout.ms
// with a TimeoutException (REQUEST_TIMED_OUT).

// storeGroupError is the answer to a failed write of a group's metadata
// (storeGroup): appendErr is the produce path's error, never "".
func (co *coordinator) storeGroupError(appendErr string) string {
	if co.b.c.preset.runtimeStoreErrors {
		return runtimeStoreError(appendErr)
	}
	switch appendErr {
	case "REQUEST_TIMED_OUT":
		// The records may still be committed later; REBALANCE_IN_PROGRESS
		// makes the members join again at once (AbstractCoordinator's
		// JoinGroupResponseHandler: "which could indicate a replication
		// timeout on the broker").
		return "REBALANCE_IN_PROGRESS"
	case "MESSAGE_TOO_LARGE", "RECORD_LIST_TOO_LARGE", "INVALID_FETCH_SIZE":
		return "UNKNOWN_SERVER_ERROR"
	}
	return commonStoreError(appendErr)
}

// storeOffsetsError is the answer to a failed write of an OffsetCommit's
// offsets (storeOffsets, maybeConvertOffsetCommitError): a timeout stays
// REQUEST_TIMED_OUT up to 3.9. The consumer marks the coordinator
// unknown on it, as on COORDINATOR_NOT_AVAILABLE and NOT_COORDINATOR
// (commitMarksCoordinatorUnknown, ConsumerCoordinator
// .OffsetCommitResponseHandler), and commitSync retries it.
func (co *coordinator) storeOffsetsError(appendErr string) string {
	if co.b.c.preset.runtimeStoreErrors {
		return runtimeStoreError(appendErr)
	}
	switch appendErr {
	case "MESSAGE_TOO_LARGE", "RECORD_LIST_TOO_LARGE", "INVALID_FETCH_SIZE":
		return "INVALID_COMMIT_OFFSET_SIZE"
	}
	return commonStoreError(appendErr)
}

// runtimeStoreError is 4.0's mapping, the same for group records and
// offsets. 4.0's CoordinatorPartitionWriter appends with acks=1 and the
// runtime waits for the high watermark (appendRuntime), so neither
// NOT_ENOUGH_REPLICAS nor NOT_ENOUGH_REPLICAS_AFTER_APPEND reaches it: an
// ISR below min.insync.replicas holds the high watermark and the write
// times out, COORDINATOR_NOT_AVAILABLE. Both stay mapped as Kafka's table
// has them (the first) or as the timeout they would stand for.
func runtimeStoreError(appendErr string) string {
	switch appendErr {
	case "REQUEST_TIMED_OUT", "NOT_ENOUGH_REPLICAS_AFTER_APPEND":
		return "COORDINATOR_NOT_AVAILABLE"
	case "MESSAGE_TOO_LARGE", "RECORD_LIST_TOO_LARGE", "INVALID_FETCH_SIZE":
		return "UNKNOWN_SERVER_ERROR"
	}
	return commonStoreError(appendErr)
}

// commonStoreError is the part of the mapping every coordinator shares;
// any other error is answered as it is.
func commonStoreError(appendErr string) string {
	switch appendErr {
	case "UNKNOWN_TOPIC_OR_PARTITION", "NOT_ENOUGH_REPLICAS", "NOT_ENOUGH_REPLICAS_AFTER_APPEND":
		return "COORDINATOR_NOT_AVAILABLE"
	case "NOT_LEADER_OR_FOLLOWER", "KAFKA_STORAGE_ERROR":
		return "NOT_COORDINATOR"
	}
	return appendErr
}
