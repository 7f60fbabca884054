package core

import (
	"fmt"
	"sort"
	"strings"
)

// consumerConf is a consumer's resolved configuration.
type consumerConf struct {
	assignors      []string
	autoCommit     bool
	autoCommitMs   int64
	reset          string // earliest, latest, none
	sessionMs      int64
	heartbeatMs    int64
	maxPollMs      int64
	maxPollRecords int
	fetchWaitMs    int64
	maxPartBytes   int
	instanceID     string
	manual         bool // poll=manual
	requestTimeout int64
	apiTimeout     int64 // default.api.timeout.ms
	backoff        int64
}

// Consumer is a simulated KafkaConsumer. With poll=auto it is an
// application that polls in a loop and handles each record at once; with
// poll=manual it polls only when told, while its background fetches and
// heartbeats go on.
type Consumer struct {
	c     *Cluster
	Name  string
	Group string
	node  *node
	conf  consumerConf
	meta  *metaView
	conns *conns
	alive bool // false after crash or close
	inc   int  // bumped when it dies, so its timers and replies stop

	topics    []string             // subscription (group consumers); empty: all topics
	assigned  []*Partition         // current assignment (manual or from the group)
	pos       map[*Partition]int64 // next offset to fetch; absent: unknown
	next      map[*Partition]int64 // the application's position: next offset poll returns (what commits store)
	session   int                  // bumped when positions are reset or the assignment changes
	resetting map[*Partition]bool
	// dropped counts, per partition, the times it left the assignment: a
	// ListOffsets sent before is stale when it comes back (the partition
	// is no longer awaiting that reset).
	dropped  map[*Partition]int
	failed   map[*Partition]string // auto.offset.reset=none: why poll cannot use p's position (consumer_offset_fetcher.go)
	pollErr  string                // the exception the current poll throws, "" if none
	fetching map[int]bool          // broker -> fetch in flight
	fetchSeq map[int]int
	buffer   []bufRecord        // fetched, not yet returned by poll (poll=manual)
	buffered map[*Partition]int // records of each partition in buffer
	lastPoll int64
	polled   int // records returned by polls so far
	member   membership
}

// membership is a group consumer's side of its group: the classic group
// protocol (member), or the 0.8 consumer that keeps membership, ownership
// and offsets in ZooKeeper (zkMember).
type membership interface {
	ensure()
	onMetadata()
	fetchCommitted(p *Partition) bool
	onPoll()
	pollStarted()
	pollEnded()
	stable() bool
	idle() bool
	commitSync() (*op, error) // starts it; the op completes on the last answer or at commitTimeout
	commitTimeout() int64     // how long commitSync waits, ms
	leave()
}

func (c *Cluster) newConsumer(cmd NewConsumer) error {
	if err := c.checkClientName(cmd.Name); err != nil {
		return err
	}
	s, err := c.conf.with(cmd.Configs, scopeConsumer)
	if err != nil {
		return fmt.Errorf("consumer %s: %v", cmd.Name, err)
	}
	if cmd.Group != "" && (len(cmd.Group) > 255 || cmd.Group != strings.TrimSpace(cmd.Group)) {
		return fmt.Errorf("consumer %s: invalid group id %q", cmd.Name, cmd.Group)
	}
	conf := consumerConf{
		assignors: splitComma(s["partition.assignment.strategy"]), autoCommit: s.bool("enable.auto.commit"),
		autoCommitMs: s.int("auto.commit.interval.ms"), reset: s["auto.offset.reset"], sessionMs: s.int("session.timeout.ms"),
		heartbeatMs: s.int("heartbeat.interval.ms"), maxPollMs: s.int("max.poll.interval.ms"), maxPollRecords: int(s.int("max.poll.records")),
		fetchWaitMs: s.int("fetch.max.wait.ms"), maxPartBytes: int(s.int("max.partition.fetch.bytes")), instanceID: s["group.instance.id"],
		manual: s["poll"] == "manual", requestTimeout: s.int("request.timeout.ms"), apiTimeout: s.int("default.api.timeout.ms"), backoff: s.int("retry.backoff.ms"),
	}
	if cmd.Group == "" {
		conf.autoCommit = false
	}
	if cmd.Group != "" && !c.preset.offsetsInZK && conf.heartbeatMs >= conf.sessionMs {
		// Heartbeat's constructor (0.9+): no such consumer is created.
		return fmt.Errorf("consumer %s: KafkaException: Failed to construct kafka consumer: IllegalArgumentException: Heartbeat must be set lower than the session timeout (heartbeat.interval.ms=%d, session.timeout.ms=%d)", cmd.Name, conf.heartbeatMs, conf.sessionMs)
	}
	k := &Consumer{c: c, Name: cmd.Name, Group: cmd.Group, conf: conf, alive: true, pos: map[*Partition]int64{},
		resetting: map[*Partition]bool{}, dropped: map[*Partition]int{}, failed: map[*Partition]string{}, buffered: map[*Partition]int{}, fetching: map[int]bool{}, fetchSeq: map[int]int{}, lastPoll: c.now,
		next: map[*Partition]int64{}, topics: cmd.Topics}
	k.node = c.net.add(cmd.Name, nil)
	k.meta = newMetaView(c, k.node, s, k.onMetadata, func() bool { return k.alive })
	k.conns = newConns(c, k.Name, k.node, k.pump, k.meta.refresh, func() bool { return k.alive })
	c.consumers[cmd.Name] = k
	c.clients = append(c.clients, k)
	switch {
	case cmd.Group != "" && c.preset.offsetsInZK:
		k.member = newZKMember(k)
	case cmd.Group != "":
		k.member = newMember(k)
	}
	return nil
}

func (k *Consumer) clientName() string { return k.Name }

// after runs fn in d ms if the consumer is still the same live process.
func (k *Consumer) after(d int64, fn func()) {
	inc := k.inc
	k.c.after(d, func() {
		if k.alive && k.inc == inc {
			fn()
		}
	})
}

// send sends a request from the consumer; the reply callback runs only if
// the consumer is still alive.
func (k *Consumer) send(to *Broker, kind string, deliver func(), refused func()) {
	inc := k.inc
	guard := func(fn func()) func() {
		if fn == nil {
			return nil
		}
		return func() {
			if k.alive && k.inc == inc {
				fn()
			}
		}
	}
	k.c.net.send(k.node, to.node, kind, deliver, guard(refused))
}

// reply sends a broker's response to the consumer.
func (k *Consumer) reply(from *Broker, kind string, fn func()) {
	inc := k.inc
	k.c.net.send(from.node, k.node, kind, func() {
		if k.alive && k.inc == inc {
			fn()
		}
	}, nil)
}

// assign sets a manual assignment (KafkaConsumer.assign).
func (k *Consumer) assign(parts []*Partition) {
	k.setAssignment(parts)
	for _, p := range parts {
		k.meta.want(p.Topic.Name)
	}
	k.pump()
}

// setAssignment changes the owned partitions, dropping positions of
// partitions no longer owned.
func (k *Consumer) setAssignment(parts []*Partition) {
	keep := map[*Partition]bool{}
	for _, p := range parts {
		keep[p] = true
	}
	for p := range k.pos {
		if !keep[p] {
			delete(k.pos, p)
		}
	}
	for p := range k.next {
		if !keep[p] {
			delete(k.next, p)
		}
	}
	for p := range k.failed {
		if !keep[p] {
			delete(k.failed, p)
		}
	}
	for _, p := range k.assigned {
		if !keep[p] {
			k.dropped[p]++
			delete(k.resetting, p)
		}
	}
	k.session++
	k.assigned = append([]*Partition(nil), parts...)
	sort.Slice(k.assigned, func(i, j int) bool { return partLess(k.assigned[i], k.assigned[j]) })
	if len(k.buffer) > 0 {
		kept := k.buffer[:0]
		for _, br := range k.buffer {
			if keep[br.p] {
				kept = append(kept, br)
			} else {
				k.buffered[br.p]--
			}
		}
		k.buffer = kept
	}
}

func partLess(a, b *Partition) bool {
	if a.Topic.Name != b.Topic.Name {
		return a.Topic.Name < b.Topic.Name
	}
	return a.ID < b.ID
}

func (k *Consumer) onMetadata() {
	if k.member != nil {
		k.member.onMetadata()
		k.member.ensure()
	}
	k.pump()
}

func (k *Consumer) owns(p *Partition) bool {
	for _, x := range k.assigned {
		if x == p {
			return true
		}
	}
	return false
}
