package core

import (
	"fmt"
)

// handleFindCoordinator answers FindCoordinator on any broker: the leader of the
// group's __consumer_offsets partition, per this broker's metadata.
func (b *Broker) handleFindCoordinator(groupID string) (int, string) {
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
