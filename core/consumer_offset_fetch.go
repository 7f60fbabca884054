package core

import "fmt"

// The consumer's OffsetFetch (ConsumerCoordinator.fetchCommittedOffsets
// and its OffsetFetchResponseHandler): where a newly assigned partition
// starts, from the group's committed offset.

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
	epoch := m.fetchEpoch
	retry := func() {
		if epoch != m.fetchEpoch {
			return // dropped by forgetOffsetFetches: a newer fetch has them
		}
		for _, p := range parts {
			delete(m.needOffsets, p)
			delete(m.offsetsOut, p)
			delete(k.resetting, p)
		}
		k.after(k.conf.backoff, k.pump)
	}
	b := c.Broker(m.coord)
	if b == nil && m.manual {
		// Wait for the coordinator (ensure sends the fetch once it is
		// found) rather than retry by a timer of its own, which would
		// keep a second fetch loop going.
		for _, p := range parts {
			delete(m.offsetsOut, p)
		}
		m.ensure()
		return
	}
	if b == nil {
		retry()
		return
	}
	answered := false
	k.send(b, "OffsetFetch", func() {
		b.handleOffsetFetch(offsetFetchReq{group: k.Group, parts: parts, requireStable: c.preset.stableOffsets}, func(res offsetFetchResult) {
			k.reply(b, "OffsetFetchResponse", func() {
				if !answered && epoch != m.fetchEpoch {
					answered = true // a pending request of an older generation: not used
				}
				if !answered {
					answered = true
					err := res.err
					if err == "" && len(res.unstable) > 0 {
						// UnstableOffsetCommitException for the whole fetch.
						err = "UNSTABLE_OFFSET_COMMIT"
					}
					m.onOffsetFetch(parts, res.offsets, err, retry)
				}
			})
		})
	}, func() {
		if !answered {
			// A DisconnectException: CoordinatorResponseHandler.onFailure
			// marks the coordinator unknown. Kept, a consumer whose
			// coordinator died asked the dead broker again for ever.
			answered = true
			m.coordinatorLost("connection refused")
			retry()
		}
	})
	// 4.0 holds a require_stable fetch at the coordinator (up to
	// offsets.commit.timeout.ms); one lost with its broker fails after
	// request.timeout.ms (NetworkClient) and the coordinator is looked up
	// again.
	k.after(k.conf.requestTimeout, func() {
		if !answered {
			answered = true
			m.coordinatorLost("OffsetFetch timed out")
			retry()
		}
	})
}

// onOffsetFetch handles an OffsetFetch answer for parts; retry gives them
// back to fetchOffsets.
func (m *member) onOffsetFetch(parts []*Partition, offs map[*Partition]int64, err string, retry func()) {
	k, c := m.k, m.c()
	if err == "UNSTABLE_OFFSET_COMMIT" {
		// UnstableOffsetCommitException: retriable, the coordinator
		// is kept; ask again after retry.backoff.ms.
		c.emit(Event{Type: EvConsumerInfo, Consumer: k.Name, Group: k.Group, Error: err,
			Detail: fmt.Sprintf("%s: a commit of %s is still being written (UNSTABLE_OFFSET_COMMIT): asking again", k.Name, partNames(parts))})
		retry()
		return
	}
	if err != "" {
		// OffsetFetchResponseHandler: COORDINATOR_NOT_AVAILABLE and
		// NOT_COORDINATOR re-discover the coordinator; another group
		// error (COORDINATOR_LOAD_IN_PROGRESS...) is retried with it.
		if err == "COORDINATOR_NOT_AVAILABLE" || err == "NOT_COORDINATOR" {
			m.coordinatorLost(err)
		}
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
}

// forgetOffsetFetches drops the OffsetFetch requests in flight when the
// consumer joins a new generation: ConsumerCoordinator
// .fetchCommittedOffsets clears a pending request whose generation
// (generationIfStable) or partitions are not the new one's
// (PendingCommittedOffsetRequest.sameRequest) and sends another, so the
// new assignment does not wait for an answer that may never come (a
// request lost in a network split waits request.timeout.ms), and the old
// answer is not used. Its failure still marks the coordinator unknown.
func (m *member) forgetOffsetFetches() {
	m.fetchEpoch++
	for p := range m.offsetsOut {
		delete(m.offsetsOut, p)
		delete(m.needOffsets, p)
		delete(m.k.resetting, p)
	}
}
