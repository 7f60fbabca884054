package core

import (
	"github.com/kafkasim/kafkasim/core/log"
)

type precord struct {
	topic     string
	partition int // -1: partitioner decides
	rec       log.Record
	id        int   // history id
	sent      int64 // when send() took it: max.block.ms counts from there
}

// pqueue is the accumulator deque of one partition.
type pqueue struct {
	p       *Partition
	batches []*pbatch // unsent and retrying, in order
	nextSeq int32
	acked   int32 // last sequence acknowledged in the producer's epoch; -1: none
	// unresolved: the last sequence of a batch that failed after it was
	// sent (it may or may not be in the log); -1: none (see resolve)
	unresolved int32
	epoch      int16 // the producer epoch nextSeq and acked count in
	// bump: a batch that was next in line got OUT_OF_ORDER_SEQUENCE_NUMBER;
	// once none of this partition's batches is in flight the producer bumps
	// its epoch and renumbers them from 0 (see bumpFor).
	bump  bool
	inflt int
	made  uint64 // batches created so far (pbatch.order)
}

// pbatch is a producer batch (ProducerBatch).
type pbatch struct {
	q       *pqueue
	order   uint64 // creation order in its queue
	recs    []log.Record
	ids     []int // history ids of recs; nil while they are all -1 (history off)
	bytes   int
	created int64
	// lastAppend and lastAttempt are ProducerBatch's lastAppendTime and
	// lastAttemptMs: the batch's last record, and its last re-enqueue
	// (both also moved by a re-enqueue), for the pre-2.1 expiry.
	lastAppend  int64
	lastAttempt int64
	attempts    int
	// sentEpoch: the partition's leader epoch in the producer's metadata
	// when the batch was last sent (-1: unknown), for KAFKA-15415.
	sentEpoch int32
	retryAt   int64
	seq       int32 // -1 until first sent (idempotent)
	epoch     int16
	inflight  bool
	expired   bool // failed by delivery.timeout.ms while in flight; its answer is ignored
	closed    bool // no more appends (sent once, or full)
}

// numbered: some batch has its sequence (in flight or waiting for a retry).
func (q *pqueue) numbered() bool {
	for _, x := range q.batches {
		if x.seq >= 0 {
			return true
		}
	}
	return false
}

// recordSize approximates a record's bytes in a v2 batch.
// appendSize is how much r grows batch b's estimated size
// (MemoryRecordsBuilder.estimatedBytesWritten): DefaultRecord.sizeInBytes at
// the next offset delta, plus the 61-byte batch header when r starts a new
// batch (b nil). The producer's records have timestamp delta 0.
func appendSize(b *pbatch, r *log.Record) int {
	if b == nil {
		return log.BatchOverhead + log.RecordSize(r, 0)
	}
	return log.RecordSize(r, int32(len(b.recs)))
}

func (q *pqueue) last() *pbatch {
	if len(q.batches) == 0 {
		return nil
	}
	return q.batches[len(q.batches)-1]
}

func (p *Producer) queue(part *Partition) *pqueue {
	q := p.queues[part]
	if q == nil {
		q = &pqueue{p: part, acked: -1, unresolved: -1}
		p.queues[part] = q
		p.qorder = append(p.qorder, q)
	}
	return q
}

// accumulate is RecordAccumulator.append and returns the bytes the record
// added (RecordAppendResult.appendedBytes: with the batch header when it
// started a batch). A batch takes a record while its estimated size (the
// 61-byte header and every record's DefaultRecord.sizeInBytes) plus the
// record stays within batch.size, and always its first record
// (MemoryRecordsBuilder.hasRoomFor). more (>= 1) is how many records of
// the current send, this one included, are expected to follow it into
// the same partition: a new batch makes room for as many of them as
// batch.size allows, instead of growing record by record.
func (p *Producer) accumulate(part *Partition, pr *precord, more int) int {
	q := p.queue(part)
	p.c.history.setPartition(pr.id, part)
	b := q.last()
	size := 0
	if b != nil {
		size = appendSize(b, &pr.rec)
	}
	if b == nil || b.closed || b.attempts > 0 || len(b.recs) > 0 && b.bytes+size > p.conf.batchSize {
		if b != nil {
			b.closed = true
			p.filled = true
		}
		q.made++
		b = &pbatch{q: q, created: p.c.now, seq: -1, order: q.made}
		size = appendSize(nil, &pr.rec)
		if more > 1 {
			b.recs = make([]log.Record, 0, min(more, p.conf.batchSize/size+1))
		}
		q.batches = append(q.batches, b)
		if p.conf.lingerMs > 0 {
			p.c.after(p.conf.lingerMs, p.drain)
		}
	}
	b.recs = append(b.recs, pr.rec)
	if pr.id >= 0 || b.ids != nil {
		for len(b.ids) < len(b.recs)-1 {
			b.ids = append(b.ids, -1)
		}
		b.ids = append(b.ids, pr.id)
	}
	b.bytes += size
	b.lastAppend = p.c.now
	if b.bytes >= p.conf.batchSize {
		p.filled = true // MemoryRecordsBuilder.isFull
	}
	return size
}

// onMetadata places records that were waiting for their topic, then drains.
func (p *Producer) resolveWaiting() {
	w := p.waiting
	p.waiting = nil
	var d dest
	for i := range w {
		if i == 0 || w[i].topic != w[i-1].topic {
			d = p.dest(w[i].topic)
		}
		p.place(&d, &w[i], 1)
	}
}
