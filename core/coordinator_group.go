package core

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kafkasim/kafkasim/core/assign"
)

// groupState is a classic consumer group's state (GroupMetadata.scala).
type groupState uint8

const (
	gsEmpty groupState = iota
	gsPreparing
	gsCompleting
	gsStable
	gsDead
)

func (s groupState) String() string {
	return [...]string{"Empty", "PreparingRebalance", "CompletingRebalance", "Stable", "Dead"}[s]
}

// group is the coordinator's state for one consumer group. It lives on the
// broker leading the group's __consumer_offsets partition and is rebuilt
// from that partition's log when leadership moves.
type group struct {
	id         string
	co         *coordinator
	p          *Partition // its __consumer_offsets partition
	state      groupState
	generation int
	protocol   string // the selected assignor
	leader     string // member id of the group leader
	members    map[string]*gmember
	order      []string          // member ids in join order
	pending    map[string]string // MEMBER_ID_REQUIRED member ids -> client
	static     map[string]string // group.instance.id -> member id
	offsets    map[*Partition]int64
	meta       map[*Partition]commitMeta // offsets' metadata and leader epochs, where committed with any
	joinGen    int                       // identifies the current delayed join
	initial    bool                      // the current join is the initial delayed join
	newMember  bool                      // GroupMetadata.newMemberAdded: the initial delay takes one more step
	prevState  groupState                // the state before the current one (ClassicGroup.previousState)
	// writing: offset commits being appended to __consumer_offsets, per
	// partition (GroupMetadata.pendingOffsetCommits)
	writing map[*Partition]int
	// committedAt is each offset's commit timestamp; stateSince is when
	// the group entered its state (currentStateTimestamp). Offset expiry
	// reads them (coordinator_offsets_expiry.go).
	committedAt map[*Partition]int64
	stateSince  int64
	// rawMetaBytes: the members' rawMeta in all, at most
	// MaxRawAssignmentBytes (setRawMeta)
	rawMetaBytes int
	// subscribed: the topics the members of the current generation
	// subscribe to, nil before the first (GroupMetadata.subscribedTopics;
	// coordinator_offset_delete.go)
	subscribed map[string]bool
}

// gmember is one member as the coordinator sees it.
type gmember struct {
	id, client, instance string
	protocols            []string
	sub                  assign.Member
	sessionMs            int64
	rebalanceMs          int64
	lastBeat             int64
	joinReply            func(joinResult)
	syncReply            func(syncResult)
	assignment           []*Partition
	raw                  string   // assignment as an outside leader encoded it ("": not sent)
	rawMeta              []string // metadata per protocol as an outside member sent it (nil: not kept)
}

func newGroup(co *coordinator, id string, p *Partition) *group {
	return &group{id: id, co: co, p: p, members: map[string]*gmember{}, pending: map[string]string{},
		static: map[string]string{}, offsets: map[*Partition]int64{}, committedAt: map[*Partition]int64{},
		stateSince: co.b.c.now}
}

func (g *group) emit(detail string) {
	g.co.b.c.emit(Event{Type: EvGroup, Group: g.id, Generation: g.generation, Broker: g.co.b.ID, State: g.state.String(), Detail: detail})
}

func (g *group) setState(s groupState, why string) {
	if g.state == s {
		return
	}
	g.prevState, g.state = g.state, s
	g.stateSince = g.co.b.c.now // GroupMetadata.transitionTo: currentStateTimestamp
	g.emit(fmt.Sprintf("is %s (generation %d): %s", s, g.generation, why))
}

func (g *group) failPending(m *gmember, err string) {
	if m.joinReply != nil {
		r := m.joinReply
		m.joinReply = nil
		r(joinResult{err: err})
	}
	if m.syncReply != nil {
		r := m.syncReply
		m.syncReply = nil
		r(syncResult{err: err})
	}
}

// armSession checks, session.timeout.ms after the last heartbeat, that the
// member is still alive. A member waiting for its JoinGroup or SyncGroup
// answer is kept alive.
func (g *group) armSession(m *gmember) {
	beat := m.lastBeat
	g.co.after(m.sessionMs, func() {
		// A group unloaded meanwhile (its offsets partition changed
		// leaders, even back to this broker) is dead: its members' timers
		// must not remove them from the group loaded in its place.
		if g.state == gsDead || g.members[m.id] != m || m.lastBeat != beat || m.joinReply != nil || m.syncReply != nil {
			return
		}
		g.removeAndRebalance(m, fmt.Sprintf("session timed out (no heartbeat for %d ms)", m.sessionMs), true)
	})
}

// removeAndRebalance removes a member that left (expired: whose session
// timed out) and rebalances or completes the join.
func (g *group) removeAndRebalance(m *gmember, why string, expired bool) {
	g.remove(m, why)
	switch {
	case g.state == gsStable || g.state == gsCompleting:
		g.prepareRebalance(fmt.Sprintf("member %s %s", m.client, why))
	case g.state == gsPreparing && expired:
		g.tryCompleteJoinAfterExpiry()
	case g.state == gsPreparing:
		g.tryCompleteJoin()
	}
}

func (g *group) remove(m *gmember, why string) {
	delete(g.members, m.id)
	g.setRawMeta(m, nil)
	for i, id := range g.order {
		if id == m.id {
			g.order = append(g.order[:i], g.order[i+1:]...)
			break
		}
	}
	if m.instance != "" && g.static[m.instance] == m.id {
		delete(g.static, m.instance)
	}
	if g.leader == m.id {
		g.leader = ""
		if len(g.order) > 0 {
			g.leader = g.order[0]
		}
	}
	g.emit(fmt.Sprintf("member %s removed: %s", m.client, why))
	if m.joinReply != nil {
		r := m.joinReply
		m.joinReply = nil
		r(joinResult{err: "UNKNOWN_MEMBER_ID"})
	}
}

func (g *group) sortedMembers() []*gmember {
	out := make([]*gmember, 0, len(g.members))
	for _, id := range g.order {
		if m := g.members[id]; m != nil {
			out = append(out, m)
		}
	}
	return out
}

// assignmentText renders the assignment by client name.
func (g *group) assignmentText() string {
	var parts []string
	for _, m := range g.sortedMembers() {
		names := make([]string, len(m.assignment))
		for i, p := range m.assignment {
			names[i] = p.Name
		}
		parts = append(parts, m.client+"="+strings.Join(names, ","))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}
