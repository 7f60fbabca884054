package core

import (
	"fmt"
)

// earlierUnfinished: an out-of-order sequence is retriable when a batch
// with a lower sequence on the same partition is still being retried.
func (p *Producer) earlierUnfinished(b *pbatch) bool {
	for _, x := range b.q.batches {
		if x != b && x.seq >= 0 && x.seq < b.seq && x.epoch == b.epoch {
			return true
		}
	}
	return false
}

// fail ends a batch with an error. For an idempotent producer, a failed
// batch that was sent may or may not be in the log: its sequence is
// unresolved (see resolve).
func (p *Producer) fail(b *pbatch, err string) {
	p.remove(b)
	for _, id := range b.ids {
		p.c.history.fail(id, err)
	}
	p.pending -= len(b.recs)
	if p.conf.idempotent && b.seq >= 0 && b.epoch == b.q.epoch {
		b.q.unresolved = max(b.q.unresolved, b.seq+int32(len(b.recs))-1)
		p.resolve(b.q)
	}
}

// resolve settles a partition's unresolved sequence once none of its
// numbered batches is still in flight or waiting to be retried
// (TransactionManager.maybeResolveSequences): if a later batch was
// acknowledged, the broker had the failed one (it takes sequences only in
// order) and nothing needs doing; otherwise there may be a gap, and the
// producer bumps its epoch and this partition starts over at sequence 0
// (KIP-360). Bumping at once would renumber batches that are in the log
// already with their answers lost, and they would be written twice. Only
// this partition's sequences are rewritten (partitionsToRewriteSequences):
// the other partitions keep theirs, and their batches already sent keep
// the old epoch until they are done (see sendRequest, nextBatch).
func (p *Producer) resolve(q *pqueue) {
	if q.unresolved < 0 {
		return
	}
	if q.acked >= q.unresolved {
		q.unresolved = -1
		return
	}
	if q.numbered() {
		return // wait for it
	}
	p.pepoch++
	q.epoch, q.nextSeq, q.acked, q.unresolved = p.pepoch, 0, -1, -1
}

// bumpFor bumps the producer epoch for partition q, which had a gap
// (Kafka's bumpIdempotentProducerEpoch with q in
// partitionsToRewriteSequences): its batches, none of them in flight,
// are renumbered from sequence 0 in the new epoch as they are sent, in
// the order they were made; its unresolved sequence, if any, is settled.
func (p *Producer) bumpFor(q *pqueue) {
	p.pepoch++
	q.epoch, q.nextSeq, q.acked, q.unresolved, q.bump = p.pepoch, 0, -1, -1, false
	for _, x := range q.batches {
		x.seq = -1
	}
}

// initPID asks a broker for a producer id (InitProducerId).
func (p *Producer) initPID() {
	if p.pidReq {
		return
	}
	c := p.c
	b := c.brokers[c.rng.Intn(len(c.brokers))]
	p.pidReq = true
	done := false
	c.net.send(p.node, b.node, "InitProducerId", func() {
		res := b.handleInitProducerId(initProducerIDReq{})
		c.net.send(b.node, p.node, "InitProducerIdResponse", func() {
			if done {
				return
			}
			done = true
			p.pidReq = false
			p.pid, p.pepoch = res.pid, res.pepoch
			c.emit(Event{Type: EvInfo, Producer: p.Name, Detail: fmt.Sprintf("%s got producer id %d", p.Name, res.pid)})
			p.drain()
		}, nil)
	}, nil)
	c.after(p.conf.requestTimeout, func() {
		if !done {
			done = true
			p.pidReq = false
			p.drain()
		}
	})
}
