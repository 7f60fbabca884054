package core

import "slices"

func (m *metadata) onControllerFailover() {
	for id, reg := range m.registered { // order-free
		m.known[id] = reg
	}
	var all []*Partition
	for _, t := range m.c.order {
		if !t.gone() { // topics queued for deletion take no elections
			all = append(all, t.parts...)
		}
	}
	// Dead replicas leave the ISR; offline partitions get a leader if possible.
	m.handleOffline(all)
	m.propagate(all, m.registeredIDs()) // a new controller sends everyone the full state, even of no partition
	m.startZKLeaderBalance(zkFirstBalanceMs)
	m.deletionsOnFailover()
}

// onBrokerStartup sends the returning broker its partitions (it becomes a
// follower, or leader of partitions nobody could lead) and tells everyone.
//
// The returning broker gets the state of every partition, not only its
// own (KafkaController.onBrokerStartup sends it UpdateMetadata for all
// partitions; a KRaft broker replays the whole metadata log): its metadata
// cache answers clients, and one that knew only its own partitions would
// tell a consumer group leader that a topic has fewer partitions than it
// has, leaving the others unassigned.
func (m *metadata) onBrokerStartup(id int) {
	if reg, ok := m.registered[id]; ok {
		m.known[id] = reg
	}
	var mine, all []*Partition
	for _, t := range m.c.order {
		if t.gone() {
			continue // queued for deletion: brokers no longer serve it
		}
		for _, p := range t.parts {
			all = append(all, p)
			if slices.Contains(p.replicas, id) {
				mine = append(mine, p)
			}
		}
	}
	m.electOffline(mine)
	var others []int
	for _, b := range m.registeredIDs() {
		if b != id {
			others = append(others, b)
		}
	}
	m.propagate(all, []int{id})
	if len(others) > 0 {
		m.propagate(mine, others)
	}
	m.deletionsOnStartup(id)
}

// onBrokerFailure moves leaderships away from a dead broker and removes it
// from every ISR.
//
// With broker epochs (KIP-380, 2.2+) the controller handles the failure
// even if the broker has registered again by the time the watch arrives
// (a fast bounce: its old session expired and the restarted process took
// /brokers/ids/N in the same instant): the new process must not keep its
// old leaderships and ISR places, whatever its log lost. Before 2.2 the
// controller only compared sets of live ids and missed such a bounce
// (KAFKA-1120).
func (m *metadata) onBrokerFailure(id int) {
	if m.c.preset.brokerEpochs {
		m.failing = id
		defer func() { m.failing = 0 }()
	}
	delete(m.known, id)
	var affected []*Partition
	for _, t := range m.c.order {
		if t.gone() {
			continue // onReplicasBecomeOffline leaves topics queued for deletion out
		}
		for _, p := range t.parts {
			if p.state.leader == id || slices.Contains(p.state.isr, id) {
				affected = append(affected, p)
			}
		}
	}
	m.propagate(m.handleOffline(affected), nil)
	m.deletionsOnFailure(id)
}

// handleOffline removes dead brokers from ISRs and elects new leaders where
// the leader is dead, returning the partitions whose state changed.
func (m *metadata) handleOffline(parts []*Partition) []*Partition {
	var changed []*Partition
	for _, p := range parts {
		st := p.state
		leaderDead := st.leader != -1 && !m.live(st.leader)
		isr := m.liveISR(st.isr)
		switch {
		case leaderDead || st.leader == -1:
			if m.elect(p, "leader offline") {
				changed = append(changed, p)
			}
		case len(isr) != len(st.isr):
			m.writeState(p, pstate{leader: st.leader, epoch: m.isrRemovalEpoch(st.epoch), isr: isr, version: st.version + 1}, "dead replica removed from ISR")
			changed = append(changed, p)
		}
	}
	return changed
}

// electOffline elects leaders for offline partitions among parts.
func (m *metadata) electOffline(parts []*Partition) {
	for _, p := range parts {
		if p.state.leader == -1 {
			m.elect(p, "broker returned")
		}
	}
}

// isrRemovalEpoch: the ZK controller's removeReplicasFromIsr writes
// LeaderAndIsr.newLeaderAndIsr, which bumps the leader epoch; so does 2.8's
// KRaft controller (preset kraftFenceBumpsEpoch); 3.9's and 4.0's bump only
// the partition epoch when the ISR shrinks.
func (m *metadata) isrRemovalEpoch(e int32) int32 {
	if m.kraft && !m.c.preset.kraftFenceBumpsEpoch {
		return e
	}
	return e + 1
}

func (m *metadata) liveISR(isr []int) []int {
	var out []int
	for _, id := range isr {
		if m.live(id) {
			out = append(out, id)
		}
	}
	return out
}

// elect runs Kafka's offline-partition election
// (PartitionLeaderElectionAlgorithms.offlinePartitionLeaderElection): the
// first replica in assignment order that is live and in the ISR; else, if
// unclean election is enabled (and, in KRaft, the controller does unclean
// elections: preset kraftUnclean), the first live replica; else no leader.
// Kafka keeps the last ISR member when nobody can lead.
func (m *metadata) elect(p *Partition, why string) bool {
	st := p.state
	live := m.liveISR(st.isr)
	leader, unclean := -1, false
	for _, r := range p.replicas {
		if m.live(r) && slices.Contains(live, r) {
			leader = r
			break
		}
	}
	if leader == -1 && p.Topic.conf.unclean && (!m.kraft || m.c.preset.kraftUnclean) {
		for _, r := range p.replicas {
			if m.live(r) {
				leader, unclean = r, true
				break
			}
		}
	}
	if leader == -1 {
		if st.leader == -1 {
			return false
		}
		isr := live
		if len(isr) == 0 {
			isr = st.isr[len(st.isr)-1:]
			if len(st.isr) == 0 {
				isr = nil
			}
		}
		m.writeState(p, pstate{leader: -1, epoch: st.epoch + 1, isr: isr, version: st.version + 1}, why+": no eligible leader, partition offline")
		m.c.emit(Event{Type: EvLeader, Partition: p.Name, Topic: p.Topic.Name, Leader: -1, Epoch: p.state.epoch, ISR: p.ISR(),
			Election: ElectionNone, Reason: why, Detail: "offline: no live replica in the ISR"})
		return true
	}
	isr := live
	if unclean {
		isr = []int{leader}
	}
	m.writeState(p, pstate{leader: leader, epoch: st.epoch + 1, isr: isr, version: st.version + 1}, why)
	detail := "clean election (" + why + ")"
	if unclean {
		detail = "UNCLEAN election: leader was not in the ISR (" + why + ")"
	}
	kind := ElectionClean
	if unclean {
		kind = ElectionUnclean
	}
	m.c.emit(Event{Type: EvLeader, Partition: p.Name, Topic: p.Topic.Name, Leader: leader, Epoch: p.state.epoch, ISR: p.ISR(), Unclean: unclean,
		Election: kind, Reason: why, Detail: detail})
	return true
}
