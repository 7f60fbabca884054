package core

// OffsetCommit and OffsetFetch on the group coordinator (KafkaApis hands
// them to the GroupCoordinator; the logic is coordinator_offsets.go).

// offsetFetchReq is an OffsetFetch request for some partitions of a group.
type offsetFetchReq struct {
	group         string
	parts         []*Partition
	requireStable bool // OffsetFetch v7+ require_stable (KIP-447)
}

// offsetFetchResult is an OffsetFetch response: each partition's committed
// offset (-1: none) and what was committed with it, the partitions to
// answer UNSTABLE_OFFSET_COMMIT (with offset -1 on the wire; offsets
// still holds what the group last committed there), or a group-level
// error name in err (NOT_COORDINATOR...).
type offsetFetchResult struct {
	offsets  map[*Partition]int64
	meta     map[*Partition]commitMeta // the offsets' metadata and leader epochs, where they have any
	unstable map[*Partition]bool
	err      string
}

// handleOffsetCommit is GroupCoordinator.handleCommitOffsets: respond gets
// "" or an error name once the offsets are stored in __consumer_offsets
// (acks=all) or refused, and the partitions answered
// OFFSET_METADATA_TOO_LARGE instead (coordinator.commitOffsets).
func (b *Broker) handleOffsetCommit(req commitReq, respond func(err string, tooLarge map[*Partition]bool)) {
	b.groups.commitOffsets(req, respond)
}

// handleOffsetFetch is GroupCoordinator.handleFetchOffsets: respond gets
// the answer, at once or (4.0, require_stable) once the writes before it
// have ended.
func (b *Broker) handleOffsetFetch(req offsetFetchReq, respond func(offsetFetchResult)) {
	b.groups.fetchOffsets(req.group, req.parts, req.requireStable, respond)
}
