package core

import "fmt"

// A consumer with a group.id that calls assign() instead of subscribe()
// (KafkaConsumer.assign) uses its group only for offsets: it never joins
// nor heartbeats, fetches the committed offsets of its partitions
// (OffsetFetch with require_stable, ConsumerCoordinator
// .refreshCommittedOffsetsIfNeeded) and commits them, auto-commit
// included, without a generation or member id (ConsumerCoordinator
// .commitOffsetsAsync: Generation.NO_GENERATION when the partitions are
// not auto-assigned), which the coordinator takes while the group has no
// members (GroupCoordinator.doCommitOffsets). Its close commits
// (maybeAutoCommitOffsetsSync) and sends no LeaveGroup.

// manualAssign switches m to manual assignment of parts. It is refused
// for a consumer created with topics, and once m has joined or started
// to join its group (a consumer without topics subscribes to every
// topic): KafkaConsumer.assign after subscribe throws
// IllegalStateException, and unsubscribe is not modelled.
func (m *member) manualAssign(parts []*Partition) error {
	if !m.manual && (len(m.k.topics) > 0 || m.id != "" || m.generation >= 0 || m.inflight || m.state != mUnjoined) {
		return fmt.Errorf("consumer %s is subscribed to group %s: assign after subscribe is an IllegalStateException (Subscription to topics, partitions and pattern are mutually exclusive)", m.k.Name, m.k.Group)
	}
	m.manual, m.rejoin = true, false
	m.owned = parts
	m.k.assign(parts)
	return nil
}

// ensureManual is ensure for a manually assigned consumer: find the
// coordinator, for offsets only, then send the OffsetFetch that waited
// for it.
func (m *member) ensureManual() {
	if m.coord < 0 {
		m.findCoordinator()
		return
	}
	if len(m.needOffsets) > 0 && !m.offsetsSent {
		m.offsetsSent = true
		m.k.after(0, m.sendOffsetFetch)
	}
}
