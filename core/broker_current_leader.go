package core

// KIP-951 (3.7+, "Leader discovery optimisations for the client"): a broker
// that answers a Produce with NOT_LEADER_OR_FOLLOWER, or a Fetch with
// NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH, names the partition's
// current leader and its epoch as it knows them (Produce v10+, Fetch v16+;
// KafkaApis.getCurrentLeader), with that leader's endpoint. The client takes
// a newer leader at once (Metadata.updatePartitionLeadership) instead of
// waiting for a metadata refresh: the producer resends the batch without
// its retry backoff (ProducerBatch.hasLeaderChangedForTheOngoingRetry), the
// consumer fetches from the new leader.

// currentLeader is the leader a 3.7+ broker names for p when it refuses
// a simulated client's Produce or Fetch (leaderHint, KafkaApis
// .getCurrentLeader); nil before 3.7, whose brokers name none.
func (b *Broker) currentLeader(p *Partition) *LeaderHint {
	if !b.c.preset.kip951 {
		return nil
	}
	return b.leaderHint(p)
}

// namesLeader reports whether a 3.7+ broker names the current leader with
// this error (KafkaApis: Produce on NOT_LEADER_OR_FOLLOWER; Fetch also on
// FENCED_LEADER_EPOCH).
func namesLeader(err string, fetch bool) bool {
	return err == "NOT_LEADER_OR_FOLLOWER" || fetch && err == "FENCED_LEADER_EPOCH"
}

// takeLeader is the client's Metadata.updatePartitionLeadership for one
// partition: it takes the hint only when it names a leader, the client
// already knows the partition, and the hint's epoch is newer than the
// client's (an older or equal one is ignored, as a stale metadata answer
// is under KIP-320). It reports whether it took it.
func (m *metaView) takeLeader(p *Partition, h *LeaderHint) bool {
	if h == nil || h.LeaderID < 0 || h.LeaderEpoch < 0 || m.c.Broker(h.LeaderID) == nil {
		return false
	}
	if _, known := m.leaders[p]; !known {
		return false
	}
	if e, ok := m.epochs[p]; ok && h.LeaderEpoch <= e {
		return false
	}
	m.leaders[p], m.epochs[p] = h.LeaderID, h.LeaderEpoch
	return true
}
