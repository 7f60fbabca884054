package core

import (
	"fmt"
	"slices"
)

// Manual leader elections (kafka-leader-election.sh, Admin.electLeaders,
// the ElectLeaders API of KIP-460).
//
// ZooKeeper mode: KafkaController.processReplicaLeaderElection. A
// preferred election is needed when the leader is not the first replica,
// and elects that replica only if it is live and in the ISR
// (PreferredReplicaPartitionLeaderElectionStrategy), else
// PREFERRED_LEADER_NOT_AVAILABLE; an unclean one is needed when there is
// no live leader, and elects the first live ISR member, else the first
// live replica (OfflinePartitionLeaderElectionStrategy with unclean
// allowed, whatever the topic's unclean.leader.election.enable), else
// ELIGIBLE_LEADERS_NOT_AVAILABLE. A topic being deleted is
// INVALID_TOPIC_EXCEPTION.
//
// KRaft: ReplicationControlManager.electLeader. A preferred election is
// not needed when the first replica leads; otherwise
// PartitionChangeBuilder.electPreferredLeader picks the first replica if
// it is in the ISR and unfenced, else keeps the current leader if it may
// stay, else the next eligible ISR member: no change is
// PREFERRED_LEADER_NOT_AVAILABLE. An unclean election is not needed when
// the partition has a leader; otherwise a live ISR member, else any live
// replica, else ELIGIBLE_LEADERS_NOT_AVAILABLE.

// Election types of ElectLeaders (Kafka's ElectionType).
const (
	ElectPreferred = "preferred"
	ElectUnclean   = "unclean"
)

// CheckElectLeader says whether an ElectLeaders of this type would elect
// a new leader for partition, as the controller answers each partition:
// nil, or an error named by Kafka's code (ELECTION_NOT_NEEDED,
// PREFERRED_LEADER_NOT_AVAILABLE, ELIGIBLE_LEADERS_NOT_AVAILABLE,
// UNKNOWN_TOPIC_OR_PARTITION, INVALID_TOPIC_EXCEPTION). It changes
// nothing.
func (c *Cluster) CheckElectLeader(election, partition string) error {
	if election != ElectPreferred && election != ElectUnclean {
		return fmt.Errorf("INVALID_REQUEST: unknown election type %q (want %s or %s)", election, ElectPreferred, ElectUnclean)
	}
	p, err := c.Partition(partition)
	if err != nil || p.Topic.deleted {
		return fmt.Errorf("UNKNOWN_TOPIC_OR_PARTITION: The partition does not exist.")
	}
	_, err = c.md.manualLeader(election, p)
	return err
}

// manualLeader is the leader a manual election of p would choose, or
// the per-partition error.
func (m *metadata) manualLeader(election string, p *Partition) (int, error) {
	if !m.controllerUp() {
		return -1, fmt.Errorf("NOT_CONTROLLER: the controller is not running")
	}
	if p.Topic.gone() {
		return -1, fmt.Errorf("INVALID_TOPIC_EXCEPTION: The topic is being deleted")
	}
	st := p.state
	if election == ElectPreferred {
		if st.leader == p.replicas[0] {
			return -1, fmt.Errorf("ELECTION_NOT_NEEDED: Leader election not needed for topic partition.")
		}
		leader := -1
		if m.kraft {
			leader = m.preferredLeader(p)
		} else if first := p.replicas[0]; m.live(first) && slices.Contains(st.isr, first) {
			leader = first
		}
		if leader == -1 || leader == st.leader {
			return -1, fmt.Errorf("PREFERRED_LEADER_NOT_AVAILABLE: Failed to elect leader for partition %s under strategy PreferredReplicaPartitionLeaderElectionStrategy", p.Name)
		}
		return leader, nil
	}
	if st.leader != -1 && (m.kraft || m.live(st.leader)) {
		return -1, fmt.Errorf("ELECTION_NOT_NEEDED: Leader election not needed for topic partition.")
	}
	for _, r := range p.replicas {
		if m.live(r) && slices.Contains(st.isr, r) {
			return r, nil
		}
	}
	for _, r := range p.replicas {
		if m.live(r) {
			return r, nil
		}
	}
	return -1, fmt.Errorf("ELIGIBLE_LEADERS_NOT_AVAILABLE: Failed to elect leader for partition %s under strategy OfflinePartitionLeaderElectionStrategy(true)", p.Name)
}

// electLeaders applies x: each partition the controller would elect gets
// its new leader, and the changes go to the brokers in one propagation.
func (c *Cluster) electLeaders(x ElectLeaders) error {
	if x.Election != ElectPreferred && x.Election != ElectUnclean {
		return fmt.Errorf("INVALID_REQUEST: unknown election type %q (want %s or %s)", x.Election, ElectPreferred, ElectUnclean)
	}
	var parts []*Partition
	if x.Partitions == nil {
		for _, t := range c.order {
			parts = append(parts, t.parts...)
		}
	}
	for _, name := range x.Partitions {
		p, err := c.Partition(name)
		if err != nil {
			return fmt.Errorf("UNKNOWN_TOPIC_OR_PARTITION: %v", err)
		}
		parts = append(parts, p)
	}
	m := c.md
	var changed []*Partition
	for _, p := range parts {
		leader, err := m.manualLeader(x.Election, p)
		if err != nil || slices.Contains(changed, p) {
			continue
		}
		m.writeManualLeader(x.Election, p, leader)
		changed = append(changed, p)
	}
	m.propagate(changed, nil)
	return nil
}

// writeManualLeader writes p's new leader and reports the election.
func (m *metadata) writeManualLeader(election string, p *Partition, leader int) {
	st := p.state
	isr, kind := st.isr, ElectionPreferred
	detail := fmt.Sprintf("preferred replica %d takes leadership (ElectLeaders)", leader)
	switch {
	case election == ElectUnclean && !slices.Contains(st.isr, leader):
		isr, kind = []int{leader}, ElectionUnclean
		detail = "UNCLEAN election: leader was not in the ISR (ElectLeaders)"
	case election == ElectUnclean || leader != p.replicas[0]:
		isr, kind = m.liveISR(st.isr), ElectionClean
		detail = fmt.Sprintf("clean election: %d leads (ElectLeaders)", leader)
	}
	m.writeState(p, pstate{leader: leader, epoch: st.epoch + 1, isr: isr, version: st.version + 1}, election+" leader election (ElectLeaders)")
	m.c.emit(Event{Type: EvLeader, Partition: p.Name, Topic: p.Topic.Name, Leader: leader, Epoch: p.state.epoch, ISR: p.ISR(),
		Unclean: kind == ElectionUnclean, Election: kind, Reason: "ElectLeaders", Detail: detail})
}
