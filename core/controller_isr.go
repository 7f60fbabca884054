package core

import "slices"

// alterPartitionReq is a leader's ISR change: AlterPartition (KRaft),
// AlterIsr (ZK mode, 2.7+), or before 2.7 the leader's own conditional
// write of the state znode (ZkSetIsr), all judged by the same rules.
type alterPartitionReq struct {
	p       *Partition
	leader  int
	epoch   int32 // the leader's epoch
	version int32 // the partition (ZK: znode) version the change is based on
	isr     []int
}

// alterPartitionResult is the new partition version, or an error name.
type alterPartitionResult struct {
	version int32
	err     string
}

// handleAlterPartition applies a leader's ISR change if it is based on
// the current state (same leader epoch and version), then tells the other
// brokers (UpdateMetadata after the ISR change notification; KRaft: the
// record they fetch).
func (m *metadata) handleAlterPartition(req alterPartitionReq) alterPartitionResult {
	v, err := m.alterISR(req.p, req.leader, req.epoch, req.version, req.isr)
	if err == "" {
		m.afterISRChange(req.p, req.leader)
	}
	return alterPartitionResult{version: v, err: err}
}

// alterISR applies a leader's ISR change if it is based on the current
// state (same leader epoch and version), as AlterPartition (2.7+) or the ZK
// conditional write (before) does. It returns the new version or an error name.
func (m *metadata) alterISR(p *Partition, leader int, epoch, version int32, isr []int) (int32, string) {
	st := p.state
	switch {
	case p.Topic.gone():
		return 0, "UNKNOWN_TOPIC_OR_PARTITION" // deleted, or queued for deletion
	case st.leader != leader || st.epoch != epoch:
		return 0, "FENCED_LEADER_EPOCH"
	case sameSet(st.isr, isr):
		// Already so (the answer to an earlier request was lost): answer
		// with the current version (KafkaController.processAlterIsr: "If a
		// partition is already in the desired state, just return it"). A
		// leader refused here would retry with its old version forever.
		return st.version, ""
	case st.version != version:
		return 0, "INVALID_UPDATE_VERSION"
	}
	for _, id := range isr {
		if id != leader && !m.live(id) && m.kraft && m.c.preset.kip841 {
			return 0, "INELIGIBLE_REPLICA"
		}
	}
	m.writeState(p, pstate{leader: leader, epoch: epoch, isr: append([]int(nil), isr...), version: version + 1}, "ISR change by leader")
	return p.state.version, ""
}

// afterISRChange tells the other brokers about a leader's ISR change
// (UpdateMetadata after the ISR change notification; KRaft: the record).
// The leader's own metadata cache hears of it after the answer
// (cacheISRChange).
func (m *metadata) afterISRChange(p *Partition, leader int) {
	var others []int
	for _, id := range m.registeredIDs() {
		if id != leader {
			others = append(others, id)
		}
	}
	m.propagate([]*Partition{p}, others)
}

// cacheISRChange tells the leader of an ISR change it made about it, for
// its metadata cache, which answers clients' Metadata: ZK mode's
// UpdateMetadata goes to liveOrShuttingDownBrokerIds, the leader included
// (KafkaController.processAlterPartition, processIsrChangeNotification),
// and in KRaft every broker replays the PartitionChangeRecord. Without it
// the leader named the old ISR to clients until some other change reached
// the partition. Its replica takes the change from the answer, not from
// this (cacheOnly), so an answer lost or late keeps its own story.
func (m *metadata) cacheISRChange(p *Partition, leader int) {
	m.propagateTo([]*Partition{p}, []int{leader}, true)
}

// sameSet reports whether two lists of broker ids hold the same ids.
func sameSet(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}
