package core

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/kafkasim/kafkasim/core/assign"
)

// subscription returns the subscribed topics: the configured list, or
// every non-internal topic the consumer knows (a pattern subscription).
func (k *Consumer) subscription() []string {
	if len(k.topics) > 0 {
		return k.topics
	}
	var out []string
	for _, t := range slices.Sorted(maps.Keys(k.meta.counts)) {
		if !strings.HasPrefix(t, "__") {
			out = append(out, t)
		}
	}
	return out
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
			if t := c.topics[tp.Topic]; t != nil && tp.Partition < len(t.parts) {
				plan[id] = append(plan[id], t.parts[tp.Partition])
			}
		}
	}
	return plan
}

// prepareDone ends onJoinPrepare: eager protocols revoke every partition.
// A member whose generation was reset (member.reset) loses them all,
// whatever the protocol: ConsumerCoordinator.onJoinPrepare calls
// onPartitionsLost when the generation or member id is NO_GENERATION's,
// so at the next poll, not when the heartbeat thread heard the error.
func (m *member) prepareDone() {
	switch {
	case m.generation < 0:
		m.revokeAll("partitions lost")
	case !m.cooperative:
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

// onMetadata: on the leader, a topic it assigned changed its partition
// count since the assignment (or a pattern subscription gained a topic):
// rejoin. Only the leader checks (ConsumerCoordinator.rejoinNeededOrPending).
func (m *member) onMetadata() {
	if m.state != mStable || m.rejoin || m.snapshot == nil {
		return
	}
	k := m.k
	changed := !maps.Equal(k.meta.snapshot(slices.Sorted(maps.Keys(m.snapshot))), m.snapshot)
	if len(k.topics) == 0 && !subsetKeys(k.subscription(), m.snapshot) {
		changed = true // the pattern subscription matches a new topic
	}
	if changed {
		m.info(fmt.Sprintf("%s (leader) sees partitions change in the group's topics: rejoining", k.Name), "")
		m.rejoin = true
		m.ensure()
	}
}

// subsetKeys reports whether every topic is in m.
func subsetKeys(topics []string, m map[string]int) bool {
	for _, t := range topics {
		if _, ok := m[t]; !ok {
			return false
		}
	}
	return true
}

// onPoll runs at the start of each poll: auto-commit when due
// (ConsumerCoordinator.poll ends with maybeAutoCommitOffsetsAsync, and
// KafkaConsumer.poll runs it before it fetches and returns records). So a
// poll commits what earlier polls returned, never what it is about to
// return: a consumer that crashes while processing redelivers those
// records (at-least-once) instead of losing them. Not while a rejoin is
// needed or under way, the pre-rebalance commit included, nor without a
// coordinator: ConsumerCoordinator.poll returns false before it
// (rejoinNeededOrPending -> ensureActiveGroup, whose onJoinPrepare waits
// for that commit; coordinatorUnknownAndUnreadySync), though a
// cooperative member's poll goes on returning records.
func (m *member) onPoll() {
	k := m.k
	if !k.conf.autoCommit || !m.stable() || m.coord < 0 || k.c.now < m.nextCommit {
		return
	}
	m.nextCommit = k.c.now + k.conf.autoCommitMs
	m.sendCommit(nil)
}

// commitSync is ConsumerCoordinator.commitOffsetsSync with the timer of
// commitTimeout: it waits for the coordinator if none is known
// (coordinatorUnknownAndUnreadySync, which looks it up) and sends
// OffsetCommit with the current positions; an answer whose exception is
// retriable (commitRetriable) is tried again after retry.backoff.ms,
// found coordinator first, while the timer runs. Anything else ends it.
// The op reports the last attempt's retriable error if the timer ran out
// after one, else that it timed out (KafkaConsumer.commitSync's
// TimeoutException).
func (m *member) commitSync() (*op, error) {
	k := m.k
	var result *string
	last, over := "", false
	var attempt func()
	attempt = func() {
		if over {
			return
		}
		if len(m.consumed()) == 0 {
			result = new("") // commitOffsetsSync: nothing to commit returns at once, no coordinator asked
			return
		}
		if m.coord < 0 {
			m.findCoordinator()
			k.after(k.conf.backoff, attempt)
			return
		}
		if err := m.notInGroup(); err != "" {
			result = &err
			return
		}
		m.sendCommit(func(err string) {
			if over {
				return
			}
			if commitRetriable(err) {
				last = err
				k.after(k.conf.backoff, attempt)
				return
			}
			result = &err
		})
	}
	attempt()
	return &op{
		done: func() bool { return result != nil },
		finish: func(fault error) error {
			over = true
			switch {
			case fault != nil:
				return fault
			case result == nil && last != "":
				return fmt.Errorf("commit failed: %s", last)
			case result == nil:
				return fmt.Errorf("commit timed out")
			case *result == errKickedOut || *result == errRebalancing || *result == errStaleGeneration:
				return fmt.Errorf("%s", *result)
			case *result == "REBALANCE_IN_PROGRESS" && k.c.preset.commitRebalanceInProgress:
				return fmt.Errorf("%s", errGroupRebalancing)
			case *result == "ILLEGAL_GENERATION" || *result == "UNKNOWN_MEMBER_ID" || *result == "REBALANCE_IN_PROGRESS":
				return fmt.Errorf("CommitFailedException (%s): the group has already rebalanced and assigned the partitions to another member", *result)
			case *result != "":
				return fmt.Errorf("commit failed: %s", *result)
			}
			return nil
		},
	}, nil
}

// commitRetriable reports whether an OffsetCommit error is one commitSync
// tries again: OffsetCommitResponseHandler raises it as a
// RetriableException (COORDINATOR_LOAD_IN_PROGRESS and
// UNKNOWN_TOPIC_OR_PARTITION "just retry"; the three that also mark the
// coordinator unknown, see commitMarksCoordinatorUnknown), and
// commitOffsetsSync throws only what is not (future.isRetriable). An
// asynchronous commit (auto-commit) is never retried: its callback gets
// the error (commitOffsetsAsync, RetriableCommitFailedException).
func commitRetriable(err string) bool {
	switch err {
	case "COORDINATOR_LOAD_IN_PROGRESS", "UNKNOWN_TOPIC_OR_PARTITION":
		return true
	}
	return commitMarksCoordinatorUnknown(err)
}

// sendCommit sends OffsetCommit with the positions of owned partitions;
// with none (no partition assigned, or none with a position yet) it sends
// nothing and succeeds at once, as ConsumerCoordinator.sendOffsetCommitRequest
// returns RequestFuture.voidSuccess() for empty offsets (0.9 to 4.0): an
// idle member of a group with more members than partitions auto-commits
// without a request every auto.commit.interval.ms.
func (m *member) sendCommit(done func(string)) {
	k, c := m.k, m.c()
	if len(m.consumed()) == 0 {
		if done != nil {
			done("")
		}
		return
	}
	b := c.Broker(m.coord)
	if b == nil {
		if done != nil {
			done("COORDINATOR_NOT_AVAILABLE")
		}
		return
	}
	req := commitReq{group: k.Group, memberID: m.id, generation: m.generation, offsets: map[*Partition]int64{}}
	for _, p := range m.consumed() {
		req.offsets[p] = k.next[p]
		req.order = append(req.order, p)
	}
	finished := false
	finish := func(err string, disconnected bool) {
		if finished {
			return // answered, or already failed at request.timeout.ms
		}
		finished = true
		if err != "" {
			m.info(fmt.Sprintf("%s: offset commit failed: %s", k.Name, err), err)
		}
		err = m.onCommitError(err, req.generation)
		// Only the coordinator the request went to is forgotten: one found
		// since then is kept (Kafka's markCoordinatorUnknown drops
		// whichever it has then; only a late answer tells them apart).
		if (disconnected || commitMarksCoordinatorUnknown(err)) && m.coord == b.ID {
			m.coordinatorLost(err)
		}
		if done != nil {
			done(err)
		}
	}
	k.send(b, "OffsetCommit", func() {
		b.handleOffsetCommit(req, func(err string, _ map[*Partition]bool) { // no metadata: nothing too large
			k.reply(b, "OffsetCommitResponse", func() { finish(err, false) })
		})
	}, func() { finish("COORDINATOR_NOT_AVAILABLE", true) })
	// NetworkClient fails a request unanswered after request.timeout.ms
	// as a disconnection (handleTimedOutRequests): DisconnectException.
	k.after(k.conf.requestTimeout, func() { finish("REQUEST_TIMED_OUT", true) })
}

// commitMarksCoordinatorUnknown reports whether an OffsetCommit answered
// err makes the consumer look its coordinator up again before it commits
// or joins next: ConsumerCoordinator.OffsetCommitResponseHandler calls
// markCoordinatorUnknown for COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR
// and REQUEST_TIMED_OUT (0.11's coordinatorDead, 2.8, 3.9 and 4.0
// alike; COORDINATOR_LOAD_IN_PROGRESS keeps the coordinator and is only
// retried). A request that fails on the client's side, refused or
// unanswered, is a DisconnectException, which
// CoordinatorResponseHandler.onFailure treats the same way.
func commitMarksCoordinatorUnknown(err string) bool {
	switch err {
	case "COORDINATOR_NOT_AVAILABLE", "NOT_COORDINATOR", "REQUEST_TIMED_OUT":
		return true
	}
	return false
}

// leave is KafkaConsumer.close: commit (auto-commit) then LeaveGroup.
func (m *member) leave() {
	if m.k.conf.autoCommit && (m.state == mStable || m.manual) {
		m.sendCommit(nil)
	}
	m.sendLeave()
}

func sortParts(ps []*Partition) {
	sort.Slice(ps, func(i, j int) bool { return partLess(ps[i], ps[j]) })
}

func partNames(ps []*Partition) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	return strings.Join(names, ",")
}
