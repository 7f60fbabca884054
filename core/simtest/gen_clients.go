package simtest

import (
	"strconv"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/internal/xrand"
	"github.com/kafkasim/kafkasim/core/scenario"
)

// setup writes the cluster, settings, topics, producers and first consumers.
func (g *gen) setup(seed uint64) {
	r := g.r
	g.version = g.cfg.Preset
	if g.version == "" {
		if g.unsafe {
			// Lean on the old versions' lossy mechanisms: 0.8's
			// truncation to the high watermark, 0.11's first leader epochs.
			g.version = xrand.Pick(r, []string{"0.8", "0.8", "0.8", "0.11", "0.11", "2.8", "3.9", "4.0"})
		} else {
			g.version = xrand.Pick(r, SafeVersions)
		}
	}
	g.spec, _ = core.LookupVersion(g.version) // Config.Check vetted it
	if modes := g.spec.Metadata; len(modes) == 1 {
		g.mode = modes[0]
	} else {
		g.mode = xrand.Pick(r, modes)
	}
	if g.unsafe {
		g.brokers = r.Between(2, 4)
	} else {
		g.brokers = r.Between(3, 5)
	}
	g.steps = append(g.steps, scenario.Step{Line: 1, Cluster: &core.Options{Brokers: g.brokers, Seed: seed, Version: g.version, Metadata: g.mode}})
	g.pinned = append(g.pinned, true)

	set := map[string]string{
		// Few offsets partitions keep each seed cheap; the coordinator
		// logic is the same.
		"offsets.topic.num.partitions":     strconv.Itoa(r.Between(1, 3)),
		"offsets.topic.replication.factor": strconv.Itoa(min(3, g.brokers)),
		"replica.lag.time.max.ms":          xrand.Pick(r, []string{"5000", "10000", "30000"}),
		"group.initial.rebalance.delay.ms": xrand.Pick(r, []string{"0", "500", "3000"}),
		// A shrunken script may produce to a topic whose creation it
		// dropped: fail that at once rather than auto-create a topic
		// (the simulated producer has no max.block.ms).
		"auto.create.topics.enable": "false",
	}
	if g.mode == "zk" {
		set["zookeeper.session.timeout.ms"] = zkSessionMs
	}
	g.mechanismSettings(set)
	if re := xrand.New(seed ^ 0x0ff5_e7e0_0000_0000); re.Chance(15) {
		// Offset expiry within a run (KIP-211): a group Empty for a
		// minute loses its offsets and later members reset. A stream of
		// its own, so other seeds' scripts stay as they were.
		set["offsets.retention.minutes"] = "1"
		set["offsets.retention.check.interval.ms"] = xrand.Pick(re, []string{"5000", "20000"})
	}
	if rd := xrand.New(seed ^ 0x1d1e_de1a_7000_0000); rd.Chance(10) {
		// A long initial rebalance delay: members joining an Empty group
		// seconds apart extend it step by step (InitialDelayedJoin), up to
		// the rebalance timeout (max.poll.interval.ms). A stream of its
		// own, so other seeds' scripts stay as they were.
		set["group.initial.rebalance.delay.ms"] = "10000"
	}
	if g.unsafe {
		g.ackLoss, g.unclean, g.reorder, g.redeliver = r.Chance(50), r.Chance(40), r.Chance(50), r.Chance(50)
		set["min.insync.replicas"] = xrand.Pick(r, []string{"1", "1", "2"})
		if g.unclean {
			set["unclean.leader.election.enable"] = "true"
		}
	} else {
		// The safe configuration: acks=all (on every producer),
		// min.insync.replicas=2 with RF 3, no unclean election, idempotent
		// producers, leader epochs (the version).
		set["min.insync.replicas"] = "2"
		set["unclean.leader.election.enable"] = "false"
	}
	if g.churn = g.rt.Chance(20); g.churn {
		// Topic deletion is off by default before 1.0 (KAFKA-5384); a seed
		// that churns topics turns it on, as an operator would.
		set["delete.topic.enable"] = "true"
	}
	g.add(core.Set{Configs: set})
	g.pin()

	for i, n := 0, r.Between(1, 2); i < n; i++ {
		t := topicInfo{name: "t" + strconv.Itoa(i), parts: r.Between(1, 3)}
		rf := 3
		if g.unsafe {
			rf = r.Between(min(2, g.brokers), min(3, g.brokers))
		}
		g.add(core.CreateTopic{Topic: t.name, Partitions: t.parts, RF: rf})
		g.pin() // a consumer of a topic that does not exist never joins its group
		g.topics = append(g.topics, t)
	}
	g.nextTopic = len(g.topics)
	for i, n := 0, r.Between(1, 3); i < n; i++ {
		g.newProducer()
	}
	for i, n := 0, r.Between(0, 3); i < n; i++ {
		g.newConsumer()
	}
	g.add(core.Wait{Duration: int64(r.Between(100, 2000))})
}

// mechanismSettings adds, sometimes, the settings that let mechanisms
// with long default periods act within a seed: the automatic preferred
// leader election (leader.imbalance.check.interval.seconds, 300 s by
// default: ZooKeeper's per-broker threshold, KRaft's every imbalanced
// partition).
func (g *gen) mechanismSettings(set map[string]string) {
	if iv := xrand.Pick(g.rk, []string{"", "", "5", "30"}); iv != "" {
		set["leader.imbalance.check.interval.seconds"] = iv
	}
}

// backoffConfigs sometimes sets a producer's retry backoff and, for 3.7+'s
// exponential backoff (KIP-580), its ceiling retry.backoff.max.ms (older
// presets accept and ignore it), from rk: longer backoffs stretch retries
// across leader changes, shorter ones crowd them.
func (g *gen) backoffConfigs(c map[string]string) {
	switch g.rk.Intn(5) {
	case 0:
		c["retry.backoff.ms"], c["retry.backoff.max.ms"] = "20", "200"
	case 1:
		c["retry.backoff.ms"], c["retry.backoff.max.ms"] = "500", "5000"
	case 2:
		c["retry.backoff.max.ms"] = "5000"
	}
}

// assignorNames are the assignors core accepts (its catalog).
var assignorNames = core.Accepted().Assignors

// producerConfigs returns a producer's settings: in safe mode acks=all and
// idempotence on; in unsafe mode anything Kafka accepts.
func (g *gen) producerConfigs() map[string]string {
	r := g.r
	c := map[string]string{
		"linger.ms":   xrand.Pick(r, []string{"0", "0", "5", "20"}),
		"partitioner": xrand.Pick(r, []string{"default", "default", "roundrobin", "sticky"}),
	}
	g.backoffConfigs(c)
	inflightIdem := max(1, g.spec.MaxInFlightIdempotent)
	if !g.unsafe {
		c["acks"], c["enable.idempotence"] = "all", "true"
		c["retries"] = "2147483647"
		c["max.in.flight.requests.per.connection"] = strconv.Itoa(r.Between(1, inflightIdem))
		return c
	}
	acks := xrand.Pick(r, []string{"0", "1", "all"})
	if g.ackLoss {
		acks = xrand.Pick(r, []string{"1", "1", "all", "0"})
	}
	c["acks"] = acks
	c["retries"] = xrand.Pick(r, []string{"0", "3", "2147483647"})
	c["max.in.flight.requests.per.connection"] = strconv.Itoa(r.Between(1, 5))
	idem := g.spec.Idempotence && acks == "all" && r.Chance(30)
	if g.reorder {
		idem = false
		c["retries"] = xrand.Pick(r, []string{"3", "2147483647"})
		c["max.in.flight.requests.per.connection"] = strconv.Itoa(r.Between(2, 5))
	}
	if idem {
		c["enable.idempotence"] = "true"
		if c["retries"] == "0" {
			c["retries"] = "2147483647"
		}
		c["max.in.flight.requests.per.connection"] = strconv.Itoa(r.Between(1, inflightIdem))
	} else if g.spec.Idempotence {
		c["enable.idempotence"] = "false"
	}
	return c
}

func (g *gen) newProducer() {
	p := producerInfo{name: "p" + strconv.Itoa(len(g.producers))}
	g.add(core.NewProducer{Name: p.name, Configs: g.producerConfigs()})
	g.producers = append(g.producers, p)
}

// newConsumer adds a consumer: mostly a group member, sometimes one with a
// manual assignment.
func (g *gen) newConsumer() {
	r := g.r
	name := "c" + strconv.Itoa(g.clients)
	g.clients++
	if r.Chance(15) {
		g.add(core.NewConsumer{Name: name, Configs: map[string]string{"auto.offset.reset": "earliest"}})
		var parts []string
		for _, t := range g.topics {
			for p := 0; p < t.parts; p++ {
				if r.Chance(70) {
					parts = append(parts, t.name+"-"+strconv.Itoa(p))
				}
			}
		}
		if len(parts) == 0 {
			parts = []string{g.topics[0].name + "-0"}
		}
		g.add(core.Assign{Consumer: name, Partitions: parts})
		g.consumers = append(g.consumers, consumerInfo{name: name, alive: true})
		return
	}
	var gi groupInfo
	if len(g.groups) == 0 || len(g.groups) < 2 && r.Chance(30) {
		gi = groupInfo{
			name:     "g" + strconv.Itoa(len(g.groups)),
			assignor: xrand.Pick(r, assignorNames),
			session:  xrand.Pick(r, []string{"6000", "10000", "30000"}),
			commitMs: xrand.Pick(r, []string{"100", "1000", "5000"}),
		}
		g.groups = append(g.groups, gi)
	} else {
		gi = xrand.Pick(r, g.groups)
	}
	zkConsumer := g.spec.OffsetsInZooKeeper // the 0.8 consumer
	if zkConsumer {
		gi.assignor = "range" // the 0.8 consumer computes range itself
	}
	auto := r.Chance(60)
	if g.unsafe && g.redeliver {
		auto = true
	}
	cfg := map[string]string{
		"auto.offset.reset":             "earliest",
		"enable.auto.commit":            strconv.FormatBool(auto),
		"auto.commit.interval.ms":       gi.commitMs,
		"partition.assignment.strategy": gi.assignor,
		"session.timeout.ms":            gi.session,
		// The rebalance timeout: a JoinGroup waiting at a coordinator that
		// vanished without a reset (powered off) fails only after it plus
		// 5 s. Kafka's default (5 minutes) is longer than the final
		// phase's bound.
		"max.poll.interval.ms": "45000",
	}
	if zkConsumer {
		delete(cfg, "partition.assignment.strategy")
	}
	var topics []string
	for _, t := range g.topics {
		if r.Chance(70) {
			topics = append(topics, t.name)
		}
	}
	if len(topics) == 0 {
		topics = []string{g.topics[0].name}
	}
	inst := g.staticInstance(gi.name)
	if inst != "" {
		cfg["group.instance.id"] = inst
	}
	manual := !zkConsumer && g.rs.Chance(20)
	if manual {
		cfg["poll"] = "manual"
	}
	if g.rs.Chance(5) {
		// No reset policy: with no committed offset poll throws
		// NoOffsetForPartitionException (a poll=auto application then
		// closes the consumer); with one it starts there.
		cfg["auto.offset.reset"] = "none"
	}
	g.add(core.NewConsumer{Name: name, Group: gi.name, Topics: topics, Configs: cfg})
	g.consumers = append(g.consumers, consumerInfo{name: name, group: gi.name, alive: true, autoCommit: auto, instance: inst, manual: manual})
}

// maybePoll sometimes has a poll=manual consumer poll: a few records, or
// until its timeout (a poll joins or rejoins the group, fetches, and
// auto-commits when the interval has passed). Not inside a power-off
// window, which needs the cluster settled.
func (g *gen) maybePoll() {
	if g.window >= 0 && g.windowBroker > 0 || !g.rs.Chance(30) {
		return
	}
	var manual []int
	for _, i := range g.liveConsumers() {
		if g.consumers[i].manual {
			manual = append(manual, i)
		}
	}
	if len(manual) == 0 {
		return
	}
	c := g.consumers[xrand.Pick(g.rs, manual)]
	g.add(core.Poll{Consumer: c.name, Max: g.rs.Between(1, 20), Timeout: int64(xrand.Pick(g.rs, []int{100, 500, 2000, 10000}))})
}

// staticInstance picks a new group member's group.instance.id (KIP-345,
// 2.3+): mostly none; sometimes the id of a dead member of the group, so
// the new consumer takes its place (and fences it); else a fresh one.
func (g *gen) staticInstance(group string) string {
	if g.version == "0.8" || g.version == "0.11" || !g.rs.Chance(25) {
		return ""
	}
	var free []string
	for _, c := range g.consumers {
		if c.group == group && c.instance != "" && !c.alive && !g.instanceLive(group, c.instance) {
			free = append(free, c.instance)
		}
	}
	if len(free) > 0 && g.rs.Chance(60) {
		return xrand.Pick(g.rs, free)
	}
	return "i" + strconv.Itoa(g.clients)
}

// instanceLive reports whether a live consumer of group uses instance.
func (g *gen) instanceLive(group, instance string) bool {
	for _, c := range g.consumers {
		if c.alive && c.group == group && c.instance == instance {
			return true
		}
	}
	return false
}

func (g *gen) produce() {
	r := g.r
	p := xrand.Pick(r, g.producers)
	t := xrand.Pick(r, g.topics)
	g.values++
	cmd := core.Produce{Producer: p.name, Topic: t.name, Value: "v" + strconv.Itoa(g.values)}
	if n := r.Between(1, 8); n > 1 && r.Chance(50) {
		cmd.Count = n
	}
	if r.Chance(25) {
		k := "k" + strconv.Itoa(r.Intn(5))
		cmd.Key = &k
	} else if r.Chance(20) {
		part := r.Intn(t.parts)
		cmd.Partition = &part
	}
	g.add(cmd)
}

// consumerOpNoCrash starts or closes a consumer.
func (g *gen) consumerOpNoCrash() {
	live := g.liveConsumers()
	if len(live) == 0 || g.r.Chance(50) {
		if len(g.consumers) < 8 {
			g.newConsumer()
		}
		return
	}
	i := xrand.Pick(g.r, live)
	g.add(core.CloseConsumer{Consumer: g.consumers[i].name})
	g.consumers[i].alive = false
}

// consumerOp starts, closes or crashes a consumer.
func (g *gen) consumerOp() {
	r := g.r
	live := g.liveConsumers()
	switch n := r.Intn(10); {
	case n < 4 || len(live) == 0:
		if len(g.consumers) < 8 {
			g.newConsumer()
		}
	case n < 6:
		i := xrand.Pick(r, live)
		g.add(core.CloseConsumer{Consumer: g.consumers[i].name})
		g.consumers[i].alive = false
	default:
		i := xrand.Pick(r, live)
		g.add(core.CrashConsumer{Consumer: g.consumers[i].name})
		g.consumers[i].alive = false
		g.faults++
	}
}
