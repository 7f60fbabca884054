package core

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kafkasim/kafkasim/core/hash"
	"github.com/kafkasim/kafkasim/core/log"
)

// producerConf is a producer's resolved configuration.
type producerConf struct {
	acks           int // 0, 1, -1
	retries        int64
	maxInFlight    int
	idempotent     bool
	lingerMs       int64
	batchSize      int
	requestTimeout int64
	backoff        int64
	deliveryMs     int64 // 0: none (pre-2.1 producers)
	partitioner    string
}

// Producer is a simulated KafkaProducer on a host of its own. Records go
// to a per-partition accumulator, batches are drained into one Produce
// request per broker (at most max.in.flight in flight per broker), and
// failures are retried by re-enqueueing the batch at the front of its
// queue: with several requests in flight and no idempotence, this is how a
// retried batch lands after later ones.
type Producer struct {
	c       *Cluster
	Name    string
	node    *node
	conf    producerConf
	meta    *metaView
	conns   *conns
	pid     int64
	pepoch  int16
	pidReq  bool
	queues  map[*Partition]*pqueue
	qorder  []*pqueue
	waiting []precord   // records whose topic's metadata is not known yet
	inflt   map[int]int // in-flight requests per broker
	reqs    map[int]*preq
	reqSeq  int
	parts   map[string]*partitionerState // by topic
	pending int                          // records sent but not acked or failed
}

type precord struct {
	topic     string
	partition int // -1: partitioner decides
	rec       log.Record
	id        int // history id
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
	q        *pqueue
	order    uint64 // creation order in its queue
	recs     []log.Record
	ids      []int // history ids of recs; nil while they are all -1 (history off)
	bytes    int
	created  int64
	attempts int
	retryAt  int64
	seq      int32 // -1 until first sent (idempotent)
	epoch    int16
	inflight bool
	closed   bool // no more appends (sent once, or full)
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

// preq is a Produce request in flight.
type preq struct {
	id      int
	broker  int
	batches []*pbatch
}

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

func (c *Cluster) newProducer(cmd NewProducer) error {
	if err := c.checkClientName(cmd.Name); err != nil {
		return err
	}
	s, err := c.conf.with(cmd.Configs, scopeProducer)
	if err != nil {
		return fmt.Errorf("producer %s: %v", cmd.Name, err)
	}
	conf, err := c.producerConf(s, cmd.Configs)
	if err != nil {
		return fmt.Errorf("producer %s: %v", cmd.Name, err)
	}
	p := &Producer{c: c, Name: cmd.Name, conf: conf, pid: -1, queues: map[*Partition]*pqueue{}, inflt: map[int]int{},
		reqs: map[int]*preq{}, parts: map[string]*partitionerState{}}
	p.node = c.net.add(cmd.Name, nil)
	p.meta = newMetaView(c, p.node, s, p.drain, func() bool { return true })
	p.conns = newConns(c, p.Name, p.node, p.drain, p.meta.refresh, func() bool { return true })
	c.producers[cmd.Name] = p
	c.clients = append(c.clients, p)
	return nil
}

func (p *Producer) clientName() string { return p.Name }

// producerConf resolves acks/idempotence the way KafkaProducer does:
// idempotence needs acks=all, retries > 0 and max.in.flight <= 5 (1 on
// 0.11); if the user set it explicitly that is an error, otherwise it is
// silently turned off (ENABLE_IDEMPOTENCE_DOC).
func (c *Cluster) producerConf(s settings, explicit map[string]string) (producerConf, error) {
	pc := producerConf{
		retries: s.int("retries"), maxInFlight: int(s.int("max.in.flight.requests.per.connection")),
		idempotent: s.bool("enable.idempotence"), lingerMs: s.int("linger.ms"), batchSize: int(s.int("batch.size")),
		requestTimeout: s.int("request.timeout.ms"), backoff: s.int("retry.backoff.ms"), deliveryMs: s.int("delivery.timeout.ms"),
		partitioner: s["partitioner"],
	}
	switch s["acks"] {
	case "0":
		pc.acks = 0
	case "1":
		pc.acks = 1
	default:
		pc.acks = -1
	}
	if pc.partitioner == "default" {
		pc.partitioner = c.preset.partitioner
	}
	if !pc.idempotent {
		return pc, nil
	}
	_, userSet := explicit["enable.idempotence"]
	if !userSet {
		_, userSet = c.userSet["enable.idempotence"]
	}
	limit := c.preset.maxInFlightIdem
	var conflict string
	switch {
	case !c.preset.idempotence:
		conflict = "this version has no idempotent producer (0.11+)"
	case pc.acks != -1:
		conflict = "must set acks to all in order to use the idempotent producer"
	case pc.retries == 0:
		conflict = "must set retries to non-zero when using the idempotent producer"
	case pc.maxInFlight > limit:
		conflict = fmt.Sprintf("must set max.in.flight.requests.per.connection to at most %d to use the idempotent producer", limit)
	}
	if conflict == "" {
		return pc, nil
	}
	if userSet {
		return pc, fmt.Errorf("ConfigException: %s", conflict)
	}
	pc.idempotent = false
	return pc, nil
}

// send is KafkaProducer.send for count records.
func (p *Producer) send(cmd Produce) error {
	c := p.c
	t := c.topics[cmd.Topic]
	if t == nil && !c.bc.autoCreate {
		return fmt.Errorf("unknown topic %q", cmd.Topic)
	}
	if err := validTopicName(cmd.Topic); err != nil {
		return err
	}
	part := -1
	if cmd.Partition != nil {
		part = *cmd.Partition
		if t != nil && (part < 0 || part >= len(t.Partitions)) {
			return fmt.Errorf("topic %s has no partition %d", cmd.Topic, part)
		}
	}
	n := max(cmd.Count, 1)
	if n > MaxCount || len(cmd.Value) > MaxValueBytes || cmd.Key != nil && len(*cmd.Key) > MaxValueBytes {
		return fmt.Errorf("produce: count or record size over the limit (count <= %d, value <= %d bytes)", MaxCount, MaxValueBytes)
	}
	key, hasKey := "", cmd.Key != nil
	if hasKey {
		key = *cmd.Key
	}
	d := p.dest(cmd.Topic)
	// A run of records bound for one partition (an explicit one, or keyless
	// with a sticky partitioner) lets a new batch be sized for them at once.
	runs := part >= 0 || !hasKey && p.conf.partitioner != "roundrobin"
	var values []string // the next values of a counted send, values[next:]
	next := 0
	for i := 1; i <= n; i++ {
		v := cmd.Value
		if cmd.Count > 1 {
			if next == len(values) {
				values, next = countedValues(values[:0], cmd.Value, i, n), 0
			}
			v = values[next]
			next++
		}
		pr := precord{topic: cmd.Topic, partition: part, rec: log.Record{Key: key, Value: v, HasKey: hasKey}}
		pr.id = c.history.send(p.Name, v, p.conf.acks, p.conf.idempotent)
		p.pending++
		more := 1
		if runs {
			more = n - i + 1
		}
		p.place(&d, &pr, more)
	}
	if !c.quiet && n > 0 {
		c.emit(Event{Type: EvProduce, Producer: p.Name, Topic: cmd.Topic, Detail: fmt.Sprintf("send() %d record(s)", n)})
	}
	p.meta.want(cmd.Topic)
	if p.conf.lingerMs == 0 {
		p.drain()
	}
	return nil
}

// countedValues appends the values "prefix-from", "prefix-(from+1)", ...
// (at most up to "prefix-to") to out. They are cut from one string of a few
// KiB, so a send of many records does not allocate once per value.
func countedValues(out []string, prefix string, from, to int) []string {
	const maxNames, maxBytes = 512, 8192
	var digits [20]byte
	width := len(prefix) + 1 + len(strconv.AppendInt(digits[:0], int64(to), 10)) // the longest name
	var sb strings.Builder
	sb.Grow(min(min(to-from+1, maxNames)*width, maxBytes+width))
	var ends [maxNames]int
	n := 0
	for i := from; i <= to && n < maxNames && (n == 0 || sb.Len() < maxBytes); i++ {
		sb.WriteString(prefix)
		sb.WriteByte('-')
		sb.Write(strconv.AppendInt(digits[:0], int64(i), 10))
		ends[n] = sb.Len()
		n++
	}
	s, start := sb.String(), 0
	for _, end := range ends[:n] {
		out = append(out, s[start:end])
		start = end
	}
	return out
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
	if part >= len(d.t.Partitions) {
		p.waiting = append(p.waiting, *pr)
		return
	}
	p.accumulate(d.t.Partitions[part], pr, more)
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
	default:
		return p.stickyPartition(d, pr)
	}
}

// stickyPartition is KIP-480 (2.4-3.2: switch when a new batch starts) and
// KIP-794 (3.3+: switch after batch.size bytes); the next partition is a
// random available one, different from the last.
func (p *Producer) stickyPartition(d *dest, pr *precord) int {
	st, t, n := d.st, d.t, d.n
	size := recordSize(pr.rec)
	if st.sticky >= 0 && st.sticky < n {
		switchNow := false
		if p.conf.partitioner == "uniform" {
			switchNow = st.stickyBytes >= max(p.conf.batchSize, 1)
		} else if q := p.queues[t.Partitions[st.sticky]]; q != nil {
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
		next = choices[(indexOf(choices, next)+1+p.c.rng.Intn(len(choices)-1))%len(choices)]
	}
	st.sticky, st.stickyBytes = next, size
	return next
}

func indexOf(v []int, x int) int {
	for i, y := range v {
		if y == x {
			return i
		}
	}
	return -1
}

func (p *Producer) available(t *Topic, n int) []int {
	var out []int
	for i := 0; i < n && i < len(t.Partitions); i++ {
		if p.meta.leader(t.Partitions[i]) >= 0 {
			out = append(out, i)
		}
	}
	return out
}

// recordSize approximates a record's bytes in a v2 batch.
func recordSize(r log.Record) int { return len(r.Key) + len(r.Value) + 8 }

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

// accumulate is RecordAccumulator.append. more (>= 1) is how many records
// of the current send, this one included, are expected to follow it into
// the same partition: a new batch makes room for as many of them as
// batch.size allows, instead of growing record by record.
func (p *Producer) accumulate(part *Partition, pr *precord, more int) {
	q := p.queue(part)
	p.c.history.setPartition(pr.id, part.Name)
	size := recordSize(pr.rec)
	b := q.last()
	if b == nil || b.closed || b.attempts > 0 || len(b.recs) > 0 && b.bytes+size > p.conf.batchSize {
		if b != nil {
			b.closed = true
		}
		q.made++
		b = &pbatch{q: q, created: p.c.now, seq: -1, order: q.made}
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
