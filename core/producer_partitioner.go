package core

import (
	"fmt"
	"slices"

	"github.com/kafkasim/kafkasim/core/hash"
	"github.com/kafkasim/kafkasim/core/log"
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
	if d.n == 0 || d.t == nil {
		// d.t nil: deleted since the producer's metadata last listed it
		p.wait(pr)
		return
	}
	part := pr.partition
	if part < 0 {
		part = p.partition(d, pr)
	}
	if part >= len(d.t.parts) {
		p.wait(pr)
		return
	}
	appended := p.accumulate(d.t.parts[part], pr, more)
	if pr.partition < 0 && !pr.rec.HasKey && p.conf.partitioner == "uniform" {
		p.uniformAppended(d, part, appended)
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
	size := appendSize(nil, &pr.rec)
	if st.sticky >= 0 && st.sticky < n {
		switchNow := false
		if q := p.queues[t.parts[st.sticky]]; q != nil {
			last := q.last()
			switchNow = last == nil || last.closed
			if !switchNow {
				size = appendSize(last, &pr.rec)
				switchNow = last.bytes+size > p.conf.batchSize && len(last.recs) > 0
			}
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

// wait holds a record whose topic (or partition) the producer's metadata
// does not have yet: KafkaProducer.send blocks in waitOnMetadata, asking
// for metadata every retry.backoff.ms, for at most max.block.ms, and then
// fails the record (expireWaiting).
func (p *Producer) wait(pr *precord) {
	p.waiting = append(p.waiting, *pr)
	p.waitTimer()
}

// waitTimer sets expireWaiting for the first waiting record's deadline,
// unless one is set for it already.
func (p *Producer) waitTimer() {
	if len(p.waiting) == 0 {
		return
	}
	due := p.waiting[0].sent + p.conf.maxBlockMs
	if p.waitDue == due {
		return
	}
	p.waitDue = due
	p.c.after(max(0, due-p.c.now), func() {
		if p.waitDue == due {
			p.waitDue = 0
			p.expireWaiting()
		}
	})
}

// expireWaiting fails the waiting records that have waited max.block.ms
// for metadata, with the TimeoutException send() throws (a record that
// waits was never in a batch: no partition, no attempt), and sets the
// timer for the next.
func (p *Producer) expireWaiting() {
	keep := p.waiting[:0]
	var failed []precord
	for _, pr := range p.waiting {
		if p.c.now-pr.sent >= p.conf.maxBlockMs {
			failed = append(failed, pr)
		} else {
			keep = append(keep, pr)
		}
	}
	p.waiting = keep
	for i := 0; i < len(failed); {
		j := i + 1
		for j < len(failed) && failed[j].topic == failed[i].topic && failed[j].partition == failed[i].partition {
			j++
		}
		recs := make([]log.Record, 0, j-i)
		for _, pr := range failed[i:j] {
			recs = append(recs, pr.rec)
			p.c.history.fail(pr.id, "TIMEOUT")
			p.pending--
		}
		p.c.emit(Event{Type: EvProduceError, Producer: p.Name, Topic: failed[i].topic, Records: recs, Error: "TIMEOUT", Fate: FateFailed,
			Detail: p.metadataTimeout(failed[i].topic, failed[i].partition)})
		i = j
	}
	p.waitTimer()
}

// metadataTimeout is KafkaProducer.waitOnMetadata's TimeoutException
// message for a record bound for topic (and partition, if >= 0).
func (p *Producer) metadataTimeout(topic string, partition int) string {
	ms := p.conf.maxBlockMs
	if !p.c.preset.topicWaitText {
		return fmt.Sprintf("Failed to update metadata after %d ms.", ms)
	}
	if n := p.meta.counts[topic]; n > 0 && partition >= 0 {
		return fmt.Sprintf("Partition %d of topic %s with partition count %d is not present in metadata after %d ms.", partition, topic, n, ms)
	}
	return fmt.Sprintf("Topic %s not present in metadata after %d ms.", topic, ms)
}
