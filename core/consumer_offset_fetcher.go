package core

import (
	"fmt"
)

// setPosition starts consuming p at off.
func (k *Consumer) setPosition(p *Partition, off int64, why string) {
	k.pos[p], k.next[p] = off, off
	k.session++
	k.c.emit(Event{Type: EvConsumerInfo, Consumer: k.Name, Group: k.Group, Partition: p.Name, Offset: off, Detail: fmt.Sprintf("%s starts %s at %s", k.Name, p.Name, why)})
}

// initPosition finds where to start in p: the committed offset (groups),
// else auto.offset.reset via ListOffsets.
func (k *Consumer) initPosition(p *Partition) {
	if k.member != nil && k.member.fetchCommitted(p) {
		return
	}
	k.resetPosition(p)
}

// resetPosition applies auto.offset.reset by asking the leader for its log
// start (earliest) or high watermark (latest) with ListOffsets.
func (k *Consumer) resetPosition(p *Partition) {
	c := k.c
	if k.conf.reset == "none" {
		// SubscriptionState.resetInitializingPositions: no reset policy.
		k.fail(p, "NoOffsetForPartitionException", "Undefined offset with no reset policy for partitions: ["+p.Name+"]")
		return
	}
	l := k.meta.leader(p)
	b := c.Broker(l)
	if b == nil {
		k.meta.refresh()
		return
	}
	k.resetting[p] = true
	dropped := k.dropped[p]
	retry := func() {
		delete(k.resetting, p)
		k.after(k.conf.backoff, k.pump)
	}
	k.send(b, "ListOffsets", func() {
		ts := listLatest
		if k.conf.reset == "earliest" {
			ts = listEarliest
		}
		res := b.handleListOffsets(listOffsetsReq{parts: []listOffsetsPart{{p: p, timestamp: ts}}})[0]
		off, errName := res.offset, res.err
		k.reply(b, "ListOffsetsResponse", func() {
			if k.dropped[p] != dropped {
				// SubscriptionState.maybeSeekUnvalidated: the partition
				// left the assignment since (revoked or lost); assigned
				// again, it is initializing, not awaiting this reset,
				// and starts from its committed offset.
				return
			}
			if errName != "" || !k.owns(p) {
				if errName != "" {
					k.meta.refresh()
				}
				retry()
				return
			}
			delete(k.resetting, p)
			if _, known := k.pos[p]; known {
				// SubscriptionState.maybeSeekUnvalidated: "Skipping reset
				// ... since reset is no longer needed".
				return
			}
			k.setPosition(p, off, fmt.Sprintf("offset %d (auto.offset.reset=%s)", off, k.conf.reset))
			k.pump()
		})
	}, retry)
}

// fail is poll throwing (auto.offset.reset=none): p has no committed
// offset (NoOffsetForPartitionException), or its position is out of range
// (OffsetOutOfRangeException). Kafka's consumer throws from every poll
// while that holds, before it returns any record, and leaves the decision
// to the application. So p is neither initialized nor fetched again until
// the application polls again: a poll=manual poll fails with the
// exception, and the next poll asks for the committed offset (or fetches
// the position) once more; a poll=auto application's poll loop ends with
// the exception and it closes the consumer (a try-with-resources loop:
// KafkaConsumer.close commits and leaves the group). One event per
// failure, never a loop of them.
func (k *Consumer) fail(p *Partition, exception, msg string) {
	if k.failed[p] != "" {
		return
	}
	k.failed[p] = exception
	if k.pollErr == "" {
		k.pollErr = exception + ": " + msg
	}
	then := "the next poll throws it"
	if !k.conf.manual {
		then = "the application's poll loop ends and it closes the consumer"
	}
	k.c.emit(Event{Type: EvConsumerInfo, Consumer: k.Name, Group: k.Group, Partition: p.Name, Error: exception,
		Detail: fmt.Sprintf("%s %s: auto.offset.reset=none: %s (%s): %s", k.Name, p.Name, msg, exception, then)})
	if !k.conf.manual {
		name := k.Name
		k.after(0, func() { _ = k.c.closeConsumer(name, false) })
	}
}

// retryFailed is the start of a poll: the partitions it failed on are
// tried again (OffsetFetch for the committed offset, or a fetch at the
// position), and the poll throws if they fail again.
func (k *Consumer) retryFailed() {
	k.pollErr = ""
	clear(k.failed)
}
