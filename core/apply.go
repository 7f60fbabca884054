package core

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
)

// Apply validates and executes one command at the current instant; it
// never advances virtual time and never fires a timer. A command that
// fails changes nothing and returns an error saying why; Apply never
// panics on bad input. Commands are values (Produce{...}); a pointer to
// one (&Produce{...}) is the same command.
//
// Wait, Settle, Poll and Commit block in virtual time: Apply starts them
// and returns with the operation in progress (Pending), and the driver
// runs Advance until it completes (Advance returns its Done); Exec does
// both. A Poll or Commit that can complete at once (records already
// fetched) does so inside Apply and returns its result. While one is in
// progress another is refused; other commands act at once as usual.
//
// Every command received is logged with its position (CommandLog), so
// Replay can rebuild the cluster at any moment.
func (c *Cluster) Apply(cmd Command) error {
	cmd, err := valueCommand(cmd)
	if err != nil {
		return err
	}
	c.logCommand(cmd)
	if o := c.pending; o != nil && blocking(cmd) {
		return fmt.Errorf("%s is in progress until t=%s: advance time until it completes first", o.Cmd.Kind(), FormatTime(o.Deadline))
	}
	return c.apply(cmd)
}

// valueCommand returns the value command a pointer command points to, and
// a value command as it is.
func valueCommand(cmd Command) (Command, error) {
	if cmd == nil {
		return nil, fmt.Errorf("nil command")
	}
	v := reflect.ValueOf(cmd)
	if v.Kind() != reflect.Pointer {
		return cmd, nil
	}
	if v.IsNil() {
		return nil, fmt.Errorf("nil %T command", cmd)
	}
	if e, ok := v.Elem().Interface().(Command); ok {
		return e, nil
	}
	return nil, fmt.Errorf("unknown command %T", cmd)
}

func (c *Cluster) apply(cmd Command) error {
	switch x := cmd.(type) {
	case CreateTopic:
		return c.createTopic(x, true)
	case AlterTopic:
		return c.alterTopic(x)
	case AlterTopicConfigs:
		return c.alterTopicConfigs(x)
	case ElectLeaders:
		return c.electLeaders(x)
	case DeleteRecords:
		return c.deleteRecords(x)
	case DeleteTopic:
		return c.deleteTopic(x.Topic)
	case Set:
		return c.set(x)
	case NewProducer:
		return c.newProducer(x)
	case Produce:
		p := c.producers[x.Producer]
		if p == nil {
			return fmt.Errorf("unknown producer %q", x.Producer)
		}
		return p.send(x)
	case NewConsumer:
		return c.newConsumer(x)
	case Assign:
		return c.assign(x)
	case Poll:
		return c.poll(x)
	case Commit:
		return c.commit(x)
	case CloseConsumer:
		return c.closeConsumer(x.Consumer, false)
	case CrashConsumer:
		return c.closeConsumer(x.Consumer, true)
	case CrashBroker:
		return c.withBroker(x.Broker, func(b *Broker) error { return b.crash(false) })
	case PowerOff:
		return c.withBroker(x.Broker, func(b *Broker) error { return b.crash(true) })
	case Restart:
		return c.withBroker(x.Broker, (*Broker).restart)
	case Pause:
		return c.withBroker(x.Broker, (*Broker).pause)
	case Resume:
		return c.withBroker(x.Broker, (*Broker).resume)
	case NetSplit:
		if len(x.Groups) < 2 {
			return fmt.Errorf("net split needs at least two groups")
		}
		return c.net.split(x.Groups)
	case NetHeal:
		c.net.heal()
		return nil
	case NetDelay:
		return c.netLink(x.From, x.To, func(l *link) string {
			l.delay = x.Delay
			return fmt.Sprintf("delay %s -> %s by %d ms", x.From, x.To, x.Delay)
		}, x.Delay < 0 || x.Delay > MaxNetDelay)
	case NetDrop:
		return c.netLink(x.From, x.To, func(l *link) string {
			if x.Count <= 0 {
				l.dropAll = true
				return fmt.Sprintf("drop everything %s -> %s", x.From, x.To)
			}
			l.drop += x.Count
			return fmt.Sprintf("drop the next %d message(s) %s -> %s", x.Count, x.From, x.To)
		}, x.Count < 0 || x.Count > MaxCount)
	case Wait:
		if x.Duration < 0 || x.Duration > MaxWait {
			return fmt.Errorf("wait %d ms: want 0 to 24 hours", x.Duration)
		}
		return c.start(x, x.Duration, &op{})
	case Settle:
		return c.settle(x)
	case connCommand:
		return x.applyConn(c)
	}
	return fmt.Errorf("unknown command %T", cmd)
}

func (c *Cluster) withBroker(id int, fn func(*Broker) error) error {
	b := c.Broker(id)
	if b == nil {
		return fmt.Errorf("no broker %d (brokers are 1..%d)", id, len(c.brokers))
	}
	return fn(b)
}

func (c *Cluster) netLink(from, to string, fn func(*link) string, bad bool) error {
	if bad {
		return fmt.Errorf("value out of range")
	}
	f, err := c.net.host(from)
	if err != nil {
		return err
	}
	t, err := c.net.host(to)
	if err != nil {
		return err
	}
	if f == t {
		return fmt.Errorf("%s -> %s: a host has no link to itself", from, to)
	}
	c.emit(Event{Type: EvNet, Detail: fn(c.net.link(f, t))})
	return nil
}

// set changes cluster-wide defaults. Broker settings apply at once; topic
// settings to topics without their own override; client settings to
// clients created afterwards.
func (c *Cluster) set(x Set) error {
	if len(x.Configs) == 0 {
		return fmt.Errorf("set: nothing to set")
	}
	s, err := c.conf.with(x.Configs)
	if err != nil {
		return err
	}
	c.conf = s
	for _, k := range slices.Sorted(maps.Keys(x.Configs)) {
		ck, _ := canonical(k, x.Configs[k])
		c.userSet[ck] = x.Configs[k]
	}
	old := c.bc
	c.bc = newBrokerConf(s)
	if c.bc.autoRebalance != old.autoRebalance || c.bc.imbalanceCheckMs != old.imbalanceCheckMs {
		c.md.leaderBalanceConfChanged()
	}
	if c.bc.uncleanCheckMs != old.uncleanCheckMs {
		c.md.uncleanConfChanged()
	}
	if c.bc != old {
		hb := c.bc.zkSessionMs != old.zkSessionMs || c.bc.brokerHeartbeatMs != old.brokerHeartbeatMs
		for _, b := range c.brokers {
			if b.processUp() {
				b.startPeriodic()
				if hb {
					b.nextHeartbeat()
				}
			}
		}
	}
	for _, t := range c.order {
		ts, _ := s.with(t.overrides)
		t.conf = newTopicConf(ts, c.preset)
	}
	return nil
}

// maxClientName bounds a client name (in bytes).
const maxClientName = 64

func (c *Cluster) checkClientName(name string) error {
	switch {
	case name == "" || len(name) > maxClientName:
		return fmt.Errorf("client name %q: want 1 to %d characters", name, maxClientName)
	case strings.ContainsAny(name, " \t,|=#@"):
		return fmt.Errorf("client name %q: no spaces or , | = # @", name)
	case name[0] >= '0' && name[0] <= '9':
		return fmt.Errorf("client name %q: must not start with a digit (broker ids are numbers)", name)
	case c.net.byName[name] != nil:
		return fmt.Errorf("name %q is already taken", name)
	case len(c.clients) >= MaxClients:
		return fmt.Errorf("too many clients (limit %d)", MaxClients)
	}
	return nil
}

// createTopic is the controller's topic creation: placement, the topic and
// partition state znodes (or records), then LeaderAndIsr to the replicas.
// Every replica starts in the ISR with the first replica as leader.
func (c *Cluster) createTopic(x CreateTopic, user bool) error {
	s, err := c.checkCreateTopic(x)
	if err != nil {
		return err
	}
	assign, err := c.placement(x)
	if err != nil {
		return err
	}
	t := &Topic{Name: x.Topic, Internal: strings.HasPrefix(x.Topic, "__"), conf: newTopicConf(s, c.preset), overrides: x.Configs}
	c.topics[x.Topic] = t
	c.addTopic(t)
	c.addPartitions(t, assign)
	c.emit(Event{Type: EvTopic, Topic: t.Name, Replicas: assign, Detail: fmt.Sprintf("created %s: %d partition(s), RF %d", t.Name, x.Partitions, x.RF)})
	return nil
}

// checkCreateTopic is createTopic's checks before placement: the name, a
// topic of that name, the limits, partitions, replication factor and
// configs; it returns the topic's settings.
func (c *Cluster) checkCreateTopic(x CreateTopic) (settings, error) {
	if err := validTopicName(x.Topic); err != nil {
		// Kafka: Topic.validate's InvalidTopicException, answered
		// INVALID_TOPIC_EXCEPTION (ReplicationControlManager.
		// validateNewTopicNames, AdminZkClient.validateTopicCreate).
		return settings{}, fmt.Errorf("INVALID_TOPIC_EXCEPTION: %w", err)
	}
	if t := c.topics[x.Topic]; t != nil && t.del != nil {
		return settings{}, fmt.Errorf("TOPIC_ALREADY_EXISTS: Topic '%s' is marked for deletion.", x.Topic)
	} else if t != nil {
		return settings{}, fmt.Errorf("TOPIC_ALREADY_EXISTS: Topic '%s' already exists.", x.Topic)
	}
	if len(c.topics) >= MaxTopics {
		return settings{}, fmt.Errorf("too many topics (limit %d)", MaxTopics)
	}
	if x.Partitions < 1 || x.Partitions > MaxPartitions-c.nparts { // (no overflow: both sides bounded)
		return settings{}, fmt.Errorf("INVALID_PARTITIONS: partitions=%d (want 1 or more, at most %d in the cluster)", x.Partitions, MaxPartitions)
	}
	if x.RF < 1 {
		return settings{}, fmt.Errorf("INVALID_REPLICATION_FACTOR: Replication factor must be larger than 0.")
	}
	return c.conf.with(x.Configs, scopeTopic)
}

// ValidateCreateTopic answers whether x would be created, with the error
// createTopic would give, and changes nothing: CreateTopics with
// validate_only (KIP-108), which Kafka runs through every check of a real
// creation, placement included, and then drops the records
// (ReplicationControlManager.createTopics; ZooKeeper mode:
// ZkAdminManager.createTopics, which stops before writing the znodes).
func (c *Cluster) ValidateCreateTopic(x CreateTopic) error {
	if _, err := c.checkCreateTopic(x); err != nil {
		return err
	}
	if len(x.Assign) > 0 {
		_, err := c.checkAssign(x)
		return err
	}
	live := c.md.liveIDs()
	if c.md.kraft && c.preset.placeFenced {
		return c.checkFencedPlacement(live, x.RF)
	}
	return c.checkLivePlacement(live, x.RF)
}

// placement returns the replica assignment, explicit or by Kafka's placer.
func (c *Cluster) placement(x CreateTopic) ([][]int, error) {
	if len(x.Assign) > 0 {
		return c.checkAssign(x)
	}
	live := c.md.liveIDs()
	if c.md.kraft && c.preset.placeFenced {
		return c.placeWithFenced(live, x.Partitions, x.RF, -1, 0)
	}
	if err := c.checkLivePlacement(live, x.RF); err != nil {
		return nil, err
	}
	return placeReplicas(live, c.racks(live), x.Partitions, x.RF, -1, 0, c.rng), nil
}

// checkLivePlacement is the placer's check that rf live brokers exist
// (ZooKeeper's AdminUtils.assignReplicasToBrokers; KRaft before
// placeFenced, 2.8: SimpleReplicaPlacementPolicy.createPlacement's "there
// are only %d usable brokers", wrapped by
// ReplicationControlManager.createTopic@2.8.2).
func (c *Cluster) checkLivePlacement(live []int, rf int) error {
	if rf <= len(live) {
		return nil
	}
	if c.md.kraft {
		return fmt.Errorf("INVALID_REPLICATION_FACTOR: Unable to replicate the partition %d times: there are only %d usable brokers", rf, len(live))
	}
	return fmt.Errorf("INVALID_REPLICATION_FACTOR: Replication factor: %d larger than available brokers: %d.", rf, len(live))
}

// checkFencedPlacement is placeWithFenced's checks: rf registered
// brokers, at least one of them unfenced.
func (c *Cluster) checkFencedPlacement(live []int, rf int) error {
	if all := c.md.registeredIDs(); rf > len(all) {
		return fmt.Errorf("INVALID_REPLICATION_FACTOR: The target replication factor of %d cannot be reached because only %d broker(s) are registered.", rf, len(all))
	}
	if len(live) == 0 {
		return fmt.Errorf("INVALID_REPLICATION_FACTOR: All brokers are currently fenced.")
	}
	return nil
}

// placeWithFenced is 3.x KRaft placement (StripedReplicaPlacer.place): the
// replication factor is checked against every registered broker, fenced
// ones included; at least one must be unfenced; fenced brokers take
// replicas only when the unfenced ones run out, and never the first
// (leader) place. The ISR starts as the unfenced replicas.
func (c *Cluster) placeWithFenced(live []int, nParts, rf, start, firstPart int) ([][]int, error) {
	if err := c.checkFencedPlacement(live, rf); err != nil {
		return nil, err
	}
	all := c.md.registeredIDs()
	if start >= len(live) {
		start = 0
	}
	if rf <= len(live) {
		return placeReplicas(live, c.racks(live), nParts, rf, start, firstPart, c.rng), nil
	}
	var fenced []int
	for _, id := range all {
		if !c.md.live(id) {
			fenced = append(fenced, id)
		}
	}
	out := placeReplicas(live, c.racks(live), nParts, len(live), start, firstPart, c.rng)
	for i := range out {
		for k := 0; len(out[i]) < rf; k++ {
			out[i] = append(out[i], fenced[(i+k)%len(fenced)])
		}
	}
	return out, nil
}

func (c *Cluster) checkAssign(x CreateTopic) ([][]int, error) {
	if len(x.Assign) != x.Partitions {
		return nil, fmt.Errorf("assign: %d replica lists for %d partitions", len(x.Assign), x.Partitions)
	}
	for i, reps := range x.Assign {
		if len(reps) != x.RF {
			return nil, fmt.Errorf("assign: partition %d has %d replicas, rf=%d", i, len(reps), x.RF)
		}
		seen := map[int]bool{}
		for _, id := range reps {
			if c.Broker(id) == nil {
				return nil, fmt.Errorf("assign: partition %d: no broker %d", i, id)
			}
			if seen[id] {
				return nil, fmt.Errorf("assign: partition %d lists broker %d twice", i, id)
			}
			seen[id] = true
		}
	}
	out := make([][]int, len(x.Assign))
	for i := range x.Assign {
		out[i] = append([]int(nil), x.Assign[i]...)
	}
	return out, nil
}

func (c *Cluster) racks(ids []int) map[int]string {
	if len(c.opts.Racks) == 0 {
		return nil
	}
	m := map[int]string{}
	for _, id := range ids {
		m[id] = c.brokers[id-1].Rack
	}
	return m
}

// addPartitions creates partitions with the given replica lists: state
// leader = first live replica, ISR = live replicas, then LeaderAndIsr.
func (c *Cluster) addPartitions(t *Topic, assign [][]int) {
	parts := c.newPartitions(t, assign)
	c.md.topicCreated(t, parts)
	c.md.propagate(parts, nil)
}

// newPartitions makes t's partitions with the given replica lists: state
// leader = first live replica, ISR = live replicas; nothing is published.
func (c *Cluster) newPartitions(t *Topic, assign [][]int) []*Partition {
	md := c.md
	var parts []*Partition
	for _, reps := range assign {
		p := &Partition{Topic: t, ID: len(t.parts), replicas: reps}
		p.Name = partitionName(t.Name, p.ID)
		var isr []int
		for _, id := range reps {
			if md.live(id) {
				isr = append(isr, id)
			}
		}
		leader := -1
		if len(isr) > 0 {
			leader = isr[0]
		}
		p.state = pstate{leader: leader, isr: isr}
		t.parts = append(t.parts, p)
		parts = append(parts, p)
		c.nparts++
	}
	return parts
}

// alterTopic adds partitions (AdminZkClient.addPartitions: placement
// continues from partition 0's first replica).
func (c *Cluster) alterTopic(x AlterTopic) error {
	t, err := c.checkAlterTopic(x)
	if err != nil {
		return err
	}
	cur := len(t.parts)
	rf := len(t.parts[0].replicas)
	live := c.md.liveIDs()
	start := sort.SearchInts(live, t.parts[0].replicas[0])
	if start >= len(live) || live[start] != t.parts[0].replicas[0] {
		start = 0
	}
	var assign [][]int
	if c.md.kraft && c.preset.placeFenced {
		a, err := c.placeWithFenced(live, x.Partitions-cur, rf, start, cur)
		if err != nil {
			return err
		}
		assign = a
	} else {
		if err := c.checkLivePlacement(live, rf); err != nil {
			return err
		}
		assign = placeReplicas(live, c.racks(live), x.Partitions-cur, rf, start, cur, c.rng)
	}
	c.addPartitions(t, assign)
	c.emit(Event{Type: EvTopicAlter, Topic: t.Name, Replicas: assign, Detail: fmt.Sprintf("%s now has %d partitions", t.Name, x.Partitions)})
	return nil
}

// checkAlterTopic is alterTopic's checks before placement: the topic, its
// deletion, the count and the limit.
func (c *Cluster) checkAlterTopic(x AlterTopic) (*Topic, error) {
	t := c.topics[x.Topic]
	if t == nil {
		return nil, fmt.Errorf("UNKNOWN_TOPIC_OR_PARTITION: topic %q does not exist", x.Topic)
	}
	if t.del != nil {
		return nil, fmt.Errorf("INVALID_TOPIC_EXCEPTION: The topic %s is queued for deletion.", x.Topic)
	}
	cur := len(t.parts)
	if x.Partitions <= cur {
		return nil, fmt.Errorf("INVALID_PARTITIONS: Topic currently has %d partitions, %d would not be an increase.", cur, x.Partitions)
	}
	if x.Partitions-cur > MaxPartitions-c.nparts {
		return nil, fmt.Errorf("INVALID_PARTITIONS: over the limit of %d partitions", MaxPartitions)
	}
	return t, nil
}

// ValidateAlterTopic answers whether x would be applied, with the error
// alterTopic would give, and changes nothing: CreatePartitions with
// validate_only (KIP-195), which Kafka runs through the same checks and
// placement before dropping the records (QuorumController.createPartitions;
// ZooKeeper mode: AdminZkClient.createPartitions, which returns before
// writing the assignment).
func (c *Cluster) ValidateAlterTopic(x AlterTopic) error {
	t, err := c.checkAlterTopic(x)
	if err != nil {
		return err
	}
	rf, live := len(t.parts[0].replicas), c.md.liveIDs()
	if c.md.kraft && c.preset.placeFenced {
		return c.checkFencedPlacement(live, rf)
	}
	return c.checkLivePlacement(live, rf)
}

func (c *Cluster) assign(x Assign) error {
	k := c.consumers[x.Consumer]
	if k == nil {
		return fmt.Errorf("unknown consumer %q", x.Consumer)
	}
	if !k.alive {
		return fmt.Errorf("consumer %s is closed", k.Name)
	}
	m, classic := k.member.(*member)
	if k.member != nil && !classic {
		return fmt.Errorf("consumer %s is in group %s: assign is for consumers without a ZooKeeper group here", k.Name, k.Group)
	}
	var parts []*Partition
	for _, name := range x.Partitions {
		p, err := c.Partition(name)
		if err != nil {
			return err
		}
		parts = append(parts, p)
	}
	if classic {
		return m.manualAssign(parts)
	}
	k.assign(parts)
	return nil
}
