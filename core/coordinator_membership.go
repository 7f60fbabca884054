package core

import (
	"fmt"
	"maps"
	"slices"

	"github.com/kafkasim/kafkasim/core/assign"
)

// joinReq is a JoinGroup request.
type joinReq struct {
	group       string
	memberID    string
	client      string
	instance    string
	protocols   []string
	sub         assign.Member
	sessionMs   int64
	rebalanceMs int64
	// preKIP394: a JoinGroup below v4 (an outside client's), which Kafka
	// never answers MEMBER_ID_REQUIRED.
	preKIP394 bool
	// preKIP814: a JoinGroup below v9 (an outside client's), which cannot
	// be told to skip the assignment (replaceStatic).
	preKIP814 bool
	// reason: the client's reason for joining (JoinGroup v8+, KIP-800).
	reason string
	// rawMeta: each protocol's metadata as an outside client sent it
	// (nil: none kept; coordinator_member_bytes.go).
	rawMeta []string
}

// clientReason is what Kafka appends to a rebalance's reason for a
// JoinGroup that gave one (GroupCoordinator: "client reason: ...").
func (req joinReq) clientReason() string {
	if req.reason == "" {
		return ""
	}
	return "; client reason: " + req.reason
}

// joinResult is a JoinGroup response.
type joinResult struct {
	err        string
	memberID   string
	generation int
	protocol   string
	leader     string
	members    []assign.Member // for the leader only
	rawMeta    []string        // members' metadata bytes for the protocol, parallel to members ("": encode)
	// skipAssignment: a static leader back in a Stable group keeps its
	// assignment (JoinGroup v9+, KIP-814).
	skipAssignment bool
	// storeFailed: the answer to a static member whose store failed,
	// which names the group's generation, protocol and leader
	// (updateStaticMemberAndRebalance); other errors name generation -1
	// (JoinGroupResult's NoGeneration).
	storeFailed bool
}

// syncResult is a SyncGroup response.
type syncResult struct {
	err        string
	assignment []*Partition
	raw        string // the assignment as the leader's client encoded it, if it did
}

// uuid returns a deterministic 8-hex-digit id (member ids are
// clientId + "-" + UUID in Kafka).
func (c *Cluster) uuid() string { return fmt.Sprintf("%08x", uint32(c.rng.Uint64())) }

// join handles JoinGroup (GroupCoordinator.handleJoinGroup).
func (g *group) join(req joinReq, reply func(joinResult)) {
	c := g.co.b.c
	if g.state == gsDead {
		reply(joinResult{err: "COORDINATOR_NOT_AVAILABLE"})
		return
	}
	if len(g.members) > 0 && commonProtocol(g, req.protocols) == "" {
		reply(joinResult{err: "INCONSISTENT_GROUP_PROTOCOL"})
		return
	}
	if req.sessionMs < c.bc.minSessionMs || req.sessionMs > c.bc.maxSessionMs {
		reply(joinResult{err: "INVALID_SESSION_TIMEOUT"})
		return
	}
	if req.memberID == "" {
		g.joinUnknown(req, reply)
		return
	}
	m := g.members[req.memberID]
	if m == nil {
		if client, ok := g.pending[req.memberID]; ok && client == req.client {
			delete(g.pending, req.memberID)
			g.addMember(req.memberID, req, reply)
			return
		}
		reply(joinResult{err: "UNKNOWN_MEMBER_ID"})
		return
	}
	g.joinKnown(m, req, reply)
}

func (g *group) joinUnknown(req joinReq, reply func(joinResult)) {
	c := g.co.b.c
	id := req.client + "-" + c.uuid()
	if req.instance != "" {
		if old, ok := g.static[req.instance]; ok && g.members[old] != nil {
			g.replaceStatic(old, id, req, reply)
			return
		}
		g.addMember(id, req, reply)
		return
	}
	// KafkaApis.handleJoinGroupRequest: requireKnownMemberId =
	// joinGroupRequest.version >= 4 && groupInstanceId.isEmpty (a static
	// member joined above).
	if c.preset.memberIDRequired && !req.preKIP394 && len(g.pending) >= maxGroupMembers {
		// Kafka keeps pending member ids without a bound but memory
		// (GroupMetadata.pendingMembers); kafkasim bounds them as it
		// bounds members, with the answer Kafka gives a group that
		// cannot take another member (acceptJoiningMember).
		reply(joinResult{err: "GROUP_MAX_SIZE_REACHED"})
		return
	}
	if c.preset.memberIDRequired && !req.preKIP394 {
		// KIP-394: hand out the id first; the member must join again with it.
		// A pending member holds up the join until it does, or until its
		// session timeout passes (GroupCoordinator.addPendingMemberExpiration):
		// a consumer that was closed or crashed in between must not stall
		// the group forever.
		g.pending[id] = req.client
		g.co.after(req.sessionMs, func() {
			if _, ok := g.pending[id]; ok && g.state != gsDead {
				delete(g.pending, id)
				g.emit(fmt.Sprintf("pending member %s removed: it did not join again within its session timeout (%d ms)", id, req.sessionMs))
				g.tryCompleteJoinAfterExpiry()
			}
		})
		reply(joinResult{err: "MEMBER_ID_REQUIRED", memberID: id})
		return
	}
	g.addMember(id, req, reply)
}

func (g *group) joinKnown(m *gmember, req joinReq, reply func(joinResult)) {
	changed := !slices.Equal(m.protocols, req.protocols) || !sameSubscription(m.sub, req.sub)
	m.protocols, m.sub, m.sessionMs, m.rebalanceMs = req.protocols, req.sub, req.sessionMs, req.rebalanceMs
	g.setRawMeta(m, req.rawMeta)
	m.sub.ID = m.id
	m.lastBeat = g.co.b.c.now
	switch {
	case g.state == gsPreparing:
		m.joinReply = reply
		g.tryCompleteJoin()
	case g.state == gsCompleting && !changed:
		reply(g.joinResultFor(m)) // a resent JoinGroup: same answer
	case g.state == gsStable && !changed && m.id != g.leader:
		reply(g.joinResultFor(m))
	case g.state == gsCompleting || g.state == gsStable:
		// GroupCoordinator: the leader rejoining, or a member whose
		// subscription (topics, owned partitions) changed, rebalances.
		m.joinReply = reply
		g.prepareRebalance(fmt.Sprintf("member %s rejoined", m.client) + req.clientReason())
	default:
		reply(joinResult{err: "UNKNOWN_MEMBER_ID"})
	}
}

// sameSubscription compares the protocol metadata a member sends: its
// topics and the partitions it owns.
func sameSubscription(a, b assign.Member) bool {
	if !slices.Equal(a.Topics, b.Topics) || len(a.Owned) != len(b.Owned) || a.Generation != b.Generation {
		return false
	}
	for i := range a.Owned {
		if a.Owned[i] != b.Owned[i] {
			return false
		}
	}
	return true
}

func (g *group) addMember(id string, req joinReq, reply func(joinResult)) {
	c := g.co.b.c
	if len(g.members) >= maxGroupMembers {
		reply(joinResult{err: "GROUP_MAX_SIZE_REACHED"})
		return
	}
	m := &gmember{id: id, client: req.client, instance: req.instance, protocols: req.protocols, sub: req.sub,
		sessionMs: req.sessionMs, rebalanceMs: req.rebalanceMs, lastBeat: c.now, joinReply: reply}
	m.sub.ID = id
	g.setRawMeta(m, req.rawMeta)
	g.members[id] = m
	g.order = append(g.order, id)
	if req.instance != "" {
		g.static[req.instance] = id
	}
	if g.leader == "" {
		g.leader = id
	}
	g.emit(fmt.Sprintf("member %s joined as %s", req.client, id))
	g.armSession(m)
	if g.state == gsPreparing {
		g.markNewMember()
		g.tryCompleteJoin()
		return
	}
	g.prepareRebalance(fmt.Sprintf("member %s joined", req.client) + req.clientReason())
}

// maxGroupMembers bounds a group's members, and apart from them its
// pending member ids (MEMBER_ID_REQUIRED), which each JoinGroup without a
// member id adds for a session timeout: GROUP_MAX_SIZE_REACHED past it,
// as Kafka answers past group.max.size (whose default is no limit).
const maxGroupMembers = 10_000

// prepareRebalance starts a rebalance: members must rejoin within the
// rebalance timeout (the largest max.poll.interval.ms among them). An
// Empty group first waits group.initial.rebalance.delay.ms so that
// members starting together land in one generation.
func (g *group) prepareRebalance(why string) {
	c := g.co.b.c
	if g.state == gsCompleting {
		for _, m := range g.sortedMembers() {
			if m.syncReply != nil {
				r := m.syncReply
				m.syncReply = nil
				r(syncResult{err: "REBALANCE_IN_PROGRESS"})
			}
			m.assignment, m.raw = nil, ""
		}
	}
	g.joinGen++
	gen := g.joinGen
	timeout := g.rebalanceTimeout()
	// From Empty always an InitialDelayedJoin, even with a delay of 0 (see
	// coordinator_initial_delay.go).
	g.initial = g.state == gsEmpty
	g.setState(gsPreparing, why)
	if g.initial {
		d := c.bc.initialRebalanceMs
		g.initialDelayStep(d, d, max(timeout-d, 0))
		return
	}
	g.co.after(timeout, func() {
		if g.joinGen == gen && g.state == gsPreparing {
			g.completeJoin()
		}
	})
	g.tryCompleteJoin()
}

func (g *group) rebalanceTimeout() int64 {
	t := int64(0)
	for _, m := range g.members {
		t = max(t, m.rebalanceMs)
	}
	if t == 0 {
		t = 300000
	}
	return t
}

// tryCompleteJoin completes the join once every known member has rejoined
// (and no member id handed out by MEMBER_ID_REQUIRED is still expected),
// unless the join is an initial delayed join, which only its timer ends
// (InitialDelayedJoin.tryComplete is false).
func (g *group) tryCompleteJoin() {
	if g.state == gsPreparing && !g.initial && g.allJoined() {
		g.completeJoin()
	}
}

// tryCompleteJoinAfterExpiry is tryCompleteJoin after a member's or a
// pending member id's session expired. 4.0's GroupMetadataManager
// (onClassicGroupHeartbeatExpiration -> removeMemberAndUpdateClassicGroup,
// removePendingMemberAndUpdateClassicGroup) then completes the join when
// everyone left has joined, initial delay or not; a LeaveGroup goes
// through maybeCompleteJoinPhase, which waits out an initial delay. 3.9's
// GroupCoordinator asks the purgatory in both cases, and its
// InitialDelayedJoin refuses.
func (g *group) tryCompleteJoinAfterExpiry() {
	if g.initial && g.co.b.c.preset.initialDelayAfterEmpty {
		if g.state == gsPreparing && g.allJoined() {
			g.completeJoin()
		}
		return
	}
	g.tryCompleteJoin()
}

// allJoined is GroupMetadata.hasAllMembersJoined: every member awaits its
// JoinGroup answer and no pending member id is outstanding.
func (g *group) allJoined() bool {
	for _, m := range g.members {
		if m.joinReply == nil {
			return false
		}
	}
	return len(g.pending) == 0
}

// completeJoin drops members that did not rejoin, starts the next
// generation, picks the protocol and answers every JoinGroup; the leader
// gets the members' subscriptions.
func (g *group) completeJoin() {
	for _, m := range g.sortedMembers() {
		if m.joinReply == nil {
			g.remove(m, "did not rejoin within the rebalance timeout")
		}
	}
	// Pending member ids stay pending (GroupCoordinator.onCompleteJoin
	// leaves them): one that joins later is added and starts the next
	// rebalance, one that never does expires after its session timeout.
	g.initial = false
	g.generation++
	g.subscribed = g.computeSubscribedTopics() // GroupMetadata.initNextGeneration
	if len(g.members) == 0 {
		g.protocol, g.leader = "", ""
		g.setState(gsEmpty, "no members left")
		g.co.persist(g, nil)
		return
	}
	if g.members[g.leader] == nil {
		g.leader = g.order[0]
	}
	g.protocol = g.selectProtocol()
	g.setState(gsCompleting, fmt.Sprintf("%d member(s) joined, leader %s, protocol %s", len(g.members), g.members[g.leader].client, g.protocol))
	for _, m := range g.sortedMembers() {
		r := m.joinReply
		m.joinReply = nil
		m.lastBeat = g.co.b.c.now
		g.armSession(m)
		r(g.joinResultFor(m))
	}
}

func (g *group) joinResultFor(m *gmember) joinResult {
	res := joinResult{memberID: m.id, generation: g.generation, protocol: g.protocol, leader: g.leader}
	if m.id == g.leader {
		for _, id := range g.order {
			if x := g.members[id]; x != nil {
				res.members = append(res.members, x.sub)
				res.rawMeta = append(res.rawMeta, x.metadataFor(g.protocol))
			}
		}
	}
	return res
}

// selectProtocol is GroupMetadata.selectProtocol: among the assignors every
// member supports, each member votes for the first in its own list.
func (g *group) selectProtocol() string {
	common := map[string]bool{}
	first := true
	for _, m := range g.members {
		set := map[string]bool{}
		for _, p := range m.protocols {
			if first || common[p] {
				set[p] = true
			}
		}
		common, first = set, false
	}
	votes := map[string]int{}
	for _, m := range g.members {
		for _, p := range m.protocols {
			if common[p] {
				votes[p]++
				break
			}
		}
	}
	best := ""
	for _, p := range slices.Sorted(maps.Keys(votes)) {
		if best == "" || votes[p] > votes[best] {
			best = p
		}
	}
	return best
}

func commonProtocol(g *group, protocols []string) string {
	for _, p := range protocols {
		all := true
		for _, m := range g.members {
			if !slices.Contains(m.protocols, p) {
				all = false
				break
			}
		}
		if all {
			return p
		}
	}
	return ""
}

// sync handles SyncGroup: the leader's assignment is persisted, then every
// member gets its share and the group is Stable. raw holds the members'
// assignments as an outside leader's client encoded them, answered as
// they came.
func (g *group) sync(memberID string, generation int, assignment map[string][]*Partition, raw map[string]string, reply func(syncResult)) {
	m := g.members[memberID]
	switch {
	case m == nil:
		reply(syncResult{err: "UNKNOWN_MEMBER_ID"})
		return
	case generation != g.generation:
		reply(syncResult{err: "ILLEGAL_GENERATION"})
		return
	case g.state == gsPreparing:
		reply(syncResult{err: "REBALANCE_IN_PROGRESS"})
		return
	case g.state == gsStable:
		reply(syncResult{assignment: m.assignment, raw: m.raw})
		return
	case g.state != gsCompleting:
		reply(syncResult{err: "UNKNOWN_MEMBER_ID"})
		return
	}
	m.syncReply = reply
	if memberID != g.leader {
		return
	}
	for _, x := range g.members {
		x.assignment, x.raw = assignment[x.id], raw[x.id]
	}
	gen := g.generation
	g.co.persist(g, func(err string) {
		if g.generation != gen || g.state != gsCompleting {
			return
		}
		if err != "" {
			// GroupCoordinator.doSyncGroup: resetAndPropagateAssignmentError,
			// then maybePrepareRebalance. The members get storeGroup's
			// error: REBALANCE_IN_PROGRESS for a timeout up to 3.9 (they
			// join again at once, and the next store waits
			// offsets.commit.timeout.ms again), COORDINATOR_NOT_AVAILABLE
			// for a partition below min.insync.replicas and for 4.0's
			// timeout (they find the coordinator again after
			// retry.backoff.ms); never REBALANCE_IN_PROGRESS for an
			// append that fails at once, which would rebalance every few
			// milliseconds.
			for _, x := range g.sortedMembers() {
				if x.syncReply != nil {
					r := x.syncReply
					x.syncReply = nil
					r(syncResult{err: err})
				}
			}
			g.prepareRebalance("could not store the group's assignment: " + err)
			return
		}
		g.setState(gsStable, "assignment "+g.assignmentText())
		for _, x := range g.sortedMembers() {
			if x.syncReply != nil {
				r := x.syncReply
				x.syncReply = nil
				r(syncResult{assignment: x.assignment, raw: x.raw})
			}
		}
	})
}

// heartbeat handles Heartbeat. A static member's old id, replaced by a
// new instance with the same group.instance.id, is FENCED_INSTANCE_ID
// (GroupCoordinator.validateCurrentMember), which a client takes as
// fatal; UNKNOWN_MEMBER_ID had it rejoin and fence the new one in turn,
// for ever.
func (g *group) heartbeat(memberID, instance string, generation int) string {
	m := g.members[memberID]
	cur, static := g.static[instance]
	switch {
	case instance != "" && static && cur != memberID:
		return "FENCED_INSTANCE_ID"
	case instance != "" && !static:
		return "UNKNOWN_MEMBER_ID"
	case m == nil || g.state == gsEmpty || g.state == gsDead:
		return "UNKNOWN_MEMBER_ID"
	case generation != g.generation:
		return "ILLEGAL_GENERATION"
	}
	m.lastBeat = g.co.b.c.now
	g.armSession(m)
	if g.state == gsPreparing {
		return "REBALANCE_IN_PROGRESS"
	}
	return ""
}

// leave handles LeaveGroup.
func (g *group) leave(memberID string) string {
	m := g.members[memberID]
	if m == nil {
		if _, ok := g.pending[memberID]; ok {
			delete(g.pending, memberID)
			g.tryCompleteJoin()
			return ""
		}
		return "UNKNOWN_MEMBER_ID"
	}
	g.removeAndRebalance(m, "left the group", false)
	return ""
}
