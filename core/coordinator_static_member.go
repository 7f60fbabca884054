package core

import (
	"fmt"
	"slices"
)

// Static membership (KIP-345): a member with a group.instance.id that
// comes back under a new member id takes over its old place.

// replaceStatic is KIP-345: a static member coming back under a new member
// id takes over the old one (GroupMetadata.replaceStaticMember: a JoinGroup
// or SyncGroup the old id still awaits is answered FENCED_INSTANCE_ID); in
// a Stable group this needs no rebalance, while CompletingRebalance starts
// a new one.
func (g *group) replaceStatic(old, id string, req joinReq, reply func(joinResult)) {
	leader := g.leader
	m := g.members[old]
	prev := *m // what a failed store reverts to
	prev.rawMeta = slices.Clone(m.rawMeta)
	g.fenceStatic(m)
	g.renameMember(m, id)
	m.client, m.protocols, m.sub = req.client, req.protocols, req.sub
	g.setRawMeta(m, req.rawMeta)
	m.sub.ID = id
	m.lastBeat = g.co.b.c.now
	g.emit(fmt.Sprintf("static member %s (group.instance.id=%s) replaced by %s", old, req.instance, req.client))
	g.armSession(m)
	switch {
	case g.state == gsStable && g.selectProtocol() != g.protocol:
		// GroupCoordinator.updateStaticMemberAndRebalance: the member's
		// assignors change what the group would select; rebalance, so
		// that the selection and the assignment agree.
		m.joinReply = reply
		g.prepareRebalance(fmt.Sprintf("static member %s (group.instance.id=%s) joined with other assignors", req.client, req.instance) + req.clientReason())
	case g.state == gsStable:
		g.storeStaticMember(m, &prev, leader, req, reply)
	case g.state == gsCompleting:
		// GroupCoordinator.updateStaticMemberAndRebalance: the leader may
		// already be computing an assignment naming the old member id,
		// which the new one would never match, so the group rebalances.
		m.joinReply = reply
		g.prepareRebalance(fmt.Sprintf("static member %s (group.instance.id=%s) replaced while the group awaited its assignment", req.client, req.instance) + req.clientReason())
	default:
		m.joinReply = reply
		g.tryCompleteJoin()
	}
}

// fenceStatic answers FENCED_INSTANCE_ID to the JoinGroup and SyncGroup a
// static member's old id awaits, now that another instance took its
// place (GroupMetadata.replaceStaticMember).
func (g *group) fenceStatic(m *gmember) {
	if r := m.joinReply; r != nil {
		m.joinReply = nil
		r(joinResult{err: "FENCED_INSTANCE_ID", memberID: m.id})
	}
	if r := m.syncReply; r != nil {
		m.syncReply = nil
		r(syncResult{err: "FENCED_INSTANCE_ID"})
	}
}

// renameMember gives m the member id to, in the group's order, its
// leadership and its instance id's entry.
func (g *group) renameMember(m *gmember, to string) {
	from := m.id
	delete(g.members, from)
	for i, x := range g.order {
		if x == from {
			g.order[i] = to
		}
	}
	if g.leader == from {
		g.leader = to
	}
	m.id, m.sub.ID = to, to
	g.members[to] = m
	if m.instance != "" {
		g.static[m.instance] = to
	}
}

// storeStaticMember answers a static member back under a new member id in
// a Stable group whose protocol it does not change once the group, with
// the new id, is written to __consumer_offsets
// (GroupCoordinator.updateStaticMemberAndRebalance: storeGroup, then the
// answer from its callback). The group keeps its generation and
// assignment. From JoinGroup v9 (KIP-814) a leader is told it leads,
// with the members, and to skip the assignment; below v9 the answer names
// the leader as it was (the old member id when this member led), with no
// members, so that the member does not assign. If the write fails, the
// member gets its old id and subscription back and the answer is
// storeGroup's error (REBALANCE_IN_PROGRESS for a timeout up to 3.9,
// coordinator_store_errors.go) with no member id, but with the group's
// generation and protocol and the leader as it was. The member awaits its answer meanwhile, so
// its session does not expire; one answered in between (fenced by
// another rejoin, or by a rebalance's completion, or the coordinator
// unloaded) is neither answered again nor reverted (Kafka would revert
// it and answer twice).
func (g *group) storeStaticMember(m *gmember, prev *gmember, leader string, req joinReq, reply func(joinResult)) {
	answered := false
	m.joinReply = func(r joinResult) {
		answered = true
		reply(r)
	}
	id := m.id
	g.co.persist(g, func(err string) {
		if answered || g.members[id] != m || g.state == gsDead {
			return
		}
		if err != "" {
			g.revertStatic(m, prev)
			m.joinReply = nil
			reply(joinResult{err: err, generation: g.generation, protocol: g.protocol, leader: leader, storeFailed: true})
			return
		}
		// A rebalance begun meanwhile does not hold the answer back
		// (maybeInvokeJoinCallback): the member, answered, has to join
		// it again.
		res := g.joinResultFor(m)
		switch {
		case req.preKIP814:
			res.leader, res.members, res.rawMeta = leader, nil, nil
		case m.id == g.leader:
			res.skipAssignment = true
		}
		m.joinReply = nil
		reply(res)
	})
}

// revertStatic undoes replaceStatic after its store failed: m is again
// the member prev was, under prev's id.
func (g *group) revertStatic(m, prev *gmember) {
	g.emit(fmt.Sprintf("static member %s (group.instance.id=%s) not stored: back to %s", m.id, m.instance, prev.id))
	g.renameMember(m, prev.id)
	m.client, m.protocols, m.sub = prev.client, prev.protocols, prev.sub
	g.setRawMeta(m, prev.rawMeta)
	m.lastBeat = g.co.b.c.now
	g.armSession(m)
}
