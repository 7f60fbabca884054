package core

// joinPrepareCommit is onJoinPrepare's commit of the consumed offsets
// before a rebalance (auto-commit on). A retriable failure
// (commitRetriable) is tried again after retry.backoff.ms, the
// coordinator looked up first if it was marked unknown, until the
// rebalance timeout (max.poll.interval.ms) has passed since the first
// attempt: ConsumerCoordinator.onJoinPrepare keeps its joinPrepareTimer
// and returns false while the commit is not done or failed retriably
// (3.3+; before, maybeAutoCommitOffsetsSync with a timer of the
// rebalance timeout, which retries the same way). Anything else, or the
// timer out, and the consumer joins without the commit. Records stay
// held the whole time (holdRecords).
func (m *member) joinPrepareCommit() {
	if m.committing {
		return
	}
	k := m.k
	m.committing = true
	until := k.c.now + k.conf.maxPollMs
	var attempt func()
	done := func() {
		m.committing = false
		m.prepareDone()
		m.ensure()
		k.pump() // fetching resumes (see holdRecords)
	}
	attempt = func() {
		if len(m.consumed()) == 0 || m.state != mStable {
			done() // nothing consumed (commitOffsetsAsync of empty offsets completes locally), or the membership was lost meanwhile
			return
		}
		if m.coord < 0 {
			m.findCoordinator()
			k.after(k.conf.backoff, attempt)
			return
		}
		m.sendCommit(func(err string) {
			if commitRetriable(err) && k.c.now < until {
				k.after(k.conf.backoff, attempt)
				return
			}
			done()
		})
	}
	attempt()
}
