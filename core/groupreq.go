package core

import (
	"fmt"

	"github.com/kafkasim/kafkasim/core/assign"
	"github.com/kafkasim/kafkasim/core/log"
)

// joinReq is a JoinGroup request.
type joinReq struct {
	group       string
	memberID    string
	client      string
	instance    string
	protocols   []string
	sub         assign.Member
	sessionMs   int64
	rebalanceMs int64
}

// uuid returns a deterministic 8-hex-digit id (member ids are
// clientId + "-" + UUID in Kafka).
func (c *Cluster) uuid() string { return fmt.Sprintf("%08x", uint32(c.rng.Uint64())) }

// findCoordinator answers FindCoordinator on any broker: the leader of the
// group's __consumer_offsets partition, per this broker's metadata.
func (b *Broker) findCoordinator(groupID string) (int, string) {
	c := b.c
	p := c.offsetsPartition(groupID)
	if p == nil {
		if err := c.createOffsetsTopic(); err != nil {
			c.emit(Event{Type: EvInfo, Broker: b.ID, Group: groupID, Error: "COORDINATOR_NOT_AVAILABLE",
				Detail: fmt.Sprintf("cannot create %s: %v", offsetsTopic, err)})
		}
		return -1, "COORDINATOR_NOT_AVAILABLE"
	}
	st, ok := b.cache[p]
	if !ok || st.leader < 0 {
		return -1, "COORDINATOR_NOT_AVAILABLE"
	}
	return st.leader, ""
}

// commitReq is an OffsetCommit request; generation -1 with no member id is
// a commit from a consumer outside the group protocol.
type commitReq struct {
	group      string
	memberID   string
	generation int
	offsets    map[*Partition]int64
	order      []*Partition
}

// handleCommit is GroupCoordinator.handleCommitOffsets: validate the
// member and generation, append the offsets to __consumer_offsets
// (acks=all), then remember them.
func (co *coordinator) handleCommit(req commitReq, done func(string)) {
	g, err := co.lookup(req.group, true)
	if err != "" {
		done(err)
		return
	}
	switch {
	case req.generation < 0 && req.memberID == "" && (g.state == gsEmpty || len(g.members) == 0):
	case g.state == gsCompleting:
		done("REBALANCE_IN_PROGRESS")
		return
	case g.members[req.memberID] == nil:
		done("UNKNOWN_MEMBER_ID")
		return
	case req.generation != g.generation:
		done("ILLEGAL_GENERATION")
		return
	}
	if len(req.order) == 0 {
		done("")
		return
	}
	recs := make([]log.Record, 0, len(req.order))
	for _, p := range req.order {
		recs = append(recs, log.Record{Key: "offset", Value: offsetValue(g.id, p, req.offsets[p]), HasKey: true})
	}
	co.appendInternalAt(g.p, recs, func(e string, base int64) {
		if e == "" && co.groups[g.id] == g {
			for i, p := range req.order {
				old, had := g.offsets[p]
				g.offsets[p] = req.offsets[p]
				co.b.c.history.commit(CommitRecord{Group: g.id, Partition: p.Name, Offset: req.offsets[p], At: co.b.c.now, Log: g.p.Name, LogOffset: base + int64(i)})
				co.b.c.emit(Event{Type: EvCommit, Group: g.id, Partition: p.Name, Offset: req.offsets[p], Broker: co.b.ID,
					Detail: fmt.Sprintf("stored in %s", g.p.Name), Minor: had && old == req.offsets[p]})
			}
		}
		done(e)
	})
}

// handleOffsetFetch returns committed offsets (-1 where none).
func (co *coordinator) handleOffsetFetch(groupID string, parts []*Partition) (map[*Partition]int64, string) {
	p := co.b.c.offsetsPartition(groupID)
	if p == nil || !co.loaded[p] {
		return nil, "NOT_COORDINATOR"
	}
	out := map[*Partition]int64{}
	g := co.groups[groupID]
	for _, tp := range parts {
		out[tp] = -1
		if g != nil {
			if off, ok := g.offsets[tp]; ok {
				out[tp] = off
			}
		}
	}
	return out, ""
}

// onLeadershipChange loads or unloads groups when this broker starts or
// stops leading an offsets partition (GroupCoordinator.onElection/onResignation).
func (r *Replica) onLeadershipChange() {
	if r.p.Topic.Name != offsetsTopic {
		return
	}
	co := r.b.groups
	if r.role == roleLeader {
		co.unload(r.p)
		co.load(r)
		return
	}
	co.unload(r.p)
}
