package core

import (
	"fmt"
	"sort"

	"github.com/kafkasim/kafkasim/core/log"
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
	fetching  map[int]bool // broker -> fetch in flight
	fetchSeq  map[int]int
	buffer    []bufRecord        // fetched, not yet returned by poll (poll=manual)
	buffered  map[*Partition]int // records of each partition in buffer
	lastPoll  int64
	polled    int // records returned by polls so far
	member    membership
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
	commitSync() error
	leave()
}

type bufRecord struct {
	p      *Partition
	offset int64
	rec    log.Record
}

// maxBuffered bounds a manual consumer's prefetch buffer.
const maxBuffered = 100_000

func (c *Cluster) newConsumer(cmd NewConsumer) error {
	if err := c.checkClientName(cmd.Name); err != nil {
		return err
	}
	s, err := c.conf.with(cmd.Configs, scopeConsumer)
	if err != nil {
		return fmt.Errorf("consumer %s: %v", cmd.Name, err)
	}
	if cmd.Group != "" && (len(cmd.Group) > 255 || cmd.Group != trimSpace(cmd.Group)) {
		return fmt.Errorf("consumer %s: invalid group id %q", cmd.Name, cmd.Group)
	}
	conf := consumerConf{
		assignors: splitComma(s["partition.assignment.strategy"]), autoCommit: s.bool("enable.auto.commit"),
		autoCommitMs: s.int("auto.commit.interval.ms"), reset: s["auto.offset.reset"], sessionMs: s.int("session.timeout.ms"),
		heartbeatMs: s.int("heartbeat.interval.ms"), maxPollMs: s.int("max.poll.interval.ms"), maxPollRecords: int(s.int("max.poll.records")),
		fetchWaitMs: s.int("fetch.max.wait.ms"), maxPartBytes: int(s.int("max.partition.fetch.bytes")), instanceID: s["group.instance.id"],
		manual: s["poll"] == "manual", requestTimeout: s.int("request.timeout.ms"), backoff: s.int("retry.backoff.ms"),
	}
	if cmd.Group == "" {
		conf.autoCommit = false
	}
	k := &Consumer{c: c, Name: cmd.Name, Group: cmd.Group, conf: conf, alive: true, pos: map[*Partition]int64{},
		resetting: map[*Partition]bool{}, buffered: map[*Partition]int{}, fetching: map[int]bool{}, fetchSeq: map[int]int{}, lastPoll: c.now,
		next: map[*Partition]int64{}, topics: cmd.Topics}
	k.node = c.net.add(cmd.Name, nil)
	k.meta = newMetaView(c, k.node, s, k.onMetadata, func() bool { return k.alive })
	k.conns = newConns(c, k.Name, k.node, k.pump, k.meta.refresh, func() bool { return k.alive })
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

// setPosition starts consuming p at off.
func (k *Consumer) setPosition(p *Partition, off int64, why string) {
	k.pos[p], k.next[p] = off, off
	k.session++
	k.c.emit(Event{Type: EvConsumerInfo, Consumer: k.Name, Group: k.Group, Partition: p.Name, Offset: off, Detail: fmt.Sprintf("%s starts %s at %s", k.Name, p.Name, why)})
}

// pump starts whatever the consumer needs next: positions for new
// partitions, then fetches to each leader.
func (k *Consumer) pump() {
	if !k.alive {
		return
	}
	for _, p := range k.assigned {
		if _, ok := k.pos[p]; !ok && !k.resetting[p] {
			k.initPosition(p)
		}
	}
	if k.conf.manual && len(k.buffer) >= maxBuffered {
		return
	}
	leaders := map[int][]fetchPart{}
	var order []int
	for _, p := range k.assigned {
		pos, ok := k.pos[p]
		if !ok {
			continue
		}
		l := k.meta.leader(p)
		if l < 0 {
			k.meta.refresh()
			continue
		}
		if k.fetching[l] || !k.conns.ready(l) {
			continue
		}
		if k.buffered[p] > 0 {
			// Fetcher.fetchablePartitions: no new fetch for a partition
			// while records fetched for it wait to be returned by poll.
			continue
		}
		if leaders[l] == nil {
			order = append(order, l)
		}
		epoch := int32(-1)
		if e, ok := k.meta.epochs[p]; ok && k.c.preset.clientEpochs {
			epoch = e // KIP-320: the leader checks it (FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH)
		}
		leaders[l] = append(leaders[l], fetchPart{p: p, offset: pos, epoch: epoch})
	}
	for _, l := range order {
		k.fetch(l, leaders[l])
	}
}

// initPosition finds where to start in p: the committed offset (groups),
// else auto.offset.reset via ListOffsets.
func (k *Consumer) initPosition(p *Partition) {
	if k.member != nil && k.member.fetchCommitted(p) {
		return
	}
	k.resetPosition(p)
}

// resetPosition applies auto.offset.reset by asking the leader for its log
// start (earliest) or high watermark (latest) with ListOffsets.
func (k *Consumer) resetPosition(p *Partition) {
	c := k.c
	if k.conf.reset == "none" {
		c.emit(Event{Type: EvConsumerInfo, Consumer: k.Name, Partition: p.Name, Error: "NoOffsetForPartitionException", Detail: k.Name + " " + p.Name + ": no committed offset and auto.offset.reset=none (NoOffsetForPartitionException)"})
		return
	}
	l := k.meta.leader(p)
	b := c.Broker(l)
	if b == nil {
		k.meta.refresh()
		return
	}
	k.resetting[p] = true
	retry := func() {
		delete(k.resetting, p)
		k.after(k.conf.backoff, k.pump)
	}
	k.send(b, "ListOffsets", func() {
		off, errName := int64(-1), ""
		if r, e := b.leaderFor(p); e != "" {
			errName = e
		} else if k.conf.reset == "earliest" {
			off = r.log.StartOffset()
		} else {
			off = r.hw
		}
		k.reply(b, "ListOffsetsResponse", func() {
			if errName != "" || !k.owns(p) {
				if errName != "" {
					k.meta.refresh()
				}
				retry()
				return
			}
			delete(k.resetting, p)
			if _, known := k.pos[p]; known {
				// SubscriptionState.maybeSeekUnvalidated: "Skipping reset
				// ... since reset is no longer needed".
				return
			}
			k.setPosition(p, off, fmt.Sprintf("offset %d (auto.offset.reset=%s)", off, k.conf.reset))
			k.pump()
		})
	}, retry)
}

func (k *Consumer) owns(p *Partition) bool {
	for _, x := range k.assigned {
		if x == p {
			return true
		}
	}
	return false
}

// fetch sends one Fetch to leader l for parts.
func (k *Consumer) fetch(l int, parts []fetchPart) {
	c := k.c
	b := c.Broker(l)
	k.fetching[l] = true
	k.fetchSeq[l]++
	seq := k.fetchSeq[l]
	finish := func() bool {
		if !k.fetching[l] || k.fetchSeq[l] != seq {
			return false
		}
		k.fetching[l] = false
		return true
	}
	k.send(b, "Fetch", func() {
		pf := &parkedFetch{replica: -1, parts: parts, maxBytes: k.conf.maxPartBytes * len(parts), respond: func(res []fetchResult) {
			k.reply(b, "FetchResponse", func() {
				if finish() {
					k.onFetch(parts, res)
					k.pump()
				}
			})
		}}
		b.serveFetch(pf, k.conf.fetchWaitMs)
	}, func() {
		if finish() {
			k.lostConnection(l, "connection refused")
		}
	})
	k.after(k.conf.requestTimeout, func() {
		if finish() {
			k.lostConnection(l, "request timed out")
		}
	})
}

func (k *Consumer) lostConnection(l int, why string) {
	k.conns.failed(l, why)
	k.meta.refresh()
	k.pump()
}

// brokerReset: broker id's process died; an in-flight fetch to it fails
// one network hop later.
func (k *Consumer) brokerReset(id int) {
	if m, ok := k.member.(*member); ok && k.alive {
		m.connectionReset(id)
	}
	if !k.alive || !k.fetching[id] {
		return
	}
	seq := k.fetchSeq[id]
	k.after(k.c.bc.latency, func() {
		if k.fetching[id] && k.fetchSeq[id] == seq {
			k.fetching[id] = false
			k.lostConnection(id, "connection reset")
		}
	})
}

// onFetch takes records at or after each position (a fetch returns whole
// batches): poll=auto hands them to the application at once, poll=manual
// buffers them for the next poll.
func (k *Consumer) onFetch(parts []fetchPart, res []fetchResult) {
	for i, fr := range res {
		p := fr.p
		pos, ok := k.pos[p]
		if !ok || pos != parts[i].offset || !k.owns(p) {
			continue
		}
		switch fr.err {
		case "":
		case "OFFSET_OUT_OF_RANGE":
			k.c.emit(Event{Type: EvConsumerInfo, Consumer: k.Name, Partition: p.Name, Offset: pos, Error: fr.err, Detail: fmt.Sprintf("%s %s: offset %d out of range (OFFSET_OUT_OF_RANGE): reset (auto.offset.reset=%s)", k.Name, p.Name, pos, k.conf.reset)})
			// Fetcher.handleOffsetOutOfRange: the position is reset by
			// auto.offset.reset, not from the committed offset.
			k.c.history.reset(ResetRecord{Consumer: k.Name, Group: k.Group, Partition: p.Name, From: pos, At: k.c.now})
			delete(k.pos, p)
			k.resetPosition(p)
			continue
		default:
			k.meta.refresh()
			continue
		}
		var run []log.Record // poll=auto: one hand-out per partition and fetch
		runStart := int64(-1)
		for _, bt := range fr.batches {
			recs, base := bt.Records, bt.BaseOffset
			if base < pos {
				if pos-base >= int64(len(recs)) {
					continue
				}
				recs, base = recs[pos-base:], pos
			}
			switch {
			case k.conf.manual:
				for j, rec := range recs {
					k.buffer = append(k.buffer, bufRecord{p: p, offset: base + int64(j), rec: rec})
				}
				k.buffered[p] += len(recs)
			case run == nil:
				run, runStart = recs, base
			case runStart+int64(len(run)) == base:
				run = append(run[:len(run):len(run)], recs...) // copies: batches are shared
			default:
				k.handOut(p, runStart, run)
				run, runStart = recs, base
			}
			pos = base + int64(len(recs))
		}
		if run != nil {
			k.handOut(p, runStart, run)
		}
		k.pos[p] = pos
	}
	if !k.conf.manual {
		k.pollDone()
	}
}

// handOut returns a run of consecutive records of p (first at offset
// base) to the application: history, one event, the position.
func (k *Consumer) handOut(p *Partition, base int64, recs []log.Record) {
	c := k.c
	if !c.history.off {
		for j, rec := range recs {
			c.history.consume(Delivery{Consumer: k.Name, Group: k.Group, Partition: p.Name, Offset: base + int64(j), Value: rec.Value, At: c.now, Session: k.session})
		}
	}
	if !c.quiet {
		c.emit(Event{Type: EvConsume, Consumer: k.Name, Group: k.Group, Partition: p.Name, Offset: base, Records: recs})
	}
	k.next[p] = base + int64(len(recs))
	k.polled += len(recs)
}

// pollDone ends a poll: auto-commit runs if due.
func (k *Consumer) pollDone() {
	k.lastPoll = k.c.now
	if k.member != nil {
		k.member.onPoll()
	}
}

// deliver returns up to n buffered records to the application (the end of
// a manual poll).
func (k *Consumer) deliver(n int) int {
	n = min(n, len(k.buffer))
	recs := k.buffer[:n]
	for i := 0; i < n; {
		j := i + 1
		for j < n && recs[j].p == recs[i].p && recs[j].offset == recs[j-1].offset+1 {
			j++
		}
		run := make([]log.Record, 0, j-i)
		for _, br := range recs[i:j] {
			run = append(run, br.rec)
		}
		k.handOut(recs[i].p, recs[i].offset, run)
		k.buffered[recs[i].p] -= len(run)
		i = j
	}
	k.buffer = append(k.buffer[:0], k.buffer[n:]...)
	k.pollDone()
	return n
}
