package core

// OffsetsForLeaderEpoch (KIP-101, 0.11+): a follower, before fetching from
// a new leader, asks where its latest epoch ends in the leader's log, and
// truncates there.

// offsetsForLeaderEpochReq is an OffsetsForLeaderEpoch request from a
// follower broker.
type offsetsForLeaderEpochReq struct {
	replica int
	parts   []epochQuery
}

// epochQuery is one partition of an OffsetsForLeaderEpoch request: the
// follower's current leader epoch (fencing, KIP-320) and the epoch it asks
// about.
type epochQuery struct {
	p            *Partition
	currentEpoch int32
	leaderEpoch  int32
}

// epochEnd is one partition of an OffsetsForLeaderEpoch response: the
// largest epoch <= the one asked about and its end offset in the leader's
// log (-1, -1: undefined), or an error name.
type epochEnd struct {
	p           *Partition
	leaderEpoch int32
	endOffset   int64
	err         string
}

// handleOffsetsForLeaderEpoch is KafkaApis.handleOffsetForLeaderEpochRequest
// on the leader: the requester's current epoch must be this leader's.
func (b *Broker) handleOffsetsForLeaderEpoch(req offsetsForLeaderEpochReq) []epochEnd {
	out := make([]epochEnd, len(req.parts))
	for i, q := range req.parts {
		res := epochEnd{p: q.p, leaderEpoch: -1, endOffset: -1}
		lr := b.replicas[q.p]
		switch {
		case lr == nil || lr.role != roleLeader:
			res.err = "NOT_LEADER_OR_FOLLOWER"
		case lr.epoch < q.currentEpoch:
			res.err = "UNKNOWN_LEADER_EPOCH"
		case lr.epoch > q.currentEpoch:
			res.err = "FENCED_LEADER_EPOCH"
		default:
			res.leaderEpoch, res.endOffset = lr.endOffsetFor(q.leaderEpoch)
		}
		out[i] = res
	}
	return out
}
