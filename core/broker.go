package core

import (
	"fmt"
	"strconv"

	"github.com/kafkasim/kafkasim/core/log"
)

type brokerState uint8

const (
	stateUp brokerState = iota
	statePaused
	stateCrashed
	stateOff
)

func (s brokerState) String() string {
	return [...]string{"up", "paused", "crashed", "powered off"}[s]
}

// Broker is one simulated Kafka broker. What survives a crash is its disk:
// replicas' logs (page cache included for a crash, not for a power-off),
// leader-epoch checkpoints and the high-watermark checkpoint. Everything
// else (roles, ISR views, fetchers, metadata cache, groups) is volatile and
// rebuilt from the controller after a restart. ID and Rack are fixed at
// creation: read-only.
type Broker struct {
	c           *Cluster
	ID          int
	Rack        string
	node        *node
	state       brokerState
	incarnation int   // bumped on every crash; stale timers and replies check it
	startedAt   int64 // when the process last started (LogManager.startup: its tasks' schedule)
	periodGen   int   // generation of the periodic tasks
	hbGen       int   // generation of the heartbeat schedule

	replicas     map[*Partition]*Replica // on disk
	hwCheckpoint map[*Partition]int64    // replication-offset-checkpoint (on disk)

	cache     map[*Partition]pstate // metadata cache
	metaSeen  bool                  // the controller has sent this process metadata (its cache is not empty for want of it, even with no topic)
	ctrlEpoch int
	fetchers  map[int]*fetcher // by leader id
	// deferFetch collects leaders to fetch from while a LeaderAndIsr is
	// being applied (nil otherwise).
	deferFetch map[int]bool
	parked     []*parkedFetch
	// queueing holds wakeParked calls back in queued while a Produce is
	// appended on 2.7+ (preset.actionQueue, handleProduce).
	queueing bool
	queued   []parkedWake
	frozen   []func() // work that arrived while paused, in order
	groups   *coordinator
	// deleteWaits are outside clients' DeleteTopics waiting for their
	// topics to leave the metadata cache (external_delete_topics.go).
	deleteWaits []*deleteWait
	// recordDeletes are outside clients' DeleteRecords waiting for the
	// replicas' log start offsets (broker_delete_records.go).
	recordDeletes []*recordsDeleteWait
}

func newBroker(c *Cluster, id int, rack string) *Broker {
	b := &Broker{c: c, ID: id, Rack: rack, replicas: map[*Partition]*Replica{}, hwCheckpoint: map[*Partition]int64{}}
	b.node = c.net.add(strconv.Itoa(id), b)
	b.resetVolatile()
	return b
}

// State returns "up", "paused", "crashed" or "powered off".
func (b *Broker) State() string { return b.state.String() }

// processUp reports whether the broker's process exists (up or paused).
func (b *Broker) processUp() bool { return b.state == stateUp || b.state == statePaused }

func (b *Broker) resetVolatile() {
	b.cache = map[*Partition]pstate{}
	b.metaSeen = false
	b.fetchers = map[int]*fetcher{}
	b.parked = nil
	b.queueing, b.queued = false, nil
	b.frozen = nil
	b.deleteWaits = nil
	b.recordDeletes = nil
	b.groups = newCoordinator(b)
	for _, r := range b.replicas {
		r.resetVolatile()
	}
}

// start brings the process up: recover the logs, register, start timers.
func (b *Broker) start() {
	for _, r := range b.sortedReplicas() {
		r.recover(b.hwCheckpoint[r.p])
	}
	md := b.c.md
	if b.c.now == 0 {
		md.handleBrokerRegistration(brokerRegistrationReq{broker: b, incarnation: b.incarnation}) // the cluster boots with every broker registered
	} else {
		b.register()
	}
	b.heartbeat()
	b.startedAt = b.c.now
	b.startPeriodic()
}

func (b *Broker) register() {
	inc := b.incarnation
	md := b.c.md
	b.c.net.send(b.node, md.node, "Register", func() { md.handleBrokerRegistration(brokerRegistrationReq{broker: b, incarnation: inc}) }, nil)
}

func (b *Broker) heartbeat() {
	md := b.c.md
	inc := b.incarnation
	kind := "Ping"
	if md.kraft {
		kind = "BrokerHeartbeat"
	}
	b.c.net.send(b.node, md.node, kind, func() {
		if md.handleBrokerHeartbeat(brokerHeartbeatReq{broker: b.ID, incarnation: inc}).registered {
			return
		}
		// Session gone (expired, fenced, or never made): register again.
		b.c.net.send(md.node, b.node, "SessionExpired", func() {
			if b.incarnation == inc && b.state == stateUp {
				b.register()
			}
		}, nil)
	}, nil)
	b.nextHeartbeat()
}

// nextHeartbeat schedules the next session heartbeat. Settings that change
// the session timeout or the heartbeat interval reschedule it (see
// Cluster.set): a ping still due at the old, longer interval would come
// after the session, renewed on the new timeout, had expired.
func (b *Broker) nextHeartbeat() {
	b.hbGen++
	gen := b.hbGen
	b.after(b.c.md.heartbeatInterval(), func() {
		if b.hbGen == gen {
			b.heartbeat()
		}
	})
}

// after runs fn in d ms on this broker: not at all if the process died
// meanwhile, later if it is paused.
func (b *Broker) after(d int64, fn func()) {
	inc := b.incarnation
	b.c.after(d, func() { b.run(inc, fn) })
}

func (b *Broker) run(inc int, fn func()) {
	switch {
	case b.incarnation != inc || !b.processUp():
	case b.state == statePaused:
		if len(b.frozen) < maxHeld {
			b.frozen = append(b.frozen, fn)
		}
	default:
		fn()
	}
}

// startPeriodic (re)starts the broker's periodic tasks with the current
// settings; `set` calls it again, which retires the old tickers.
func (b *Broker) startPeriodic() {
	b.periodGen++
	bc := &b.c.bc
	b.every(b.isrCheckPeriod, b.checkISR)
	b.every(func() int64 { return bc.hwCheckpointMs }, b.checkpointHW)
	b.every(func() int64 { return bc.writebackMs }, b.writeback)
	b.everyAfter(b.startedAt+bc.initialTaskDelayMs, func() int64 { return bc.retentionCheckMs }, b.retention)
	b.every(func() int64 { return bc.offsetsCheckMs }, func() { b.groups.cleanupGroupMetadata() })
	b.every(func() int64 { return bc.cleanerBackoffMs }, b.cleanLogs)
}

// every runs fn every d() ms while the process lives and its periodic
// generation is current.
func (b *Broker) every(d func() int64, fn func()) { b.everyAfter(b.c.now+d(), d, fn) }

// everyAfter runs fn first at first, then every d() ms while the process
// lives and its periodic generation is current, as LogManager.startup
// schedules "kafka-log-retention" (delay initialTaskDelayMs, period
// log.retention.check.interval.ms). Restarted by `set` later, it keeps
// that schedule's phase: it next runs at the first first+k*d() not before
// now. Without the initial delay a broker checked retention only one
// interval after it started: 5 min by default where Kafka checks at 30 s.
func (b *Broker) everyAfter(first int64, d func() int64, fn func()) {
	now := b.c.now
	if first < now {
		p := d()
		first += (now - first + p - 1) / p * p
	}
	gen := b.periodGen
	var tick func()
	tick = func() {
		if b.periodGen != gen {
			return
		}
		fn()
		b.after(d(), tick)
	}
	b.after(first-now, tick)
}

// hold queues a message that reached the broker while it was paused.
func (b *Broker) hold(m *message) {
	if len(b.frozen) >= maxHeld {
		b.c.net.drop(m, "dropped (paused broker's queue full)")
		return
	}
	b.frozen = append(b.frozen, m.deliver)
}

// send sends a message from this broker; deliver runs at the receiver.
func (b *Broker) send(to *node, kind string, deliver, refused func()) {
	b.c.net.send(b.node, to, kind, deliver, refused)
}

// reply sends a response back to a requester broker-side: the callback
// runs only if the requesting broker's process is the same one.
func (b *Broker) replyTo(to *Broker, kind string, fn func()) {
	inc := to.incarnation
	b.send(to.node, kind, func() {
		if to.incarnation == inc {
			fn()
		}
	}, nil)
}

func (b *Broker) crash(power bool) error {
	if !b.processUp() {
		return fmt.Errorf("broker %d is already %s", b.ID, b.state)
	}
	b.incarnation++
	b.state = stateCrashed
	what := "crashed (process killed; page cache survives)"
	if power {
		b.state = stateOff
		what = "powered off (unflushed page cache lost)"
	}
	b.c.emit(Event{Type: EvBrokerState, Broker: b.ID, State: b.State(), Detail: what})
	if power {
		for _, r := range b.sortedReplicas() {
			r.losePageCache()
		}
	} else {
		b.c.resetConnections(b) // the OS closes the dead process's sockets
	}
	b.resetVolatile()
	return nil
}

func (b *Broker) restart() error {
	if b.processUp() {
		return fmt.Errorf("broker %d is %s, not down", b.ID, b.state)
	}
	b.state = stateUp
	b.c.emit(Event{Type: EvBrokerState, Broker: b.ID, State: b.State(), Detail: "restarted"})
	b.start()
	return nil
}

func (b *Broker) pause() error {
	if b.state != stateUp {
		return fmt.Errorf("broker %d is %s, not up", b.ID, b.state)
	}
	b.state = statePaused
	b.c.emit(Event{Type: EvBrokerState, Broker: b.ID, State: b.State(), Detail: "paused"})
	return nil
}

func (b *Broker) resume() error {
	if b.state != statePaused {
		return fmt.Errorf("broker %d is %s, not paused", b.ID, b.state)
	}
	b.state = stateUp
	b.c.emit(Event{Type: EvBrokerState, Broker: b.ID, State: b.State(), Detail: "resumed"})
	work := b.frozen
	b.frozen = nil
	inc := b.incarnation
	for _, fn := range work {
		if b.incarnation != inc || b.state != stateUp {
			break
		}
		fn()
	}
	return nil
}

func (b *Broker) sortedReplicas() []*Replica {
	out := make([]*Replica, 0, len(b.replicas))
	for _, t := range b.c.order {
		for _, p := range t.parts {
			if r := b.replicas[p]; r != nil {
				out = append(out, r)
			}
		}
	}
	return out
}

// Replica returns this broker's replica of p, or nil.
func (b *Broker) Replica(p *Partition) *Replica { return b.replicas[p] }

// HWCheckpoint is p's entry in the broker's replication-offset-checkpoint
// (the high watermark as last checkpointed, what a restart starts from).
func (b *Broker) HWCheckpoint(p *Partition) (int64, bool) {
	hw, ok := b.hwCheckpoint[p]
	return hw, ok
}

func (b *Broker) checkpointHW() {
	for p, r := range b.replicas {
		b.hwCheckpoint[p] = r.hw
	}
}

func (b *Broker) writeback() {
	for _, r := range b.sortedReplicas() {
		r.writeback()
	}
}

// cleanLogs is one wake-up of the broker's log cleaner thread
// (log.cleaner.threads=1; LogCleaner.CleanerThread.doWork@3.9): it cleans
// the filthiest cleanable log (grabFilthiestCompactedLog: the largest
// dirty ratio, ties to the first replica in partition order), and again,
// until none is left, then sleeps log.cleaner.backoff.ms. A clean takes
// no virtual time. log.cleaner.enable=false leaves every log as it is.
func (b *Broker) cleanLogs() {
	if !b.c.bc.cleanerEnable {
		return
	}
	done := map[*Replica]bool{}
	for range len(b.replicas) {
		var best *Replica
		var bestTC log.ToClean
		for _, r := range b.sortedReplicas() {
			if tc, ok := r.cleanable(); ok && !done[r] && (best == nil || tc.Ratio() > bestTC.Ratio()) {
				best, bestTC = r, tc
			}
		}
		if best == nil {
			return
		}
		done[best] = true
		best.clean(bestTC)
	}
}

func (b *Broker) retention() {
	for _, r := range b.sortedReplicas() {
		r.retention()
	}
}
