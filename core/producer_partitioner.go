package core

import (
	"github.com/kafkasim/kafkasim/core/hash"
	"slices"
)

// partitionerState is what the partitioner keeps about one topic.
type partitionerState struct {
	rr          int  // round-robin counter
	rrStarted   bool // rr has had its random start
	sticky      int  // sticky partition; -1 before the first choice
	stickyBytes int  // bytes sent to it since it was chosen
}

// dest is a topic as the producer sees it while placing records: resolved
// once per send (nothing it depends on changes while records are placed).
type dest struct {
	t  *Topic // nil if the topic does not exist (yet)
	n  int    // partition count per the producer's metadata; 0: not known yet
	st *partitionerState
}

func (p *Producer) dest(topic string) dest {
	st := p.parts[topic]
	if st == nil {
		st = &partitionerState{sticky: -1}
		p.parts[topic] = st
	}
	return dest{t: p.c.topics[topic], n: p.meta.counts[topic], st: st}
}

// place runs the partitioner (if metadata allows) and appends the record
// to its partition's accumulator; more is as for accumulate.
func (p *Producer) place(d *dest, pr *precord, more int) {
	if d.n == 0 {
		p.waiting = append(p.waiting, *pr)
		return
	}
	part := pr.partition
	if part < 0 {
		part = p.partition(d, pr)
	}
	if part >= len(d.t.parts) {
		p.waiting = append(p.waiting, *pr)
		return
	}
	p.accumulate(d.t.parts[part], pr, more)
	if pr.partition < 0 && !pr.rec.HasKey && p.conf.partitioner == "uniform" {
		p.uniformAppended(d, part, recordSize(pr.rec))
	}
}

// partition picks a partition: murmur2 of the key over all partitions;
// keyless records by the version's default partitioner.
func (p *Producer) partition(d *dest, pr *precord) int {
	if pr.rec.HasKey {
		return hash.KeyPartition(pr.rec.Key, d.n)
	}
	switch p.conf.partitioner {
	case "roundrobin":
		// DefaultPartitioner <= 2.3: a counter with a random start over available partitions.
		st := d.st
		if !st.rrStarted {
			st.rr, st.rrStarted = p.c.rng.Intn(1<<30), true
		}
		cnt := st.rr
		st.rr++
		if avail := p.available(d.t, d.n); len(avail) > 0 {
			return avail[cnt%len(avail)]
		}
		return cnt % d.n
	case "uniform":
		return p.uniformPartition(d)
	default:
		return p.stickyPartition(d, pr)
	}
}

// stickyPartition is KIP-480 (2.4-3.2, DefaultPartitioner with
// StickyPartitionCache): switch when a new batch would start; the next
// partition is a random available one, different from the last
// (StickyPartitionCache.nextPartition@3.2).
func (p *Producer) stickyPartition(d *dest, pr *precord) int {
	st, t, n := d.st, d.t, d.n
	size := recordSize(pr.rec)
	if st.sticky >= 0 && st.sticky < n {
		switchNow := false
		if q := p.queues[t.parts[st.sticky]]; q != nil {
			last := q.last()
			switchNow = last == nil || last.closed || last.bytes+size > p.conf.batchSize && len(last.recs) > 0
		}
		if !switchNow {
			st.stickyBytes += size
			return st.sticky
		}
	}
	choices := p.available(t, n)
	if len(choices) == 0 {
		choices = make([]int, n)
		for i := range choices {
			choices[i] = i
		}
	}
	next := choices[p.c.rng.Intn(len(choices))]
	if st.sticky >= 0 && len(choices) > 1 && next == st.sticky {
		next = choices[(slices.Index(choices, next)+1+p.c.rng.Intn(len(choices)-1))%len(choices)]
	}
	st.sticky, st.stickyBytes = next, size
	return next
}

func (p *Producer) available(t *Topic, n int) []int {
	var out []int
	for i := 0; i < n && i < len(t.parts); i++ {
		if p.meta.leader(t.parts[i]) >= 0 {
			out = append(out, i)
		}
	}
	return out
}
