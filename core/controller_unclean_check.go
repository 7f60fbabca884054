package core

// The KRaft controller's unclean election check (QuorumController@3.9
// maybeScheduleNextElectUncleanLeaders, ReplicationControlManager
// .maybeElectUncleanLeaders; KAFKA-12670, preset kraftUnclean). A fenced
// or returning broker's partitions get an unclean election at once when
// their topic allows it (elect); a partition already offline when the
// topic's unclean.leader.election.enable is turned on waits for this
// check. After every write, if some partition has no leader and no check
// is scheduled, one is scheduled unclean.leader.election.interval.ms
// later (an internal config, 5 minutes); the check elects a live replica
// for every leaderless partition whose topic allows unclean election, at
// most maxElectionsPerImbalance of them (and runs again 10 ms later if it
// made that many), and its own write schedules the next one while a
// partition is still leaderless. The ZooKeeper controller instead elects
// at once when the config changes
// (KafkaController.processTopicUncleanLeaderElectionEnable).
//
// `set unclean.leader.election.interval.ms=N` takes effect at once: the
// pending check is replaced by one N ms later (Kafka reads it only at
// startup).

// maybeScheduleUnclean is maybeScheduleNextElectUncleanLeaders, called
// after every KRaft write that can leave a partition leaderless (a leader
// change, a new topic).
func (m *metadata) maybeScheduleUnclean() {
	c := m.c
	if !m.kraft || !c.preset.kraftUnclean || m.unclean.armed || m.unclean.running || !m.someLeaderless() {
		return
	}
	m.unclean.schedule(c, c.bc.uncleanCheckMs, m.electUncleanLeaders)
}

// uncleanConfChanged applies a `set` of unclean.leader.election.interval.ms.
func (m *metadata) uncleanConfChanged() {
	m.unclean.reset()
	m.maybeScheduleUnclean()
}

// someLeaderless is ReplicationControlManager.areSomePartitionsLeaderless.
func (m *metadata) someLeaderless() bool {
	for _, t := range m.c.order {
		if t.gone() {
			continue
		}
		for _, p := range t.parts {
			if p.state.leader == -1 {
				return true
			}
		}
	}
	return false
}

// electUncleanLeaders is maybeTriggerUncleanLeaderElectionForLeaderlessPartitions:
// an election for each leaderless partition whose topic allows unclean
// election (elect takes an ISR member first, as electLeader(UNCLEAN)
// does), then the next check is scheduled if a partition is still
// leaderless.
func (m *metadata) electUncleanLeaders() {
	var changed []*Partition
	m.unclean.write(func() int {
		changed = m.electLeaderless()
		return len(changed)
	})
	m.propagate(changed, nil)
	m.maybeScheduleUnclean()
}

// electLeaderless is the check's loop: the partitions it gave a leader.
func (m *metadata) electLeaderless() []*Partition {
	var changed []*Partition
	for _, t := range m.c.order {
		if t.gone() || !t.conf.unclean {
			continue
		}
		for _, p := range t.parts {
			if len(changed) >= maxElectionsPerImbalance {
				break
			}
			if p.state.leader == -1 && m.elect(p, "unclean.leader.election.interval.ms check") && p.state.leader != -1 {
				changed = append(changed, p)
			}
		}
	}
	return changed
}
