package core

import (
	"fmt"
)

// findCoordinatorReq is a FindCoordinator request for a group.
type findCoordinatorReq struct {
	key string // the group id
}

// findCoordinatorResult is a FindCoordinator response: the coordinator's
// broker id, or an error name.
type findCoordinatorResult struct {
	coordinator int
	err         string
}

// handleFindCoordinator answers FindCoordinator on any broker: the leader
// of the group's __consumer_offsets partition, per this broker's metadata.
// The first request creates __consumer_offsets (and is answered
// COORDINATOR_NOT_AVAILABLE until its leaders are elected).
func (b *Broker) handleFindCoordinator(req findCoordinatorReq) findCoordinatorResult {
	c := b.c
	p := c.offsetsPartition(req.key)
	if p == nil {
		if err := c.createOffsetsTopic(); err != nil {
			c.emit(Event{Type: EvInfo, Broker: b.ID, Group: req.key, Error: "COORDINATOR_NOT_AVAILABLE",
				Detail: fmt.Sprintf("cannot create %s: %v", offsetsTopic, err)})
		}
		return findCoordinatorResult{coordinator: -1, err: "COORDINATOR_NOT_AVAILABLE"}
	}
	st, ok := b.cache[p]
	if !ok || st.leader < 0 {
		return findCoordinatorResult{coordinator: -1, err: "COORDINATOR_NOT_AVAILABLE"}
	}
	return findCoordinatorResult{coordinator: st.leader}
}
