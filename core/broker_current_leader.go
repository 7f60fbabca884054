package core

import "slices"

// KIP-951 (3.7+, "Leader discovery optimisations for the client"): a broker
// that answers a Produce with NOT_LEADER_OR_FOLLOWER, or a Fetch with
// NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH, names the partition's
// current leader and its epoch as it knows them (Produce v10+, Fetch v16+;
// KafkaApis.getCurrentLeader), with that leader's endpoint. The client takes
// a newer leader at once (Metadata.updatePartitionLeadership) instead of
// waiting for a metadata refresh: the producer resends the batch without
// its retry backoff (ProducerBatch.hasLeaderChangedForTheOngoingRetry), the
// consumer fetches from the new leader.
//
// Kafka decides by the request's version; here a request's leaderHints
// does: the simulated clients' requests set it from 3.7 (preset kip951),
// a real client's always, and the protocol layer sends the leader only in
// v10+ Produce and v16+ Fetch responses.

// leaderHint is what b knows of p's leader, for a partition it refused
// (KafkaApis.getCurrentLeader): its own replica's leader and epoch when it
// hosts p, else its metadata cache's, else none. It is the one source of
// the hint, for the simulated clients and real ones alike.
func (b *Broker) leaderHint(p *Partition) *LeaderHint {
	h := &LeaderHint{LeaderID: -1, LeaderEpoch: -1}
	if r := b.replicas[p]; r != nil {
		h.LeaderID, h.LeaderEpoch = r.leader, r.epoch
	} else if st, ok := b.cache[p]; ok {
		h.LeaderID, h.LeaderEpoch = st.leader, st.epoch
	}
	if h.LeaderID > 0 && h.LeaderID <= len(b.c.brokers) && contains(b.c.md.liveIDs(), h.LeaderID) {
		h.Live, h.Rack = true, b.c.brokers[h.LeaderID-1].Rack
	}
	return h
}

// namesLeader reports whether a broker names the current leader with this
// error, for a request whose version carries it (KafkaApis: Produce v10+ on
// NOT_LEADER_OR_FOLLOWER; Fetch v16+ also on FENCED_LEADER_EPOCH).
func namesLeader(err string, fetch bool) bool {
	return err == "NOT_LEADER_OR_FOLLOWER" || fetch && err == "FENCED_LEADER_EPOCH"
}

// namingLeaders wraps a Produce's respond so that each partition answered
// NOT_LEADER_OR_FOLLOWER names the current leader as the broker knows it
// when the response is made (KafkaApis.handleProduceRequest's callback,
// v10+): for an acks=all request that waited, that is when it completes.
func (b *Broker) namingLeaders(respond func([]produceResult)) func([]produceResult) {
	return func(res []produceResult) {
		for i := range res {
			if namesLeader(res[i].err, false) {
				res[i].leader = b.leaderHint(res[i].p)
			}
		}
		respond(res)
	}
}

// namingFetchLeaders wraps a Fetch's respond so that each partition
// answered NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH names the current
// leader as the broker knows it when the response is made
// (KafkaApis.handleFetchRequest's processResponseCallback, v16+). A fetch
// is answered as soon as it is read, parked or not, so that is when its
// partitions were read.
func (b *Broker) namingFetchLeaders(respond func([]fetchResult)) func([]fetchResult) {
	return func(res []fetchResult) {
		for i := range res {
			if namesLeader(res[i].err, true) {
				res[i].leader = b.leaderHint(res[i].p)
			}
		}
		respond(res)
	}
}

// takeLeader is the client's Metadata.updatePartitionLeadership for one
// partition: it takes the hint only when it names a leader whose node the
// client can reach (the response's endpoint for it, which a broker gives
// only for a live leader, or one of the nodes its last metadata answer
// listed: "leader's node is missing in the new-nodes" is skipped), the
// client already knows the partition, and the hint's epoch is newer than
// the client's (an older or equal one is ignored, as a stale metadata
// answer is under KIP-320). It reports whether it took it.
func (m *metaView) takeLeader(p *Partition, h *LeaderHint) bool {
	if h == nil || h.LeaderID < 0 || h.LeaderEpoch < 0 || m.c.Broker(h.LeaderID) == nil {
		return false
	}
	if !h.Live && !slices.Contains(m.nodes, h.LeaderID) {
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
