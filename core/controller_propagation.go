package core

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// writeState stores a partition's new state (the state znode, or a
// PartitionChangeRecord).
func (m *metadata) writeState(p *Partition, st pstate, why string) {
	moved := p.state.leader != st.leader
	p.state = st
	if m.kraft {
		m.log(fmt.Sprintf("PartitionChangeRecord %s leader=%d leaderEpoch=%d isr=%s partitionEpoch=%d (%s)", p.Name, st.leader, st.epoch, joinInts(st.isr), st.version, why))
		if moved {
			m.maybeScheduleBalance()
			m.maybeScheduleUnclean()
		}
		return
	}
	path := statePath(p)
	data := stateZNode(st, m.ctrlEpoch)
	if m.zk.exists(path) {
		m.zk.set(path, data)
	} else {
		m.zk.create(path, data, "")
	}
}

func statePath(p *Partition) string {
	return fmt.Sprintf("/brokers/topics/%s/partitions/%d/state", p.Topic.Name, p.ID)
}

// stateZNode is the partition state znode as Kafka writes it.
func stateZNode(st pstate, ctrlEpoch int) string {
	return fmt.Sprintf(`{"controller_epoch":%d,"leader":%d,"version":1,"leader_epoch":%d,"isr":[%s]}`, ctrlEpoch, st.leader, st.epoch, joinInts(st.isr))
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

// propagate sends the current state of parts: each live broker gets one
// message listing them all (LeaderAndIsr for the partitions it hosts,
// UpdateMetadata for the rest; in KRaft, the metadata records it fetches).
func (m *metadata) propagate(parts []*Partition, only []int) { m.propagateTo(parts, only, false) }

// propagateTo is propagate; with cacheOnly the brokers take the states
// into their metadata caches only (leaderAndIsrReq.cacheOnly).
func (m *metadata) propagateTo(parts []*Partition, only []int, cacheOnly bool) {
	from := m.ctrlNode()
	if from == nil || len(parts) == 0 && only == nil {
		// Nothing changed. A message to named brokers goes even when it
		// holds no partition: it tells them the live brokers
		// (UpdateMetadata), so that their answers to clients are not
		// "empty" (metaSeen).
		return
	}
	ups := make([]partUpdate, 0, len(parts))
	seen := map[*Partition]bool{}
	for _, p := range parts {
		if !seen[p] {
			seen[p] = true
			ups = append(ups, partUpdate{p: p, st: p.state.clone()})
		}
	}
	kind := "LeaderAndIsr"
	if m.kraft {
		kind = "MetadataUpdate"
	}
	for _, id := range m.registeredIDs() {
		if only != nil && !slices.Contains(only, id) || !m.kraft && m.known[id] != m.registered[id] {
			continue
		}
		// To the registered process: one that restarted and has not
		// registered again takes no controller requests yet (a broker
		// serves requests once its startup, registration included, is done).
		m.sendState(m.c.Broker(id), m.registered[id]-1, kind, ups, cacheOnly)
	}
}

// Resend intervals of a state update that did not arrive: a ZK-mode
// controller's RequestSendThread waits controller.socket.timeout.ms for
// the response, then reconnects and sends the request again, for as long
// as the broker is live; a KRaft broker fetches the metadata log
// continuously, so it has what it missed soon after the network heals.
const (
	zkStateResendMs    = 30_000
	kraftStateResendMs = 1_000
)

// sendState sends ups to broker b and sends them again until they arrive,
// while b's session (this incarnation) and this controller last. Without
// the resend, an update dropped by a network split is never delivered and
// a deposed leader keeps leading its old epoch after the split heals. A
// resend carries the partitions' state as it is then (what a KRaft broker
// would read from the log): the old state would roll back an ISR change
// the leader has made since, and its next change would be refused
// (INVALID_UPDATE_VERSION) forever.
//
// inc is the broker process the update is for (the controller sends to
// itself over the network too): a process that died meanwhile gets
// nothing, and its successor gets its state when it registers.
func (m *metadata) sendState(b *Broker, inc int, kind string, ups []partUpdate, cacheOnly bool) {
	ctrl, epoch := m.controller, m.ctrlEpoch
	arrived := false
	m.c.net.send(m.ctrlNode(), b.node, kind, func() {
		arrived = true
		if b.incarnation == inc {
			b.handleLeaderAndIsr(leaderAndIsrReq{ctrlEpoch: epoch, parts: ups, cacheOnly: cacheOnly})
		}
	}, nil)
	again := func() {
		if !arrived && b.incarnation == inc && m.registered[b.ID] == inc+1 && m.controller == ctrl && m.ctrlEpoch == epoch && m.ctrlNode() != nil {
			now := make([]partUpdate, len(ups))
			for i, u := range ups {
				now[i] = partUpdate{p: u.p, st: u.p.state.clone()}
			}
			m.sendState(b, inc, kind, now, cacheOnly)
		}
	}
	if m.kraft {
		m.c.after(kraftStateResendMs, again)
	} else {
		m.c.Broker(ctrl).after(zkStateResendMs, again) // the controller broker's own thread
	}
}

// partUpdate is one partition's state as sent to brokers.
type partUpdate struct {
	p  *Partition
	st pstate
}
