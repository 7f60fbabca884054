package core

import (
	"fmt"
	"slices"

	"github.com/kafkasim/kafkasim/core/assign"
)

// mstate is a consumer's membership state (AbstractCoordinator.MemberState).
type mstate uint8

const (
	mUnjoined mstate = iota
	mJoining
	mSyncing
	mStable
)

// member is a consumer's side of the classic group protocol
// (ConsumerCoordinator): find the coordinator, join, sync, heartbeat,
// commit. In poll=manual mode it (re)joins only inside poll, as
// KafkaConsumer does; heartbeats run in the background either way.
type member struct {
	k           *Consumer
	state       mstate
	coord       int // coordinator broker, -1 unknown
	finding     bool
	id          string
	generation  int
	protocol    string
	rejoin      bool // a (re)join is needed
	inflight    bool // JoinGroup or SyncGroup in flight
	prepared    bool // onJoinPrepare done for the coming join
	committing  bool // onJoinPrepare's commitSync in flight
	seq         int
	owned       []*Partition
	snapshot    map[string]int // partition counts the leader assigned with (nil unless leader)
	nextCommit  int64
	hbSeq       int
	hbRunning   bool
	pollSeq     int                 // counts pollTimer's arming: only the last one checks
	polling     bool                // inside a poll (manual mode)
	needOffsets map[*Partition]bool // partitions waiting for their committed offset
	offsetsOut  map[*Partition]bool // those in an OffsetFetch in flight
	offsetsSent bool
	fetchEpoch  int // counts forgetOffsetFetches: an OffsetFetch sent before is not used
	cooperative bool
	protocols   []string
	// manual: the consumer called assign() (consumer_manual_assign.go);
	// owned is its assignment and it never joins.
	manual bool
}

func newMember(k *Consumer) *member {
	m := &member{k: k, coord: -1, generation: -1, rejoin: true, snapshot: map[string]int{}, needOffsets: map[*Partition]bool{}, offsetsOut: map[*Partition]bool{}}
	m.protocols = k.conf.assignors
	m.cooperative = true
	for _, name := range m.protocols {
		a, err := assign.ByName(name)
		if err != nil || a.Protocol() != assign.Cooperative {
			m.cooperative = false // the consumer uses the protocol all its assignors support
		}
	}
	m.nextCommit = k.c.now + k.conf.autoCommitMs
	k.after(0, m.ensure)
	m.pollTimer()
	return m
}

func (m *member) c() *Cluster { return m.k.c }

// active reports whether the consumer is inside poll: always for
// poll=auto, only during a poll command for poll=manual.
func (m *member) active() bool { return !m.k.conf.manual || m.polling }

// pollStarted is the start of KafkaConsumer.poll: ConsumerCoordinator.poll
// (join if needed, then auto-commit when due) runs before any fetch.
func (m *member) pollStarted() { m.polling = true; m.pollTimer(); m.ensure(); m.onPoll() }

func (m *member) pollEnded() { m.polling = false; m.pollTimer() }

// stable reports that the consumer has joined and has nothing pending.
// A manually assigned consumer has nothing to join: it is stable.
func (m *member) stable() bool { return m.manual || m.state == mStable && !m.rejoin }

// idle reports a poll=manual consumer outside poll with no group request
// in flight: it joins or rejoins only when the application next polls, so
// nothing is under way (settle does not wait for it).
func (m *member) idle() bool { return !m.active() && !m.inflight && !m.finding && !m.committing }

func (m *member) info(detail string, err string) {
	m.c().emit(Event{Type: EvConsumerInfo, Consumer: m.k.Name, Group: m.k.Group, Generation: m.generation, Error: err, Detail: detail})
}

// ensure drives the member towards Stable: find the coordinator, then join.
func (m *member) ensure() {
	k := m.k
	if !k.alive || !m.active() {
		return
	}
	if m.manual {
		m.ensureManual()
		return
	}
	k.meta.wantAll(k.subscription())
	for _, t := range k.topics {
		if k.meta.counts[t] == 0 && !k.meta.deleted[t] && !k.meta.absent[t] {
			// The consumer joins once the brokers have answered about its
			// topics (onMetadata calls ensure again), so that the leader's
			// first assignment covers them; a topic they said does not
			// exist (never created, or deleted) does not hold it back: the
			// Java consumer joins with whatever exists, the leader assigns
			// no partitions of it, and rejoins when its metadata shows it
			// (ConsumerCoordinator.performAssignment, the metadata
			// snapshot).
			return
		}
	}
	if m.coord < 0 {
		m.findCoordinator()
		return
	}
	if (m.state == mUnjoined || m.rejoin) && !m.inflight {
		m.joinGroup()
	}
}

// findCoordinator asks a broker for the group's coordinator.
func (m *member) findCoordinator() {
	k, c := m.k, m.c()
	if m.finding {
		return
	}
	m.finding = true
	b := c.brokers[k.meta.next%len(c.brokers)]
	k.meta.next++
	m.seq++
	seq := m.seq
	retry := func() {
		if m.seq == seq && m.finding {
			m.finding = false
			k.after(k.conf.backoff, m.ensure)
		}
	}
	k.send(b, "FindCoordinator", func() {
		res := b.handleFindCoordinator(findCoordinatorReq{key: k.Group})
		id, err := res.coordinator, res.err
		k.reply(b, "FindCoordinatorResponse", func() {
			if m.seq != seq || !m.finding {
				return
			}
			if err != "" {
				retry()
				return
			}
			m.finding = false
			m.coord = id
			m.info(fmt.Sprintf("%s found its coordinator: broker %d", k.Name, id), "")
			m.ensure()
			m.startHeartbeats()
		})
	}, retry)
	k.after(k.conf.requestTimeout, retry)
}

// coordinatorLost forgets the coordinator (NOT_COORDINATOR, timeouts). A
// JoinGroup or SyncGroup that failed this way is sent again to the next
// coordinator (AbstractCoordinator.joinGroupIfNeeded retries while a
// rejoin is needed); without rejoin set, ensure would never send it.
func (m *member) coordinatorLost(why string) {
	if m.coord >= 0 {
		m.info(fmt.Sprintf("%s lost its coordinator (broker %d): %s", m.k.Name, m.coord, why), "")
	}
	if m.state == mJoining || m.state == mSyncing {
		m.rejoin = true
	}
	m.coord = -1
	m.inflight = false
	m.k.after(m.k.conf.backoff, m.ensure)
}

// connectionReset: the coordinator's process died and its OS reset the
// connection, so a JoinGroup or SyncGroup waiting there fails one network
// hop later (NetworkClient's DisconnectException) instead of at its
// timeout (the rebalance timeout, minutes), and the consumer looks for the
// coordinator again.
func (m *member) connectionReset(id int) {
	if m.coord != id || !m.inflight || m.state != mJoining && m.state != mSyncing {
		return
	}
	seq := m.seq
	m.k.after(m.c().bc.latency, func() {
		if m.coord == id && m.inflight && m.seq == seq {
			m.coordinatorLost("connection reset")
		}
	})
}

// joinGroup sends JoinGroup, after onJoinPrepare: with an eager protocol
// the consumer commits (if auto-commit is on) and gives up every partition
// before joining; a cooperative one keeps them.
func (m *member) joinGroup() {
	k, c := m.k, m.c()
	if !m.prepared {
		// ConsumerCoordinator.onJoinPrepare: commit (auto-commit) before
		// rebalancing, whatever the protocol; then an eager member gives up
		// everything, a cooperative one nothing yet. A member whose
		// generation was reset (reset) may commit nothing: its
		// sendOffsetCommitRequest fails locally (generationIfStable).
		if k.conf.autoCommit && len(m.owned) > 0 && m.state == mStable {
			m.joinPrepareCommit()
			return
		}
		m.prepareDone()
	}
	b := c.Broker(m.coord)
	if b == nil {
		m.coordinatorLost("unknown coordinator")
		return
	}
	m.inflight, m.state = true, mJoining
	m.seq++
	seq := m.seq
	req := joinReq{group: k.Group, memberID: m.id, client: k.Name, instance: k.conf.instanceID, protocols: m.protocols,
		sessionMs: k.conf.sessionMs, rebalanceMs: k.conf.maxPollMs,
		sub: assign.Member{InstanceID: k.conf.instanceID, Topics: k.subscription(), Generation: m.generation}}
	for _, p := range m.owned {
		req.sub.Owned = append(req.sub.Owned, assign.TopicPartition{Topic: p.Topic.Name, Partition: p.ID})
	}
	k.send(b, "JoinGroup", func() {
		b.handleJoinGroup(req, func(res joinResult) {
			k.reply(b, "JoinGroupResponse", func() {
				if m.seq == seq && m.inflight {
					m.onJoin(res)
				}
			})
		})
	}, func() {
		if m.seq == seq {
			m.coordinatorLost("connection refused")
		}
	})
	k.after(k.conf.maxPollMs+5000, func() { // JoinGroup waits up to the rebalance timeout
		if m.seq == seq && m.inflight && m.state == mJoining {
			m.coordinatorLost("JoinGroup timed out")
		}
	})
}

func (m *member) onJoin(res joinResult) {
	k := m.k
	m.inflight = false
	switch res.err {
	case "":
	case "MEMBER_ID_REQUIRED":
		m.id = res.memberID
		m.info(fmt.Sprintf("%s got member id %s (MEMBER_ID_REQUIRED): joining again", k.Name, res.memberID), res.err)
		m.joinGroup()
		return
	case "UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION":
		m.reset(res.err)
		m.ensure()
		return
	case "NOT_COORDINATOR", "COORDINATOR_NOT_AVAILABLE", "COORDINATOR_LOAD_IN_PROGRESS":
		m.coordinatorLost(res.err)
		return
	case "REBALANCE_IN_PROGRESS":
		// A static member's rejoin whose store timed out (3.9's
		// storeGroup): AbstractCoordinator.joinGroupIfNeeded joins again
		// at once for a RebalanceInProgressException, without
		// retry.backoff.ms, with the member id it had.
		m.info(fmt.Sprintf("%s could not join: %s: joining again", k.Name, res.err), res.err)
		m.joinGroup()
		return
	default:
		m.info(fmt.Sprintf("%s could not join: %s", k.Name, res.err), res.err)
		m.state = mUnjoined
		k.after(k.conf.backoff, m.ensure)
		return
	}
	m.id, m.generation, m.protocol = res.memberID, res.generation, res.protocol
	m.state = mSyncing
	var plan map[string][]*Partition
	m.snapshot = nil
	if res.leader == m.id {
		plan = m.assign(res.members)
	}
	m.syncGroup(plan)
}

// syncGroup sends SyncGroup (the leader's carries the assignment).
func (m *member) syncGroup(plan map[string][]*Partition) {
	k, c := m.k, m.c()
	b := c.Broker(m.coord)
	m.inflight = true
	m.seq++
	seq, id, gen := m.seq, m.id, m.generation
	k.send(b, "SyncGroup", func() {
		b.handleSyncGroup(syncReq{group: k.Group, memberID: id, generation: gen, assignment: plan}, func(res syncResult) {
			k.reply(b, "SyncGroupResponse", func() {
				if m.seq == seq && m.inflight {
					m.onSync(res)
				}
			})
		})
	}, func() {
		if m.seq == seq {
			m.coordinatorLost("connection refused")
		}
	})
	k.after(k.conf.maxPollMs+5000, func() {
		if m.seq == seq && m.inflight && m.state == mSyncing {
			m.coordinatorLost("SyncGroup timed out")
		}
	})
}

func (m *member) onSync(res syncResult) {
	k := m.k
	m.inflight = false
	switch res.err {
	case "":
	case "REBALANCE_IN_PROGRESS":
		m.rejoin, m.prepared = true, false
		m.state = mUnjoined
		m.ensure()
		return
	case "UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION":
		m.resetOnError(res.err)
		m.ensure()
		return
	default:
		m.coordinatorLost(res.err)
		return
	}
	m.state, m.rejoin, m.prepared = mStable, false, false
	m.forgetOffsetFetches()
	// ConsumerCoordinator.onJoinComplete: the auto-commit timer starts
	// over (nextAutoCommitTimer.updateAndReset).
	m.nextCommit = k.c.now + k.conf.autoCommitMs
	sortParts(res.assignment)
	var revoked []*Partition
	for _, p := range m.owned {
		if !slices.Contains(res.assignment, p) {
			revoked = append(revoked, p)
		}
	}
	m.owned = res.assignment
	k.setAssignment(m.owned)
	m.info(fmt.Sprintf("%s joined generation %d: assigned [%s]", k.Name, m.generation, partNames(m.owned)), "")
	if m.cooperative && len(revoked) > 0 {
		// KIP-429: revoked partitions are given up now; a follow-up
		// rebalance hands them to their new owners.
		m.info(fmt.Sprintf("%s revoked [%s] (cooperative): rejoining", k.Name, partNames(revoked)), "")
		m.rejoin, m.prepared = true, true
		m.ensure()
	}
	k.pump()
}

// reset forgets the membership after UNKNOWN_MEMBER_ID /
// ILLEGAL_GENERATION or a poll timeout (AbstractCoordinator
// .resetStateAndRejoin: state UNJOINED, NO_GENERATION, needsJoinPrepare).
// The partitions stay assigned until the next join's onJoinPrepare
// declares them lost (prepareDone), at the next poll: for poll=manual
// outside a poll, whenever the application polls (until then a
// commitSync fails without being sent, notInGroup); inside poll, or for
// poll=auto, whose application is always about to poll again, now, so
// that nothing is consumed meanwhile.
func (m *member) reset(why string) {
	m.info(fmt.Sprintf("%s must rejoin: %s", m.k.Name, why), why)
	m.resetGeneration(true)
	m.lostIfPolling()
}

// lostIfPolling gives up the partitions of a reset generation at once if
// the application is inside poll (member.active): its next
// ConsumerCoordinator.poll is onJoinPrepare's onPartitionsLost.
func (m *member) lostIfPolling() {
	if m.active() {
		m.revokeAll("partitions lost")
	}
}

// resetGeneration is resetStateAndGeneration: NO_GENERATION, and the
// member id too if resetID (resetGeneration keeps it for KAFKA-13419).
func (m *member) resetGeneration(resetID bool) {
	if resetID {
		m.id = ""
	}
	m.generation = -1
	m.state, m.rejoin, m.prepared, m.inflight = mUnjoined, true, false, false
}

// startHeartbeats runs the heartbeat thread once.
func (m *member) startHeartbeats() {
	if m.hbRunning {
		return
	}
	m.hbRunning = true
	var tick func()
	tick = func() {
		m.heartbeat()
		m.k.after(m.k.conf.heartbeatMs, tick)
	}
	m.k.after(m.k.conf.heartbeatMs, tick)
}

// heartbeat sends one Heartbeat while Stable and, from 2.7, while
// syncing (heartbeatsWhileSyncing).
func (m *member) heartbeat() {
	k, c := m.k, m.c()
	if m.coord < 0 || !m.heartbeating() {
		return
	}
	b := c.Broker(m.coord)
	m.hbSeq++
	seq, id, gen := m.hbSeq, m.id, m.generation
	done := false
	k.send(b, "Heartbeat", func() {
		err := b.handleHeartbeat(heartbeatReq{group: k.Group, memberID: id, generation: gen})
		k.reply(b, "HeartbeatResponse", func() {
			done = true
			// Every answer counts, not only the latest heartbeat's: the
			// heartbeat thread sends one each heartbeat.interval.ms
			// whether or not the last is answered, and
			// HeartbeatResponseHandler handles each (on a link slower than
			// the interval, every answer is an older heartbeat's).
			if m.id == id && m.generation == gen {
				m.onHeartbeat(err)
			}
		})
	}, func() {
		done = true
		m.coordinatorLost("connection refused")
	})
	k.after(k.conf.requestTimeout, func() {
		if !done && m.hbSeq == seq {
			m.coordinatorLost("heartbeat timed out")
		}
	})
}

// heartbeating reports whether the heartbeat thread sends: while Stable
// with no join under way, and from 2.7 (KAFKA-10134) also in
// COMPLETING_REBALANCE, between the JoinGroup answer and the SyncGroup
// answer (HeartbeatThread.run disables itself only while
// MemberState.hasNotJoinedGroup: UNJOINED or PREPARING_REBALANCE; before,
// whenever the state was not STABLE). The coordinator answers those
// heartbeats NONE and restarts the member's session timer
// (GroupCoordinator.handleHeartbeat, CompletingRebalance), so a member
// whose SyncGroup waits for a slow leader is not expired meanwhile.
func (m *member) heartbeating() bool {
	if m.state == mSyncing {
		return m.c().preset.heartbeatsWhileSyncing
	}
	return m.state == mStable && !m.inflight
}

func (m *member) onHeartbeat(err string) {
	switch err {
	case "":
	case "REBALANCE_IN_PROGRESS":
		if m.state != mStable && m.c().preset.heartbeatsWhileSyncing {
			return // HeartbeatResponseHandler (2.7+): ignored while rebalancing; the SyncGroup answer tells
		}
		m.requestRejoin("rebalance in progress", err)
	case "UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION":
		m.resetOnError(err)
		m.ensure()
	default:
		m.coordinatorLost(err)
	}
}

// requestRejoin is AbstractCoordinator.requestRejoin: the member joins
// again, keeping its generation until the join; why says who found the
// rebalance (said once, however many answers find it).
func (m *member) requestRejoin(why, err string) {
	if !m.rejoin {
		m.info(fmt.Sprintf("%s: %s, rejoining", m.k.Name, why), err)
	}
	m.rejoin = true
	m.ensure()
}

// pollTimer enforces max.poll.interval.ms for poll=manual consumers: the
// heartbeat thread leaves the group when the application stops polling.
// Heartbeat.pollTimeoutExpired is pollTimer.isExpired (now >= the
// deadline), and AbstractCoordinator.HeartbeatThread.run checks it on
// every pass, waking at least every retry.backoff.ms; the leave is
// modelled at the deadline itself, lastPoll + max.poll.interval.ms. It
// is armed again at each poll's start and end (pollStarted, pollEnded);
// a check that finds the consumer polling or unjoined waits for them.
func (m *member) pollTimer() {
	k := m.k
	if !k.conf.manual {
		return
	}
	m.pollSeq++
	seq := m.pollSeq
	k.after(max(0, k.lastPoll+k.conf.maxPollMs-k.c.now), func() {
		if m.pollSeq == seq && m.state != mUnjoined && !m.polling && k.c.now >= k.lastPoll+k.conf.maxPollMs {
			m.info(fmt.Sprintf("%s: consumer poll timeout has expired (max.poll.interval.ms=%d): leaving the group", k.Name, k.conf.maxPollMs), "")
			m.sendLeave()
			m.reset("poll timeout")
		}
	})
}

// sendLeave sends LeaveGroup (not for static members, who leave only by
// session timeout).
func (m *member) sendLeave() {
	k, c := m.k, m.c()
	b := c.Broker(m.coord)
	if b == nil || m.id == "" || k.conf.instanceID != "" {
		return
	}
	id := m.id
	c.net.send(k.node, b.node, "LeaveGroup", func() {
		b.handleLeaveGroup(leaveReq{group: k.Group, memberID: id})
	}, nil)
}
