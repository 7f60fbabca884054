package core

import "fmt"

// errRebalancing is the exception 2.5+ commitSync throws, without
// sending anything, for a member that is joining or syncing
// (ConsumerCoordinator.sendOffsetCommitRequest, KAFKA-8421).
const errRebalancing = "RebalanceInProgressException: Offset commit cannot be completed since the consumer is undergoing a rebalance for auto partition assignment. You can try completing the rebalance by calling poll() and then retry the operation."

// errKickedOut is the exception commitSync throws, without sending
// anything, for a member whose generation was reset, or that is
// rebalancing before 2.5 (ConsumerCoordinator.sendOffsetCommitRequest).
const errKickedOut = "CommitFailedException: Offset commit cannot be completed since the consumer is not part of an active group for auto partition assignment; it is likely that the consumer was kicked out of the group."

// consumed lists the owned partitions that have a position, in order:
// what commitSync() commits (SubscriptionState.allConsumed).
func (m *member) consumed() []*Partition {
	var out []*Partition
	for _, p := range m.owned {
		if _, ok := m.k.next[p]; ok {
			out = append(out, p)
		}
	}
	return out
}

// notInGroup is the check ConsumerCoordinator.sendOffsetCommitRequest
// makes before it builds an OffsetCommit for a subscribed consumer:
// generationIfStable is null unless the member is Stable, and the commit
// fails locally, not retriable. A member that is joining or syncing
// (rebalanceInProgress: PREPARING_REBALANCE, COMPLETING_REBALANCE) gets
// RebalanceInProgressException from 2.5 (KAFKA-8421: not fatal, poll and
// retry), CommitFailedException before; it still has something to commit
// when it keeps its partitions through the rebalance (cooperative, or
// eager before its onJoinPrepare revoked them), and so does one whose
// JoinGroup or SyncGroup failed and that joins again (unjoined, its
// generation kept). A member whose generation
// was reset (the heartbeat thread's poll timeout, or an UNKNOWN_MEMBER_ID
// / ILLEGAL_GENERATION; member.reset) still owns its partitions until its
// next poll, so it has offsets to commit, and gets CommitFailedException
// (0.11 to 4.0 alike). "" if the commit may be sent. (With no owned
// partition that has a position there is nothing to commit: sendCommit
// and commitSync succeed without a request, before this check, as
// commitOffsetsSync does.)
func (m *member) notInGroup() string {
	switch {
	case m.manual || m.state == mStable || len(m.consumed()) == 0:
		return "" // a manually assigned consumer commits with no generation
	case m.state == mJoining || m.state == mSyncing || m.generation >= 0:
		// Unjoined with a generation: a JoinGroup or SyncGroup failed and
		// the member is about to join again, which Kafka's state
		// (PREPARING_REBALANCE, COMPLETING_REBALANCE) counts as a
		// rebalance in progress.
		if m.k.c.preset.commitRebalanceInProgress {
			return errRebalancing
		}
		return errKickedOut
	}
	return errKickedOut
}

// commitTimeout is how long commitSync() waits: default.api.timeout.ms
// (KafkaConsumer.commitSync() is commitSync(Duration.ofMillis(
// defaultApiTimeoutMs)), 2.0+, KIP-266; ClassicKafkaConsumer in 3.9 and
// 4.0 alike), 60 s, where request.timeout.ms (30 s) only bounds each
// OffsetCommit. 0.11's commitSync() waited for ever (commitOffsetsSync
// with Long.MAX_VALUE): its preset sets the knob to the longest a command
// may wait.
func (m *member) commitTimeout() int64 { return m.k.conf.apiTimeout }

// resetOnError resets the membership after a SyncGroup or Heartbeat
// answered UNKNOWN_MEMBER_ID or ILLEGAL_GENERATION
// (AbstractCoordinator.resetStateOnResponseError). From 3.2 an
// ILLEGAL_GENERATION keeps the member id, "since the member ID might
// still be valid" (KAFKA-13419: shouldResetMemberId is error !=
// ILLEGAL_GENERATION in SyncGroupResponseHandler and
// HeartbeatResponseHandler), so the rejoin is the same member's and the
// coordinator does not wait for the old id to leave; before, the
// consumer took a new member id.
func (m *member) resetOnError(err string) {
	if err != "ILLEGAL_GENERATION" || !m.c().preset.kip13419 {
		m.reset(err)
		return
	}
	m.info(fmt.Sprintf("%s must rejoin: %s (keeps member id %s)", m.k.Name, err, m.id), err)
	m.resetGeneration(false)
	m.lostIfPolling()
}

// errStaleGeneration is what 2.6+ commitSync throws when its commit was
// answered UNKNOWN_MEMBER_ID or ILLEGAL_GENERATION after the member had
// already joined a newer generation and is rebalancing: a
// RebalanceInProgressException, not fatal (OffsetCommitResponseHandler,
// !generationUnchanged() && state == PREPARING_REBALANCE).
const errStaleGeneration = "RebalanceInProgressException: Offset commit cannot be completed since the consumer member's generation is already stale, meaning it has already participated another rebalance and got a new generation. You can try completing the rebalance by calling poll() and then retry commit again"

// errGroupRebalancing is what 2.5+ commitSync throws for a commit the
// coordinator answered REBALANCE_IN_PROGRESS (OffsetCommitResponseHandler;
// 0.11 threw CommitFailedException).
const errGroupRebalancing = "RebalanceInProgressException: Offset commit cannot be completed since the consumer group is executing a rebalance at the moment. You can try completing the rebalance by calling poll() and then retry commit again"

// onCommitError is what OffsetCommitResponseHandler does to the
// membership for a commit sent with generation sent and answered err
// (commitSync and auto-commit alike): REBALANCE_IN_PROGRESS requests a
// rejoin but keeps the generation (the 2.8+ presets; 0.11 resets it, as
// for the next two); UNKNOWN_MEMBER_ID and ILLEGAL_GENERATION reset the
// generation (and, but for ILLEGAL_GENERATION from 3.2, the member id:
// resetOnError) so the next poll rejoins, unless, from 2.6, the member
// has joined a newer generation and is rebalancing, which the stale
// answer must not undo (0.11 resets whatever generation it has then).
// It reports errStaleGeneration for that case, err otherwise.
func (m *member) onCommitError(err string, sent int) string {
	if m.manual {
		return err // no membership to reset
	}
	switch err {
	case "REBALANCE_IN_PROGRESS":
		if !m.c().preset.commitRebalanceInProgress {
			m.reset(err)
			return err
		}
		m.requestRejoin("offset commit found a rebalance in progress", err)
	case "UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION":
		if m.c().preset.commitRebalanceInProgress && m.generation != sent && m.state == mJoining {
			return errStaleGeneration
		}
		if m.generation < 0 {
			return err // reset already (a heartbeat said so first), maybe joining again
		}
		m.resetOnError(err)
		m.ensure()
	}
	return err
}
