package core

import (
	"fmt"
	"slices"
)

// Automatic preferred leader election (auto.leader.rebalance.enable) works
// differently in the two controllers:
//
// The ZooKeeper controller (KafkaController@0.8.2, @0.11, @2.8.2, @3.9)
// schedules its first check 5 s after it takes office
// (onControllerFailover: scheduleAutoLeaderRebalanceTask(delay = 5)) and
// the next one leader.imbalance.check.interval.seconds after each check
// (processAutoPreferredReplicaLeaderElection); the checks stop when it
// resigns. Each check moves a broker's partitions back to it only when the
// share it should lead but does not exceeds
// leader.imbalance.per.broker.percentage (checkAndTriggerAutoLeaderRebalance).
//
// The KRaft controller (QuorumController@3.9, KAFKA-13682 in 3.2; 2.8's
// had no automatic election) keeps the set of partitions whose leader is
// not their preferred replica (ReplicationControlManager.imbalancedPartitions,
// offline ones included) and reads no percentage. After every write, if
// that set is not empty and no check is scheduled, it schedules one
// leader.imbalance.check.interval.seconds later
// (maybeScheduleNextBalancePartitionLeaders): the check runs one interval
// after the imbalance appears, not on fixed ticks. The check tries a
// preferred election for every imbalanced partition, at most
// maxElectionsPerImbalance of them (maybeBalancePartitionLeaders); if it
// made that many it runs again 10 ms later, otherwise the next write that
// leaves an imbalance (the check's own, when some preferred replica could
// not lead) schedules it an interval later again.
//
// `set leader.imbalance.check.interval.seconds=N` (or
// auto.leader.rebalance.enable) takes effect at once, as the simulator's
// other broker settings do: the pending check is replaced by one N
// seconds later. (Kafka reads both only at startup.)

// maxElectionsPerImbalance is ReplicationControlManager.MAX_ELECTIONS_PER_IMBALANCE.
const maxElectionsPerImbalance = 1000

// balanceAgainMs is how soon a KRaft check that hit
// maxElectionsPerImbalance runs again (ImbalanceSchedule.IMMEDIATELY).
const balanceAgainMs = 10

// zkFirstBalanceMs is the ZooKeeper controller's delay before its first
// check after it takes office.
const zkFirstBalanceMs = 5000

// startZKLeaderBalance arms a new ZooKeeper controller's checks (see
// above): on the controller's own broker, so they stop with its process
// and wait while it is paused, and only for this term of office.
func (m *metadata) startZKLeaderBalance(first int64) {
	m.balance.gen++
	if m.kraft || !m.c.bc.autoRebalance {
		return
	}
	b := m.c.Broker(m.controller)
	if b == nil {
		return
	}
	gen, ctrl, epoch := m.balance.gen, m.controller, m.ctrlEpoch
	var tick func()
	tick = func() {
		if m.balance.gen != gen || m.controller != ctrl || m.ctrlEpoch != epoch {
			return
		}
		m.rebalanceLeaders()
		b.after(m.c.bc.imbalanceCheckMs, tick)
	}
	b.after(first, tick)
}

// leaderBalanceConfChanged applies a `set` of auto.leader.rebalance.enable
// or leader.imbalance.check.interval.seconds at once.
func (m *metadata) leaderBalanceConfChanged() {
	if !m.kraft {
		if m.controller != 0 {
			m.startZKLeaderBalance(m.c.bc.imbalanceCheckMs)
		}
		return
	}
	m.balance.reset()
	m.maybeScheduleBalance()
}

// maybeScheduleBalance is QuorumController.maybeScheduleNextBalancePartitionLeaders,
// called after every KRaft write that changes a leader (no other write
// changes the imbalanced set, so the set is never non-empty unscheduled).
func (m *metadata) maybeScheduleBalance() {
	c := m.c
	if !m.kraft || !c.preset.kraftLeaderBalance || !c.bc.autoRebalance || m.balance.armed || m.balance.running || !m.imbalanced() {
		return
	}
	m.balance.schedule(c, c.bc.imbalanceCheckMs, m.balancePartitionLeaders)
}

// imbalanced is ReplicationControlManager.arePartitionLeadersImbalanced:
// some partition's leader is not its first replica (or it has none).
func (m *metadata) imbalanced() bool {
	for _, t := range m.c.order {
		for _, p := range t.parts {
			if p.state.leader != p.replicas[0] {
				return true
			}
		}
	}
	return false
}

// balancePartitionLeaders is ReplicationControlManager.maybeBalancePartitionLeaders:
// a preferred election (PartitionChangeBuilder.electPreferredLeader) for
// each imbalanced partition, at most maxElectionsPerImbalance, then the
// next check is scheduled if an imbalance remains.
func (m *metadata) balancePartitionLeaders() {
	var changed []*Partition
	m.balance.write(func() int {
		changed = m.electPreferredLeaders()
		return len(changed)
	})
	m.propagate(changed, nil)
	m.maybeScheduleBalance()
}

// electPreferredLeaders is maybeTriggerLeaderChangeForPartitionsWithoutPreferredLeader:
// the partitions it moved.
func (m *metadata) electPreferredLeaders() []*Partition {
	c := m.c
	var changed []*Partition
	for _, t := range c.order {
		for _, p := range t.parts {
			if len(changed) >= maxElectionsPerImbalance {
				break
			}
			st := p.state
			if st.leader == p.replicas[0] {
				continue
			}
			leader := m.preferredLeader(p)
			if leader == -1 || leader == st.leader {
				continue
			}
			m.writeState(p, pstate{leader: leader, epoch: st.epoch + 1, isr: st.isr, version: st.version + 1}, "preferred leader election")
			ev := Event{Type: EvLeader, Partition: p.Name, Topic: p.Topic.Name, Leader: leader, Epoch: p.state.epoch, ISR: p.ISR(),
				Election: ElectionPreferred, Reason: "auto.leader.rebalance",
				Detail: fmt.Sprintf("preferred replica %d takes back leadership (auto.leader.rebalance)", leader)}
			if leader != p.replicas[0] {
				ev.Election, ev.Detail = ElectionClean, fmt.Sprintf("clean election: preferred replica %d cannot lead, leader %d cannot stay (auto.leader.rebalance)", p.replicas[0], st.leader)
			}
			c.emit(ev)
			changed = append(changed, p)
		}
	}
	return changed
}

// preferredLeader is PartitionChangeBuilder.electPreferredLeader: the
// preferred replica if it is in the ISR and may lead (unfenced); else the
// current leader if it still may; else the next replica in assignment
// order that may. -1: nobody (the partition is left as it is; with ELR off,
// Kafka would find no leader either).
func (m *metadata) preferredLeader(p *Partition) int {
	ok := func(id int) bool { return id != -1 && slices.Contains(p.state.isr, id) && m.live(id) }
	if ok(p.replicas[0]) {
		return p.replicas[0]
	}
	if ok(p.state.leader) {
		return p.state.leader
	}
	for _, id := range p.replicas[1:] {
		if ok(id) {
			return id
		}
	}
	return -1
}

// rebalanceLeaders is KafkaController.checkAndTriggerAutoLeaderRebalance:
// for each broker whose share of partitions it should lead but does not
// exceeds leader.imbalance.per.broker.percentage, move those partitions
// back to it if it is alive and in the ISR (preferred replica election).
func (m *metadata) rebalanceLeaders() {
	c := m.c
	if !c.bc.autoRebalance || !m.controllerUp() {
		return
	}
	preferred := map[int][]*Partition{}
	for _, t := range c.order {
		if t.gone() {
			continue // queued for deletion: no elections (KafkaController.checkAndTriggerAutoLeaderRebalance)
		}
		for _, p := range t.parts {
			preferred[p.replicas[0]] = append(preferred[p.replicas[0]], p)
		}
	}
	var changed []*Partition
	for _, id := range m.registeredIDs() {
		parts := preferred[id]
		var notLed []*Partition
		for _, p := range parts {
			if p.state.leader != id {
				notLed = append(notLed, p)
			}
		}
		if len(parts) == 0 || int64(len(notLed))*100 <= c.bc.imbalancePct*int64(len(parts)) {
			continue
		}
		for _, p := range notLed {
			if m.live(id) && slices.Contains(p.state.isr, id) {
				st := p.state
				m.writeState(p, pstate{leader: id, epoch: st.epoch + 1, isr: st.isr, version: st.version + 1}, "preferred leader election")
				c.emit(Event{Type: EvLeader, Partition: p.Name, Topic: p.Topic.Name, Leader: id, Epoch: p.state.epoch, ISR: p.ISR(),
					Election: ElectionPreferred, Reason: "auto.leader.rebalance", Detail: fmt.Sprintf("preferred replica %d takes back leadership (auto.leader.rebalance)", id)})
				changed = append(changed, p)
			}
		}
	}
	m.propagate(changed, nil)
}
