package core

// This file is the 3.3+ keyless partitioner, BuiltInPartitioner (KIP-794),
// with adaptive partitioning on (partitioner.adaptive.partitioning.enable,
// the default) and partitioner.availability.timeout.ms at its default 0.

// uniformPartition returns the topic's sticky partition, choosing one
// (nextUniform) if there is none yet (peekCurrentPartitionInfo).
func (p *Producer) uniformPartition(d *dest) int {
	st := d.st
	if st.sticky < 0 || st.sticky >= d.n {
		st.sticky, st.stickyBytes = p.nextUniform(d), 0
	}
	return st.sticky
}

// uniformAppended is BuiltInPartitioner.updatePartitionInfo, run after a
// keyless record of size bytes went into the sticky partition part: once
// batch.size bytes went there the partition switches, if the partition's
// last batch is full (RecordAccumulator.allBatchesFull, so that a switch
// does not leave a small batch behind), and at twice batch.size in any case.
func (p *Producer) uniformAppended(d *dest, part, size int) {
	st := d.st
	if st.sticky != part {
		return
	}
	st.stickyBytes += size
	bs := max(p.conf.batchSize, 1)
	if st.stickyBytes >= bs && p.allBatchesFull(d.t.parts[part]) || st.stickyBytes >= 2*bs {
		st.sticky, st.stickyBytes = p.nextUniform(d), 0
	}
}

// allBatchesFull: the partition's last batch (if any) takes no more records.
func (p *Producer) allBatchesFull(part *Partition) bool {
	q := p.queues[part]
	if q == nil {
		return true
	}
	b := q.last()
	return b == nil || b.closed || b.inflight || b.bytes >= p.conf.batchSize
}

// nextUniform is BuiltInPartitioner.nextPartition: a random partition with a
// leader, which may be the current one again. Without load stats the pick
// is uniform (over all partitions if none has a leader). Load stats exist
// once the producer has had a batch queue for every partition of the topic
// (RecordAccumulator.partitionReady), the topic has two or more partitions,
// and the queues of the partitions with a leader are not all the same
// length; then a partition is picked with weight maxQueue+1-queue (queue:
// its batches not yet sent), so shorter queues, on faster brokers, get
// more (updatePartitionLoadStats). Kafka computes the stats in each Sender
// pass; here they are the queues at the moment of the switch.
func (p *Producer) nextUniform(d *dest) int {
	t, n := d.t, min(d.n, len(d.t.parts))
	ids, sizes := p.loadStats(t, n)
	if ids == nil {
		avail := p.available(t, n)
		if len(avail) == 0 {
			return p.c.rng.Intn(n)
		}
		return avail[p.c.rng.Intn(len(avail))]
	}
	top := 0
	for _, s := range sizes {
		top = max(top, s)
	}
	total := 0
	for i, s := range sizes {
		total += top + 1 - s
		sizes[i] = total // the cumulative frequency table
	}
	r := p.c.rng.Intn(total)
	for i, cum := range sizes {
		if r < cum {
			return ids[i]
		}
	}
	return ids[len(ids)-1]
}

// loadStats returns the partitions with a leader and their queue sizes, or
// nil when Kafka would have no load stats (see nextUniform).
func (p *Producer) loadStats(t *Topic, n int) (ids, sizes []int) {
	if n < 2 {
		return nil, nil
	}
	all := true
	for i := 0; i < n; i++ {
		q := p.queues[t.parts[i]]
		if q == nil {
			return nil, nil // no batch for every partition yet: uniform
		}
		if p.meta.leader(t.parts[i]) < 0 {
			all = false
			continue
		}
		size := 0
		for _, b := range q.batches {
			if !b.inflight {
				size++
			}
		}
		ids, sizes = append(ids, i), append(sizes, size)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	same := true
	for _, s := range sizes {
		same = same && s == sizes[0]
	}
	if same && all {
		return nil, nil
	}
	return ids, sizes
}
