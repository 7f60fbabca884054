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

// uncleanCheck is the KRaft controller's scheduling state for the check.
type uncleanCheck struct {
	gen     int  // identifies the scheduled check; bumping it cancels it
	armed   bool // a check is scheduled (ImbalanceSchedule.SCHEDULED)
	soon    bool // the last check hit maxElectionsPerImbalance
	running bool // a check is writing its elections
}

// maybeScheduleUnclean is maybeScheduleNextElectUncleanLeaders, called
// after every KRaft write that can leave a partition leaderless (a leader
// change, a new topic).
func (m *metadata) maybeScheduleUnclean() {
	c := m.c
	u := &m.unclean
	if !m.kraft || !c.preset.kraftUnclean || u.armed || u.running || !m.someLeaderless() {
		return
	}
	d := c.bc.uncleanCheckMs
	if u.soon {
		d = balanceAgainMs
	}
	u.armed = true
	gen := u.gen
	c.after(d, func() {
		if u.gen != gen || !u.armed {
			return
		}
		u.armed = false
		m.electUncleanLeaders()
	})
}

// uncleanConfChanged applies a `set` of unclean.leader.election.interval.ms.
func (m *metadata) uncleanConfChanged() {
	m.unclean.gen++
	m.unclean.armed, m.unclean.soon = false, false
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
	c := m.c
	m.unclean.running = true
	var changed []*Partition
	for _, t := range c.order {
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
	m.unclean.running = false
	m.unclean.soon = len(changed) >= maxElectionsPerImbalance
	m.propagate(changed, nil)
	m.maybeScheduleUnclean()
}
