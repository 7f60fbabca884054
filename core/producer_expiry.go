package core

import "fmt"

// expire fails the batches that waited too long, by the version's rule
// (preset.batchExpiry), with the Java client's TimeoutException message,
// sets a timer for the next batch due (the Sender's poll wakes for it,
// RecordAccumulator.nextExpiryTimeMs, 2.1+), and reports whether it failed
// any.
//
// Each partition's batches are looked at in queue order and the first one
// that has not expired stops the look (expiredBatches: "stop at the first
// batch that has not expired"). From 2.1 batches in flight expire too
// (Sender.getExpiredInflightBatches): their records fail at once, the
// request stays on the wire and its answer is ignored, though the broker
// may well have written them. Before 2.1 a batch in flight waits for its
// request. The error is named TIMEOUT (the client's own TimeoutException;
// Kafka's Errors enum has no code for an expiry) with Kafka's message as
// its detail.
func (p *Producer) expire() bool {
	rule := p.c.preset.batchExpiry
	if rule == "none" || rule == "delivery" && p.conf.deliveryMs <= 0 {
		return false // 0.8.2: a batch waits for a leader forever (KAFKA-1788)
	}
	next, any := int64(-1), false
	due := func(at int64) {
		if next < 0 || at < next {
			next = at
		}
	}
	for _, q := range p.qorder {
		if rule == "request" && p.conf.maxInFlight == 1 && q.inflt > 0 {
			// 0.10+: a muted partition (max.in.flight=1 and a batch in
			// flight) is skipped, so that a later batch does not expire
			// while an earlier one is still being sent (KAFKA-3388).
			continue
		}
		// The batches sent and those waiting are two lists in Kafka, each
		// looked at until its first batch that has not expired.
		queued, sent := true, rule == "delivery"
		// q.batches itself until the first expiry: failing a batch changes
		// the queue, so the look goes on over a copy from there.
		bs, copied := q.batches, false
		for i := 0; i < len(bs) && (queued || sent); i++ {
			b := bs[i]
			if len(b.recs) == 0 || b.inflight && !sent || !b.inflight && !queued {
				continue
			}
			at, _ := p.expiry(q, b, rule, false)
			if p.c.now < at {
				due(at)
				if b.inflight {
					sent = false
				} else {
					queued = false
				}
				continue
			}
			if !copied {
				bs, copied = append([]*pbatch(nil), bs...), true
			}
			any = true
			_, why := p.expiry(q, b, rule, true)
			attempt := b.attempts // sends so far
			if b.inflight {
				attempt++
			}
			p.c.emit(Event{Type: EvProduceError, Producer: p.Name, Partition: q.p.Name, Records: b.recs, Error: "TIMEOUT", Attempt: attempt, Fate: FateFailed, Detail: why})
			b.expired = b.inflight
			p.failExpired(b)
		}
	}
	p.wakeAt(next)
	return any
}

// failExpired fails an expired batch's records. Its sequence, if it was
// being retried, is unresolved (Sender.sendProducerData:
// markSequenceUnresolved when expiredBatch.inRetry()); a batch that expired
// on its first attempt is not (handleFailedBatch with adjustSequenceNumbers
// false).
func (p *Producer) failExpired(b *pbatch) {
	if b.attempts > 0 {
		p.fail(b, "TIMEOUT")
		return
	}
	p.remove(b)
	for _, id := range b.ids {
		p.c.history.fail(id, "TIMEOUT")
	}
	p.pending -= len(b.recs)
}

// expiry returns when batch b of q expires and, with why (asked only once
// it has: the Sender looks at every waiting batch on each run), the
// TimeoutException message Kafka gives.
//
// 2.1+ (KIP-91, ProducerBatch.hasReachedDeliveryTimeout): delivery.timeout.ms
// after the batch was created ("Expiring N record(s) for t-0:X ms has
// passed since batch creation", Sender.sendProducerData@2.1..4.0).
//
// 0.9-2.0 (ProducerBatch.maybeExpire@0.11.0; RecordBatch.maybeExpire
// 0.10.x): a batch not being retried expires request.timeout.ms after its
// last append if it is full (or not the last of its queue), and in any case
// request.timeout.ms after its creation plus linger.ms; a batch being
// retried expires request.timeout.ms after its last attempt plus
// retry.backoff.ms. Every comparison is strict (timeout < waited). The
// leader need not be unknown: KAFKA-2805 (0.9.0.0) dropped that condition,
// though the method's comment still speaks of "metadata not available".
func (p *Producer) expiry(q *pqueue, b *pbatch, rule string, why bool) (int64, string) {
	now := p.c.now
	head := func() string { return fmt.Sprintf("Expiring %d record(s) for %s", len(b.recs), q.p.Name) }
	if rule == "delivery" {
		due := b.created + p.conf.deliveryMs
		if !why {
			return due, ""
		}
		return due, fmt.Sprintf("%s:%d ms has passed since batch creation", head(), now-b.created)
	}
	t := p.conf.requestTimeout
	if b.attempts > 0 {
		// reenqueued: lastAttemptMs = max(lastAppendTime, now)
		due := b.lastAttempt + p.conf.backoff + t + 1
		if !why {
			return due, ""
		}
		return due, fmt.Sprintf("%s: %d ms has passed since last attempt plus backoff time", head(), now-b.lastAttempt-p.conf.backoff)
	}
	full := b != q.last() || b.closed || b.bytes >= p.conf.batchSize
	due, byAppend := b.created+p.conf.lingerMs+t+1, b.lastAppend+t+1
	if full {
		due = min(due, byAppend)
	}
	switch {
	case !why:
		return due, ""
	case full && now >= byAppend: // maybeExpire tests this first
		return due, fmt.Sprintf("%s: %d ms has passed since last append", head(), now-b.lastAppend)
	}
	return due, fmt.Sprintf("%s: %d ms has passed since batch creation plus linger time", head(), now-b.created-p.conf.lingerMs)
}

// wakeAt makes the Sender run at virtual time at (if >= 0), unless a wake-up
// no later than that is already due.
func (p *Producer) wakeAt(at int64) {
	if at < 0 || p.wake > p.c.now && p.wake <= at {
		return
	}
	p.wake = at
	p.c.after(at-p.c.now, func() {
		if p.wake == at {
			p.wake = 0
			p.drain()
		}
	})
}

// expiredFailed: the answer to a batch that expired in flight is an error.
// The batch cannot be retried (its delivery timeout passed), so Kafka fails
// it again with adjustSequenceNumbers (Sender.completeBatch → failBatch →
// TransactionManager.handleFailedBatch): an idempotent producer bumps its
// epoch for the partition, since the broker may lack the batch and later
// sequences would otherwise meet OUT_OF_ORDER_SEQUENCE_NUMBER forever.
func (p *Producer) expiredFailed(b *pbatch) {
	if p.conf.idempotent && p.c.preset.kip360 && b.seq >= 0 && b.epoch == b.q.epoch {
		b.q.bump = true
	}
}
