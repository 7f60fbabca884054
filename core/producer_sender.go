package core

import (
	"fmt"
	"slices"
	"sort"
)

// drain is the Sender loop: it turns ready batches into Produce requests,
// one per leader broker, while that broker has fewer than max.in.flight
// requests outstanding, and then expires batches (Sender.sendProducerData
// drains before it expires, so a batch sent in this pass may expire as it
// goes out, 2.1+). While an expiry frees something, it goes again.
func (p *Producer) drain() {
	p.resolveWaiting()
	if p.conf.idempotent && p.pid < 0 {
		p.initPID()
		return
	}
	for _, q := range p.qorder {
		if q.bump && q.inflt == 0 {
			p.bumpFor(q)
		}
	}
	for {
		p.sendReady()
		if !p.expire() {
			return
		}
	}
}

// sendReady sends every batch that is ready to a broker that can take it.
func (p *Producer) sendReady() {
	for {
		byBroker := map[int][]*pbatch{}
		var order []int
		needMeta := false
		for _, q := range p.qorder {
			b := p.nextBatch(q)
			if b == nil {
				continue
			}
			leader := p.meta.leader(q.p)
			if leader < 0 {
				needMeta = needMeta || !p.meta.lostTopic(q.p)
				continue
			}
			if byBroker[leader] == nil && (!p.conns.ready(leader) || p.conf.acks != 0 && p.inflt[leader] >= p.conf.maxInFlight) {
				continue
			}
			if byBroker[leader] == nil {
				order = append(order, leader)
			}
			byBroker[leader] = append(byBroker[leader], b)
		}
		if needMeta {
			p.meta.refresh()
		}
		if len(order) == 0 {
			return
		}
		for _, id := range order {
			p.sendRequest(id, byBroker[id])
		}
	}
}

// nextBatch returns the partition's next batch to send, or nil: the first
// unsent batch once it is ready (linger passed, full, or not the last) and
// its retry backoff is over. With max.in.flight=1 a partition with a batch
// in flight is muted; an idempotent producer resends a retried batch only
// when nothing else of that partition is in flight, so sequences stay in
// order.
func (p *Producer) nextBatch(q *pqueue) *pbatch {
	var b *pbatch
	for _, x := range q.batches {
		if !x.inflight {
			b = x
			break
		}
	}
	if b == nil || len(b.recs) == 0 {
		return nil
	}
	now := p.c.now
	switch {
	case b.retryAt > now && !p.newLeader(b):
		return nil
	case p.conf.maxInFlight == 1 && q.inflt > 0:
		return nil
	case p.conf.idempotent && b.attempts > 0 && q.inflt > 0:
		return nil
	case q.bump:
		return nil // an epoch bump is due (bumpFor)
	case p.conf.idempotent && b.seq < 0 && q.unresolved >= 0:
		return nil // no new batches while a sequence is unresolved (shouldStopDrainBatchesForPartition)
	case p.conf.idempotent && b.seq < 0 && q.epoch != p.pepoch && q.numbered():
		// Nor while batches of an older epoch are in flight or waiting for
		// a retry: sequence 0 of the new epoch could overtake them.
		return nil
	case !b.closed && b != q.last():
	case !b.closed && b.bytes < p.conf.batchSize && now < b.created+p.conf.lingerMs:
		return nil
	}
	return b
}

// sendRequest sends one Produce request to broker id.
func (p *Producer) sendRequest(id int, batches []*pbatch) {
	c := p.c
	br := c.Broker(id)
	p.reqSeq++
	rq := &preq{id: p.reqSeq, broker: id, batches: batches}
	req := &produceReq{producer: p.Name, acks: p.conf.acks, timeout: p.conf.requestTimeout, pid: -1, parts: make([]producePart, len(batches)), leaderHints: c.preset.kip951}
	if p.conf.idempotent {
		req.pid = p.pid
	}
	for i, b := range batches {
		if cap(b.recs) > 2*len(b.recs) {
			// Sized for a run of records that ended early (see accumulate):
			// the records go into logs that live long, so give back the room.
			b.recs = slices.Clone(b.recs)
		}
		if p.conf.idempotent && b.seq < 0 {
			// The sequence is set as the batch is drained and closed
			// (RecordAccumulator.drain), not when it is only next in line:
			// a batch held back by max.in.flight can still grow, and its
			// records past the numbered ones would reuse the next batch's
			// sequences (OUT_OF_ORDER_SEQUENCE_NUMBER, the record failed).
			q := b.q
			if q.epoch != p.pepoch {
				// The producer bumped its epoch for another partition;
				// this one starts over at sequence 0 in the new epoch once
				// its batches of the old one are done (nextBatch;
				// TransactionManager.maybeUpdateProducerIdAndEpoch).
				q.epoch, q.nextSeq, q.acked = p.pepoch, 0, -1
			}
			b.seq, b.epoch = q.nextSeq, q.epoch
			q.nextSeq += int32(len(b.recs))
		}
		b.closed, b.inflight = true, true
		b.sentEpoch = -1
		if e, ok := p.meta.epochs[b.q.p]; ok {
			b.sentEpoch = e
		}
		b.q.inflt++
		req.parts[i] = producePart{p: b.q.p, records: b.recs, baseSeq: b.seq, pepoch: b.epoch}
		if !c.quiet {
			c.emit(Event{Type: EvProduceSend, Producer: p.Name, Broker: id, Partition: b.q.p.Name, Records: b.recs, Attempt: b.attempts + 1})
		}
	}
	if p.conf.acks == 0 {
		// acks=0: the send completes as soon as the request is written;
		// the offset is unknown (-1).
		// A write the dead broker's host refuses (the producer had not yet
		// seen its connection reset) closes the connection too.
		c.net.send(p.node, br.node, "Produce", func() { br.handleProduce(req, nil) }, func() {
			if s := p.conns.get(id); !s.down {
				p.disconnect(id, []int{}, "NETWORK_EXCEPTION", "connection refused")
			}
		})
		for _, b := range batches {
			p.complete(b, -1)
		}
		return
	}
	p.reqs[rq.id] = rq
	p.inflt[id]++
	c.net.send(p.node, br.node, "Produce", func() {
		br.handleProduce(req, func(res []produceResult) {
			c.net.send(br.node, p.node, "ProduceResponse", func() { p.onResponse(rq.id, res) }, nil)
		})
	}, func() { p.disconnect(id, nil, "NETWORK_EXCEPTION", "connection refused") })
	c.after(p.conf.requestTimeout, func() {
		if p.reqs[rq.id] != nil {
			// NetworkClient: a request timeout closes the connection, failing
			// everything in flight to that broker.
			p.disconnect(id, nil, "REQUEST_TIMED_OUT", "request timed out")
		}
	})
}

// onResponse handles a Produce response.
func (p *Producer) onResponse(id int, res []produceResult) {
	rq := p.reqs[id]
	if rq == nil {
		return // already failed by a disconnect
	}
	p.finishReq(rq)
	for i, b := range rq.batches {
		if b.expired {
			if res[i].err == "" {
				p.ackedSeq(b) // the sequence bookkeeping still sees it (handleCompletedBatch)
			} else {
				p.expiredFailed(b)
			}
			continue // its records already failed (expire)
		}
		if res[i].err == "" {
			p.complete(b, res[i].offset)
		} else {
			p.failBatch(b, res[i].err, p.takeLeader(b.q.p, res[i].leader))
		}
	}
	p.drain()
}

// takeLeader is Sender.handleProduceResponse's KIP-951 step: a newer
// leader the broker named is taken into the producer's metadata
// (Metadata.updatePartitionLeadership), so the retry goes to it at once,
// without its backoff (newLeader). It returns what the event log says of
// it, "" when there was none to take.
func (p *Producer) takeLeader(part *Partition, h *LeaderHint) string {
	if !p.meta.takeLeader(part, h) {
		return ""
	}
	return fmt.Sprintf("the broker named broker %d the leader (epoch %d, KIP-951): the retry goes there at once", h.LeaderID, h.LeaderEpoch)
}

func (p *Producer) finishReq(rq *preq) {
	delete(p.reqs, rq.id)
	p.inflt[rq.broker]--
	for _, b := range rq.batches {
		b.inflight = false
		b.q.inflt--
	}
}

// disconnect closes the connection to broker id and fails the requests
// in flight on it (only those in ids, if given).
func (p *Producer) disconnect(id int, ids []int, err, why string) {
	if ids == nil {
		ids = p.inflightTo(id)
	}
	p.conns.failed(id, why)
	for _, rid := range ids {
		rq := p.reqs[rid]
		if rq == nil {
			continue
		}
		p.finishReq(rq)
		for _, b := range rq.batches {
			if b.expired {
				p.expiredFailed(b)
				continue
			}
			p.failBatch(b, err, "")
		}
	}
	p.meta.refresh()
	p.drain()
}

// inflightTo lists the requests in flight to broker id, oldest first.
func (p *Producer) inflightTo(id int) []int {
	var ids []int
	for rid, rq := range p.reqs {
		if rq.broker == id {
			ids = append(ids, rid)
		}
	}
	sort.Ints(ids)
	return ids
}

// brokerReset: broker id's process died and the OS reset its connections;
// the producer hears of it one network hop later, whether or not a request
// is in flight: NetworkClient sees the socket close, marks the node
// disconnected (failing what was in flight with NETWORK_EXCEPTION) and
// asks for metadata, and the Sender then skips the node until a reconnect
// succeeds (Sender.sendProducerData: !client.ready(node) removes it from
// the ready nodes). So an acks=0 record is not written into a dead
// connection: it waits in the accumulator for a leader the producer can
// reach, or expires. Only a connection the producer has (it has sent to
// that broker, see conns.ready) is reset.
func (p *Producer) brokerReset(id int) {
	ids := p.inflightTo(id)
	s, open := p.conns.state[id]
	if len(ids) == 0 && (!open || s.down) {
		return
	}
	if ids == nil {
		ids = []int{}
	}
	p.c.after(p.c.bc.latency, func() {
		if len(ids) == 0 && s.down {
			return // a refused send found out first
		}
		p.disconnect(id, ids, "NETWORK_EXCEPTION", "connection reset")
	})
}

// complete acks a batch at base offset (or -1).
func (p *Producer) complete(b *pbatch, base int64) {
	c := p.c
	p.remove(b)
	for i, id := range b.ids {
		off := int64(-1)
		if base >= 0 {
			off = base + int64(i)
		}
		c.history.ack(id, off, c.now)
	}
	p.pending -= len(b.recs)
	p.ackedSeq(b)
	if !c.quiet {
		c.emit(Event{Type: EvAck, Producer: p.Name, Partition: b.q.p.Name, Offset: base, Records: b.recs, Fate: FateAcked})
	}
}

// ackedSeq records that batch b's sequences were acknowledged.
func (p *Producer) ackedSeq(b *pbatch) {
	if b.seq >= 0 && b.epoch == b.q.epoch {
		b.q.acked = max(b.q.acked, b.seq+int32(len(b.recs))-1)
		p.resolve(b.q)
	}
}

func (p *Producer) remove(b *pbatch) {
	q := b.q
	for i, x := range q.batches {
		if x == b {
			q.batches = append(q.batches[:i], q.batches[i+1:]...)
			return
		}
	}
}

// retriable lists the errors the producer retries.
var retriable = map[string]bool{
	"NOT_LEADER_OR_FOLLOWER": true, "LEADER_NOT_AVAILABLE": true, "UNKNOWN_TOPIC_OR_PARTITION": true,
	"NOT_ENOUGH_REPLICAS": true, "NOT_ENOUGH_REPLICAS_AFTER_APPEND": true, "REQUEST_TIMED_OUT": true,
	"NETWORK_EXCEPTION": true, "UNKNOWN_LEADER_EPOCH": true, "FENCED_LEADER_EPOCH": true, "KAFKA_STORAGE_ERROR": true,
}

// failBatch retries a failed batch (Sender.canRetry: attempts left and
// delivery.timeout.ms not passed) by putting it back at the front of its
// queue, or fails its records. detail, if any, goes with the event.
func (p *Producer) failBatch(b *pbatch, err, detail string) {
	c := p.c
	// An out-of-order sequence is retried while an earlier batch is being
	// retried, or when the batch is not the one after the last acknowledged
	// (TransactionManager.canRetry): then it is usually in the log already,
	// fallen out of the broker's last five batches, and it expires rather
	// than leaving a gap. Not while a sequence is unresolved (canRetry).
	retry := retriable[err] || err == "OUT_OF_ORDER_SEQUENCE_NUMBER" && b.q.unresolved < 0 && (p.earlierUnfinished(b) || b.epoch == b.q.epoch && b.q.acked+1 != b.seq)
	// 2.5+ retries the others too: the broker has a gap before the batch
	// (it never got the batches before it, or a deposed leader answered
	// that never had them), so the producer bumps its epoch and starts
	// this partition over at sequence 0 (requestEpochBumpForPartition).
	// 0.11-2.4 failed the batch, and its partition's next ones after it.
	gap := !retry && err == "OUT_OF_ORDER_SEQUENCE_NUMBER" && p.conf.idempotent && c.preset.kip360
	retry = retry || gap
	if retry && (int64(b.attempts) >= p.conf.retries || p.conf.deliveryMs > 0 && c.now >= b.created+p.conf.deliveryMs) {
		retry = false
	}
	fate := FateFailed
	if retry {
		fate = ""
	}
	c.emit(Event{Type: EvProduceError, Producer: p.Name, Partition: b.q.p.Name, Records: b.recs, Error: err, Retry: retry, Attempt: b.attempts + 1, Fate: fate, Detail: detail})
	if err == "NOT_LEADER_OR_FOLLOWER" || err == "UNKNOWN_TOPIC_OR_PARTITION" || err == "LEADER_NOT_AVAILABLE" || err == "NETWORK_EXCEPTION" || err == "FENCED_LEADER_EPOCH" {
		p.meta.refresh()
	}
	if retry {
		if gap {
			b.q.bump = true
		}
		b.attempts++
		b.lastAttempt, b.lastAppend = max(b.lastAppend, c.now), max(b.lastAppend, c.now) // ProducerBatch.reenqueued
		wait := p.retryBackoff(b)
		b.retryAt = c.now + wait
		p.requeue(b)
		c.after(wait, p.drain)
		return
	}
	p.fail(b, err)
}

// requeue puts a retried batch back: first in line (Kafka's
// deque.addFirst), or, for an idempotent producer, in the order the
// batches were made, which is their sequence order (RecordAccumulator
// .insertInSequenceOrder). Order, not sequence: after an epoch bump the
// batches waiting for a retry have no sequence yet, and must keep theirs.
func (p *Producer) requeue(b *pbatch) {
	q := b.q
	p.remove(b)
	at := 0
	if p.conf.idempotent {
		for at < len(q.batches) && q.batches[at].order < b.order {
			at++
		}
	}
	q.batches = append(q.batches, nil)
	copy(q.batches[at+1:], q.batches[at:])
	q.batches[at] = b
}
