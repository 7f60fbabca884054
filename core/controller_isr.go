package core

// alterISR applies a leader's ISR change if it is based on the current
// state (same leader epoch and version), as AlterPartition (2.7+) or the ZK
// conditional write (before) does. It returns the new version or an error name.
func (m *metadata) alterISR(p *Partition, leader int, epoch, version int32, isr []int) (int32, string) {
	st := p.state
	switch {
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
func (m *metadata) afterISRChange(p *Partition, leader int) {
	var others []int
	for _, id := range m.registeredIDs() {
		if id != leader {
			others = append(others, id)
		}
	}
	m.propagate([]*Partition{p}, others)
}

// sameSet reports whether two lists of broker ids hold the same ids.
func sameSet(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !contains(b, x) {
			return false
		}
	}
	return true
}
