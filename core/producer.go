package core

import (
	"fmt"
	"math"
	"strconv"
	"strings"

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
	backoffMax     int64 // retry.backoff.max.ms (3.7+, KIP-580)
	deliveryMs     int64 // 0: none (pre-2.1 producers)
	maxBlockMs     int64 // how long send() waits for its topic's metadata (max.block.ms)
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
	waiting []precord   // records whose topic's metadata is not known yet, in send order
	filled  bool        // an append filled a batch or closed one (RecordAppendResult.batchIsFull)
	waitDue int64       // when the first of them times out (expireWaiting is set for it); 0: none set
	inflt   map[int]int // in-flight requests per broker
	reqs    map[int]*preq
	reqSeq  int
	parts   map[string]*partitionerState // by topic
	pending int                          // records sent but not acked or failed
	wake    int64                        // when the Sender is next woken to expire batches; 0: none
	jitter  *rng                         // retry backoff jitter (3.7+), a stream of its own
}

// preq is a Produce request in flight.
type preq struct {
	id      int
	broker  int
	batches []*pbatch
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
	if c.preset.expBackoff {
		p.jitter = newRNG(jitterSeed(c.opts.Seed, cmd.Name))
	}
	p.node = c.net.add(cmd.Name, nil)
	p.meta = newMetaView(c, p.node, s, p.drain, func() bool { return true })
	p.conns = newConns(c, p.Name, p.node, p.drain, p.meta.refresh, func() bool { return true })
	p.conns.apiTimeout = p.conf.requestTimeout
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
		requestTimeout: s.int("request.timeout.ms"), backoff: s.int("retry.backoff.ms"), backoffMax: s.int("retry.backoff.max.ms"), deliveryMs: s.int("delivery.timeout.ms"),
		maxBlockMs:  s.int("max.block.ms"),
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
	if c.preset.batchExpiry != "delivery" {
		// Before 2.1 there is no delivery.timeout.ms: the producer ignores
		// it as an unknown config (batches expire by batchExpiry's rule).
		pc.deliveryMs = 0
	}
	if err := c.configureDeliveryTimeout(&pc, explicit); err != nil {
		return pc, err
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

// configureDeliveryTimeout is KafkaProducer.configureDeliveryTimeout
// (KIP-91, 2.1+): delivery.timeout.ms must cover linger.ms +
// request.timeout.ms. A smaller value the user set is a ConfigException;
// the default is raised to that sum. Before 2.1 there is no delivery
// timeout (the presets set it to 0).
func (c *Cluster) configureDeliveryTimeout(pc *producerConf, explicit map[string]string) error {
	if c.preset.batchExpiry != "delivery" {
		return nil
	}
	floor := min(pc.lingerMs+pc.requestTimeout, math.MaxInt32)
	if pc.deliveryMs >= floor {
		return nil
	}
	_, userSet := explicit["delivery.timeout.ms"]
	if !userSet {
		_, userSet = c.userSet["delivery.timeout.ms"]
	}
	if userSet {
		return fmt.Errorf("ConfigException: delivery.timeout.ms should be equal to or larger than linger.ms + request.timeout.ms (%d < %d + %d)", pc.deliveryMs, pc.lingerMs, pc.requestTimeout)
	}
	pc.deliveryMs = floor
	return nil
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
		if t != nil && (part < 0 || part >= len(t.parts)) {
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
	p.filled = false
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
		pr := precord{topic: cmd.Topic, partition: part, rec: log.Record{Key: key, Value: v, HasKey: hasKey}, sent: c.now}
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
	// KafkaProducer.doSend wakes the Sender when an append filled a batch
	// (batchIsFull: the batch has no room left, or a newer batch follows
	// it), linger.ms or not, and the Sender sends it at once. A full batch
	// used to wait for linger.ms all the same.
	if p.conf.lingerMs == 0 || p.filled {
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
