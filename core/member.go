package core

import (
	"fmt"
	"sort"
	"strings"

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
	polling     bool                // inside a poll (manual mode)
	needOffsets map[*Partition]bool // partitions waiting for their committed offset
	offsetsOut  map[*Partition]bool // those in an OffsetFetch in flight
	offsetsSent bool
	cooperative bool
	protocols   []string
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

func (m *member) pollStarted() { m.polling = true; m.ensure() }
func (m *member) pollEnded()   { m.polling = false }

// stable reports that the consumer has joined and has nothing pending.
func (m *member) stable() bool { return m.state == mStable && !m.rejoin }

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
	k.meta.wantAll(k.subscription())
	for _, t := range k.topics {
		if k.meta.counts[t] == 0 {
			return // the consumer joins once it knows its topics (onMetadata calls ensure again)
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
		id, err := b.findCoordinator(k.Group)
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

// subscription returns the subscribed topics: the configured list, or
// every non-internal topic the consumer knows (a pattern subscription).
func (k *Consumer) subscription() []string {
	if len(k.topics) > 0 {
		return k.topics
	}
	var out []string
	for _, t := range sortedKeys(k.meta.counts) {
		if !strings.HasPrefix(t, "__") {
			out = append(out, t)
		}
	}
	return out
}

// joinGroup sends JoinGroup, after onJoinPrepare: with an eager protocol
// the consumer commits (if auto-commit is on) and gives up every partition
// before joining; a cooperative one keeps them.
func (m *member) joinGroup() {
	k, c := m.k, m.c()
	if !m.prepared {
		// ConsumerCoordinator.onJoinPrepare: commit (auto-commit) before
		// rebalancing, whatever the protocol; then an eager member gives up
		// everything, a cooperative one nothing yet.
		if k.conf.autoCommit && len(m.owned) > 0 && m.id != "" {
			if !m.committing {
				m.committing = true
				m.sendCommit(func(string) {
					m.committing = false
					m.prepareDone()
					m.ensure()
				})
			}
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
		g, err := b.groups.lookup(k.Group, true)
		respond := func(res joinResult) {
			k.reply(b, "JoinGroupResponse", func() {
				if m.seq == seq && m.inflight {
					m.onJoin(res)
				}
			})
		}
		if err != "" {
			respond(joinResult{err: err})
			return
		}
		g.join(req, respond)
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

// assign runs the group's assignor on the leader over the members'
// subscriptions and this consumer's metadata.
func (m *member) assign(members []assign.Member) map[string][]*Partition {
	k, c := m.k, m.c()
	a, err := assign.ByName(m.protocol)
	if err != nil {
		return nil
	}
	counts := map[string]int{}
	var topics []string
	for _, mem := range members {
		for _, t := range mem.Topics {
			if n := k.meta.counts[t]; n > 0 {
				counts[t] = n
			}
			topics = append(topics, t)
		}
	}
	m.snapshot = k.meta.snapshot(topics)
	plan := map[string][]*Partition{}
	for id, tps := range a.Assign(counts, members) {
		for _, tp := range tps {
			if t := c.topics[tp.Topic]; t != nil && tp.Partition < len(t.Partitions) {
				plan[id] = append(plan[id], t.Partitions[tp.Partition])
			}
		}
	}
	return plan
}

// syncGroup sends SyncGroup (the leader's carries the assignment).
func (m *member) syncGroup(plan map[string][]*Partition) {
	k, c := m.k, m.c()
	b := c.Broker(m.coord)
	m.inflight = true
	m.seq++
	seq, id, gen := m.seq, m.id, m.generation
	k.send(b, "SyncGroup", func() {
		respond := func(res syncResult) {
			k.reply(b, "SyncGroupResponse", func() {
				if m.seq == seq && m.inflight {
					m.onSync(res)
				}
			})
		}
		g, err := b.groups.lookup(k.Group, false)
		if err != "" {
			respond(syncResult{err: err})
			return
		}
		g.sync(id, gen, plan, respond)
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
		m.reset(res.err)
		m.ensure()
		return
	default:
		m.coordinatorLost(res.err)
		return
	}
	m.state, m.rejoin, m.prepared = mStable, false, false
	sortParts(res.assignment)
	var revoked []*Partition
	for _, p := range m.owned {
		if !containsPart(res.assignment, p) {
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

// prepareDone ends onJoinPrepare: eager protocols revoke every partition.
func (m *member) prepareDone() {
	if !m.cooperative {
		m.revokeAll("rebalance")
	}
	m.prepared = true
}

// revokeAll gives up every partition (eager rebalance, or lost membership).
func (m *member) revokeAll(why string) {
	if len(m.owned) == 0 {
		return
	}
	m.info(fmt.Sprintf("%s revoked [%s] (%s)", m.k.Name, partNames(m.owned), why), "")
	m.owned = nil
	m.k.setAssignment(nil)
}

// reset forgets the membership after UNKNOWN_MEMBER_ID / ILLEGAL_GENERATION:
// the partitions are lost (no commit) and the consumer joins afresh.
func (m *member) reset(why string) {
	m.info(fmt.Sprintf("%s must rejoin: %s", m.k.Name, why), why)
	m.id, m.generation = "", -1
	m.state, m.rejoin, m.prepared, m.inflight = mUnjoined, true, false, false
	m.revokeAll("partitions lost")
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

// heartbeat sends one Heartbeat while Stable.
func (m *member) heartbeat() {
	k, c := m.k, m.c()
	if m.state != mStable || m.coord < 0 || m.inflight {
		return
	}
	b := c.Broker(m.coord)
	m.hbSeq++
	seq, id, gen := m.hbSeq, m.id, m.generation
	done := false
	k.send(b, "Heartbeat", func() {
		g, err := b.groups.lookup(k.Group, false)
		if err == "" {
			err = g.heartbeat(id, gen)
		}
		k.reply(b, "HeartbeatResponse", func() {
			done = true
			if m.hbSeq == seq && m.id == id && m.generation == gen {
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

func (m *member) onHeartbeat(err string) {
	switch err {
	case "":
	case "REBALANCE_IN_PROGRESS":
		if !m.rejoin {
			m.info(fmt.Sprintf("%s: rebalance in progress, rejoining", m.k.Name), err)
		}
		m.rejoin = true
		m.ensure()
	case "UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION":
		m.reset(err)
		m.ensure()
	default:
		m.coordinatorLost(err)
	}
}

// onMetadata: on the leader, a topic it assigned changed its partition
// count since the assignment (or a pattern subscription gained a topic):
// rejoin. Only the leader checks (ConsumerCoordinator.rejoinNeededOrPending).
func (m *member) onMetadata() {
	if m.state != mStable || m.rejoin || m.snapshot == nil {
		return
	}
	k := m.k
	changed := !sameCounts(k.meta.snapshot(keysOf(m.snapshot)), m.snapshot)
	if len(k.topics) == 0 && !subsetKeys(k.subscription(), m.snapshot) {
		changed = true // the pattern subscription matches a new topic
	}
	if changed {
		m.info(fmt.Sprintf("%s (leader) sees partitions change in the group's topics: rejoining", k.Name), "")
		m.rejoin = true
		m.ensure()
	}
}

func keysOf(m map[string]int) []string { return sortedKeys(m) }

// subsetKeys reports whether every topic is in m.
func subsetKeys(topics []string, m map[string]int) bool {
	for _, t := range topics {
		if _, ok := m[t]; !ok {
			return false
		}
	}
	return true
}

func sameCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// pollTimer enforces max.poll.interval.ms for poll=manual consumers: the
// heartbeat thread leaves the group when the application stops polling.
func (m *member) pollTimer() {
	k := m.k
	if !k.conf.manual {
		return
	}
	var tick func()
	tick = func() {
		if m.state != mUnjoined && !m.polling && k.c.now-k.lastPoll > k.conf.maxPollMs {
			m.info(fmt.Sprintf("%s: consumer poll timeout has expired (max.poll.interval.ms=%d): leaving the group", k.Name, k.conf.maxPollMs), "")
			m.sendLeave()
			m.reset("poll timeout")
		}
		k.after(1000, tick)
	}
	k.after(1000, tick)
}

// onPoll runs at the end of each poll: auto-commit when due
// (ConsumerCoordinator.maybeAutoCommitOffsetsAsync).
func (m *member) onPoll() {
	k := m.k
	if !k.conf.autoCommit || m.state != mStable || k.c.now < m.nextCommit {
		return
	}
	m.nextCommit = k.c.now + k.conf.autoCommitMs
	m.sendCommit(nil)
}

// commitSync commits the current positions and waits (in virtual time)
// for the answer.
func (m *member) commitSync() error {
	k, c := m.k, m.c()
	if m.coord < 0 {
		return fmt.Errorf("commit failed: COORDINATOR_NOT_AVAILABLE")
	}
	var result *string
	m.sendCommit(func(err string) { result = &err })
	if err := c.runUntil(c.now+k.conf.requestTimeout, func() bool { return result != nil }); err != nil {
		return err
	}
	switch {
	case result == nil:
		return fmt.Errorf("commit timed out")
	case *result == "ILLEGAL_GENERATION" || *result == "UNKNOWN_MEMBER_ID" || *result == "REBALANCE_IN_PROGRESS":
		return fmt.Errorf("CommitFailedException (%s): the group has already rebalanced and assigned the partitions to another member", *result)
	case *result != "":
		return fmt.Errorf("commit failed: %s", *result)
	}
	return nil
}

// sendCommit sends OffsetCommit with the positions of owned partitions.
func (m *member) sendCommit(done func(string)) {
	k, c := m.k, m.c()
	b := c.Broker(m.coord)
	if b == nil {
		if done != nil {
			done("COORDINATOR_NOT_AVAILABLE")
		}
		return
	}
	req := commitReq{group: k.Group, memberID: m.id, generation: m.generation, offsets: map[*Partition]int64{}}
	for _, p := range m.owned {
		if off, ok := k.next[p]; ok {
			req.offsets[p] = off
			req.order = append(req.order, p)
		}
	}
	finished := false
	finish := func(err string) {
		if !finished {
			finished = true
			if err != "" {
				m.info(fmt.Sprintf("%s: offset commit failed: %s", k.Name, err), err)
			}
			if done != nil {
				done(err)
			}
		}
	}
	k.send(b, "OffsetCommit", func() {
		b.groups.handleCommit(req, func(err string) {
			k.reply(b, "OffsetCommitResponse", func() {
				finish(err)
				if err == "NOT_COORDINATOR" {
					m.coordinatorLost(err)
				}
			})
		})
	}, func() { finish("COORDINATOR_NOT_AVAILABLE") })
	k.after(k.conf.requestTimeout, func() { finish("REQUEST_TIMED_OUT") })
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
		if g, err := b.groups.lookup(k.Group, false); err == "" {
			g.leave(id)
		}
	}, nil)
}

// leave is KafkaConsumer.close: commit (auto-commit) then LeaveGroup.
func (m *member) leave() {
	if m.k.conf.autoCommit && m.state == mStable {
		m.sendCommit(nil)
	}
	m.sendLeave()
}

// fetchCommitted queues p for an OffsetFetch; the consumer starts at the
// committed offset, or by auto.offset.reset if there is none.
func (m *member) fetchCommitted(p *Partition) bool {
	if m.needOffsets[p] {
		return true
	}
	m.needOffsets[p] = true
	m.k.resetting[p] = true
	if !m.offsetsSent {
		m.offsetsSent = true
		m.k.after(0, m.sendOffsetFetch)
	}
	return true
}

func (m *member) sendOffsetFetch() {
	k, c := m.k, m.c()
	m.offsetsSent = false
	// Only partitions no OffsetFetch in flight covers: asking twice, the
	// later answer would reset a position set since from the earlier one
	// (ConsumerCoordinator keeps one pending OffsetFetch per partition set).
	var parts []*Partition
	for p := range m.needOffsets {
		if !m.offsetsOut[p] {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return
	}
	sortParts(parts)
	for _, p := range parts {
		m.offsetsOut[p] = true
	}
	retry := func() {
		for _, p := range parts {
			delete(m.needOffsets, p)
			delete(m.offsetsOut, p)
			delete(k.resetting, p)
		}
		k.after(k.conf.backoff, k.pump)
	}
	b := c.Broker(m.coord)
	if b == nil {
		retry()
		return
	}
	k.send(b, "OffsetFetch", func() {
		offs, err := b.groups.handleOffsetFetch(k.Group, parts)
		k.reply(b, "OffsetFetchResponse", func() {
			if err != "" {
				m.coordinatorLost(err)
				retry()
				return
			}
			for _, p := range parts {
				delete(m.needOffsets, p)
				delete(m.offsetsOut, p)
				delete(k.resetting, p)
				if _, known := k.pos[p]; known || !k.owns(p) {
					continue
				}
				if off := offs[p]; off >= 0 {
					k.setPosition(p, off, fmt.Sprintf("committed offset %d", off))
				} else {
					k.resetPosition(p)
				}
			}
			k.pump()
		})
	}, retry)
}

func sortParts(ps []*Partition) {
	sort.Slice(ps, func(i, j int) bool { return partLess(ps[i], ps[j]) })
}

func containsPart(ps []*Partition, p *Partition) bool {
	for _, x := range ps {
		if x == p {
			return true
		}
	}
	return false
}

func partNames(ps []*Partition) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	return strings.Join(names, ",")
}
