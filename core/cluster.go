package core

import (
	"errors"
	"fmt"
	"slices"
)

// Limits. Every queue and table in the core is bounded; a command that would
// go past a limit fails with an error that says which.
const (
	MaxBrokers    = 64
	MaxTopics     = 1000
	MaxPartitions = 10000 // over all topics, __consumer_offsets included
	MaxClients    = 1000  // producers + consumers
	MaxCount      = 10_000_000
	MaxValueBytes = 1 << 20
	// MaxWait bounds one Wait or Settle; MaxPollTimeout one Poll;
	// MaxNetDelay one link's added latency (NetDelay). In ms.
	MaxWait        = 24 * 3600 * 1000
	MaxPollTimeout = 3600 * 1000
	MaxNetDelay    = 3600 * 1000
	maxEvents      = 1 << 20 // undrained events kept; older ones are dropped
	eventsHint     = 128     // the most events a new event list starts with room for (less waste when a drain brings fewer)
	maxHeld        = 100_000 // messages queued at a paused broker
	// maxTimersPerMs bounds the work of one virtual millisecond: more means
	// something reschedules itself with no delay.
	maxTimersPerMs = 5_000_000
)

// Cluster is a simulated Kafka cluster: a deterministic state machine driven
// by Apply (commands) and Advance (virtual time); see the package doc. It does no I/O, reads no
// clock and starts no goroutine; everything random comes from one PRNG seeded
// by Options.Seed.
type Cluster struct {
	opts    Options
	now     int64
	rng     *rng
	sched   sched
	preset  *preset
	mode    string            // zk or kraft
	conf    settings          // cluster-wide defaults, changed by Set
	userSet map[string]string // keys the user set explicitly
	bc      brokerConf

	net       network
	brokers   []*Broker
	topics    map[string]*Topic
	order     []*Topic // creation order
	nparts    int
	created   int            // topics ever created (Topic.seq)
	deletions map[string]int // topics deleted, by name (Topic.gen)
	md        *metadata
	ext       *extConns   // outside clients' connections
	restoring *restoreBuf // a restore whose parts are coming (restore_cmd.go)

	producers map[string]*Producer
	consumers map[string]*Consumer
	clients   []client // creation order

	events  []Event
	evHint  int // how many events the last Events call returned (at most eventsHint): the next list's starting capacity
	evSeq   uint64
	dropped uint64 // events dropped past maxEvents
	quiet   bool   // no events at all (benchmarks)
	muted   bool   // no events, history kept (the simulation tester)
	history *History
	fault   error // first internal limit hit while running

	// The driver's side (advance.go, cmdlog.go): the blocking operation in
	// progress, how many timers fired and operations completed (positions
	// in the run), and every command applied.
	pending    *op
	fired      uint64
	completed  uint64
	cmdlog     []Logged
	cmdlogFull bool
}

// client is a simulated producer or consumer.
type client interface {
	clientName() string
	brokerReset(id int) // broker id's process died: its connections reset
}

// resetConnections tells every client, and every broker fetching from
// b, that b's sockets were closed.
func (c *Cluster) resetConnections(b *Broker) {
	for _, cl := range c.clients {
		cl.brokerReset(b.ID)
	}
	for _, ob := range c.brokers {
		if ob != b {
			ob.leaderReset(b.ID)
		}
	}
	c.ext.brokerReset(b)
}

// New creates a cluster of opts.Brokers brokers, all up, with no topics.
func New(opts Options) (*Cluster, error) {
	if opts.Brokers < 1 || opts.Brokers > MaxBrokers {
		return nil, fmt.Errorf("brokers=%d: want 1..%d", opts.Brokers, MaxBrokers)
	}
	if len(opts.Racks) != 0 && len(opts.Racks) != opts.Brokers {
		return nil, fmt.Errorf("racks: %d given for %d brokers", len(opts.Racks), opts.Brokers)
	}
	p, mode, err := lookupPreset(opts.Version, opts.Metadata)
	if err != nil {
		return nil, err
	}
	opts.Version, opts.Metadata = p.name, mode
	c := &Cluster{
		opts: opts, rng: newRNG(opts.Seed), preset: p, mode: mode,
		conf:      baseSettings(p),
		userSet:   map[string]string{},
		topics:    map[string]*Topic{},
		deletions: map[string]int{},
		producers: map[string]*Producer{},
		consumers: map[string]*Consumer{},
		history:   newHistory(),
	}
	c.bc = newBrokerConf(c.conf)
	c.net.init(c)
	c.md = newMetadata(c)
	c.ext = newExtConns(c)
	for i := 1; i <= opts.Brokers; i++ {
		rack := ""
		if len(opts.Racks) > 0 {
			rack = opts.Racks[i-1]
		}
		c.brokers = append(c.brokers, newBroker(c, i, rack))
	}
	c.md.start()
	for _, b := range c.brokers {
		b.start()
	}
	return c, nil
}

// Options returns the options the cluster was created with, defaults filled in.
func (c *Cluster) Options() Options { return c.opts }

// Now returns the virtual time in milliseconds since the cluster was created.
func (c *Cluster) Now() int64 { return c.now }

// Quiet turns event recording and the client history off (or back on).
// Benchmarks use it. Records sent while quiet are never in the history, so
// the checker and expectations cannot judge them.
func (c *Cluster) Quiet(q bool) { c.quiet, c.history.off = q, q }

// MuteEvents stops (or resumes) recording events while the client history
// stays on, for callers that judge a run by its state and history alone
// (the simulation tester): a long Advance then does not pile up events that
// nobody reads.
func (c *Cluster) MuteEvents(m bool) { c.muted = m }

// History returns what the clients saw (sends, acks, failures, deliveries).
func (c *Cluster) History() *History { return c.history }

// Events returns the events recorded since the last call and forgets them.
func (c *Cluster) Events() []Event {
	ev := c.events
	c.events = nil
	c.evHint = min(len(ev), eventsHint)
	return ev
}

// DroppedEvents is how many events were discarded because nobody drained them.
func (c *Cluster) DroppedEvents() uint64 { return c.dropped }

// emit records an event. Muted, it only counts it, so that the events after
// a muted stretch (a replay) carry the numbers they had live.
// recording reports whether emit keeps events; when it does not, a hot
// path calls skipEvent instead of building an Event (616 bytes, copied
// into emit) only to have it dropped. skipEvent counts it as emit would.
func (c *Cluster) recording() bool { return !c.quiet && !c.muted }

func (c *Cluster) skipEvent() {
	if !c.quiet {
		c.evSeq++
	}
}

func (c *Cluster) emit(e Event) {
	if c.quiet {
		return
	}
	c.evSeq++
	if c.muted {
		return
	}
	if len(c.events) >= maxEvents {
		copy(c.events, c.events[len(c.events)/2:])
		c.events = c.events[:len(c.events)-len(c.events)/2]
		c.dropped += maxEvents / 2
	}
	e.Seq = c.evSeq
	if len(e.Partition) > 2 && e.Partition[0] == '_' && e.Partition[1] == '_' {
		e.Minor = true // internal topics: replication detail
	}
	e.At = c.now
	if c.events == nil && c.evHint > 0 {
		// A caller that drains often (a room, every op and tick) gets
		// about as many each time: one list of that size instead of
		// append's doublings from one, each copying 616-byte events.
		c.events = make([]Event, 0, c.evHint+c.evHint/4)
	}
	c.events = append(c.events, e)
}

// after schedules fn at now+d. It records a fault instead of growing the
// scheduler past its limit.
func (c *Cluster) after(d int64, fn func()) {
	if d < 0 {
		d = 0
	}
	c.scheduled(c.sched.push(c.now+d, fn))
}

// scheduled records a fault when a timer did not fit in the scheduler.
func (c *Cluster) scheduled(ok bool) {
	if !ok && c.fault == nil {
		c.fault = errors.New("scheduler limit reached: too much in flight")
	}
}

// Broker returns broker id (1-based), or nil.
func (c *Cluster) Broker(id int) *Broker {
	if id < 1 || id > len(c.brokers) {
		return nil
	}
	return c.brokers[id-1]
}

// Brokers returns all brokers in id order, in a slice of its own.
func (c *Cluster) Brokers() []*Broker { return slices.Clone(c.brokers) }

// Topic returns a topic by name, or nil.
func (c *Cluster) Topic(name string) *Topic { return c.topics[name] }

// Topics returns the topics in creation order, in a slice of its own.
func (c *Cluster) Topics() []*Topic { return slices.Clone(c.order) }

// Partition resolves "topic-N".
func (c *Cluster) Partition(name string) (*Partition, error) {
	t, n, err := splitPartition(name)
	if err != nil {
		return nil, err
	}
	tp := c.topics[t]
	if tp == nil && c.deletions[t] > 0 {
		return nil, fmt.Errorf("unknown topic %q: it was deleted (topic delete)", t)
	}
	if tp == nil {
		return nil, fmt.Errorf("unknown topic %q", t)
	}
	if n >= len(tp.parts) {
		return nil, fmt.Errorf("topic %s has %d partitions, no partition %d", t, len(tp.parts), n)
	}
	return tp.parts[n], nil
}

func splitPartition(s string) (string, int, error) {
	i := len(s) - 1
	for i >= 0 && s[i] >= '0' && s[i] <= '9' {
		i--
	}
	if i <= 0 || i == len(s)-1 || s[i] != '-' || len(s)-i > 6 {
		return "", 0, fmt.Errorf("bad partition %q: want TOPIC-N", s)
	}
	n := 0
	for _, ch := range s[i+1:] {
		n = n*10 + int(ch-'0')
	}
	return s[:i], n, nil
}

// liveBrokers returns the ids of brokers whose process runs, in id order.
func (c *Cluster) liveBrokers() []int {
	var ids []int
	for _, b := range c.brokers {
		if b.state == stateUp || b.state == statePaused {
			ids = append(ids, b.ID)
		}
	}
	return ids
}
