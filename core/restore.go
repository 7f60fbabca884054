package core

import (
	"fmt"
	"maps"
	"strings"

	"github.com/kafkasim/kafkasim/core/log"
)

// Restoring a cluster from disk (the server's --data-dir). A Kafka broker
// that starts finds its logs in its log.dirs (LogManager.loadLogs) and the
// topics, assignments and leader epochs in the metadata store (ZooKeeper
// or the KRaft metadata log). RestoreTopics is both at once for a cluster
// that was just made: the metadata store gets the topics back, and each
// broker gets the replicas' logs it read from its own directory before
// the controller's LeaderAndIsr reaches it, so from there on the brokers
// do what they do after any restart: followers truncate by leader epoch
// and catch up, producer state is rebuilt from the logs, a coordinator
// reloads its groups from __consumer_offsets.

// RestoredReplica is one broker's copy of a partition as its log
// directory held it.
type RestoredReplica struct {
	Broker int
	// Segments are the recovered segment files, oldest first (see
	// log.Restore for what they must satisfy).
	Segments []log.RestoredSegment
	// Epochs is the leader-epoch-checkpoint.
	Epochs []log.EpochEntry
	// HW is the replication-offset-checkpoint entry; StartOffset the
	// log-start-offset-checkpoint entry.
	HW, StartOffset int64
}

// RestoredTopic is one topic: its definition as the metadata store kept
// it and the replicas the brokers found.
type RestoredTopic struct {
	Topic   string
	Configs map[string]string // the topic's overrides
	Assign  [][]int           // per partition, preferred leader first
	// Leaders and ISRs, when set, are each partition's leader and ISR as
	// the metadata store last had them; the ISR keeps its live members
	// and the leader stays if it is one of them. Unset: every live
	// replica is in the ISR and the first leads, as at creation.
	Leaders []int
	ISRs    [][]int
	// LeaderEpochs, when set, are the partitions' leader epochs as the
	// metadata store last had them.
	LeaderEpochs []int32
	// Replicas lists, per partition, the replicas found on disk; a
	// replica of Assign found nowhere starts empty.
	Replicas [][]RestoredReplica
}

// RestoreTopics recreates topics read back from disk, in order (which
// keeps their topic ids). Each partition's leader epoch starts one above
// its saved epoch and every epoch its replicas' logs and checkpoints
// name: its leadership is new after the restart and must fence
// everything written before it.
// Producer ids handed out from now on are above every producer id in the
// logs (Kafka keeps the allocated block in the metadata store). It fails,
// changing nothing for that topic and stopping there, when a topic
// exists, an assignment or a config is invalid, or a log does not
// restore.
func (c *Cluster) RestoreTopics(ts []RestoredTopic) error {
	for _, rt := range ts {
		if err := c.restoreTopic(rt); err != nil {
			return fmt.Errorf("restoring topic %s: %w", rt.Topic, err)
		}
	}
	return nil
}

func (c *Cluster) restoreTopic(rt RestoredTopic) error {
	if err := validTopicName(rt.Topic); err != nil {
		return err
	}
	if c.topics[rt.Topic] != nil {
		return fmt.Errorf("TOPIC_ALREADY_EXISTS: Topic '%s' already exists.", rt.Topic)
	}
	if len(c.topics) >= MaxTopics {
		return fmt.Errorf("too many topics (limit %d)", MaxTopics)
	}
	if len(rt.Assign) == 0 || len(rt.Assign) > MaxPartitions-c.nparts {
		return fmt.Errorf("INVALID_PARTITIONS: %d partitions", len(rt.Assign))
	}
	if len(rt.Replicas) > len(rt.Assign) {
		return fmt.Errorf("%d partitions of replicas for %d partitions", len(rt.Replicas), len(rt.Assign))
	}
	x := CreateTopic{Topic: rt.Topic, Partitions: len(rt.Assign), RF: len(rt.Assign[0]), Assign: rt.Assign, Configs: rt.Configs}
	assign, err := c.checkAssign(x)
	if err != nil {
		return err
	}
	s, err := c.conf.with(rt.Configs, scopeTopic)
	if err != nil {
		return err
	}
	t := &Topic{Name: rt.Topic, Internal: strings.HasPrefix(rt.Topic, "__"), conf: newTopicConf(s, c.preset), overrides: rt.Configs}
	// Build every log first: a bad one leaves the cluster untouched.
	logs := make([]map[int]*restored, len(assign))
	for i := range rt.Replicas {
		logs[i] = map[int]*restored{}
		for _, rr := range rt.Replicas[i] {
			if !contains(assign[i], rr.Broker) {
				return fmt.Errorf("partition %d: broker %d holds a replica but is not in the assignment %v", i, rr.Broker, assign[i])
			}
			if logs[i][rr.Broker] != nil {
				return fmt.Errorf("partition %d: broker %d given twice", i, rr.Broker)
			}
			if err := checkNullValues(rr.Segments); err != nil {
				return fmt.Errorf("partition %d on broker %d: %w", i, rr.Broker, err)
			}
			l, err := log.Restore(t.conf.log, rr.Segments, rr.StartOffset, c.now)
			if err != nil {
				return fmt.Errorf("partition %d on broker %d: %w", i, rr.Broker, err)
			}
			logs[i][rr.Broker] = &restored{log: l, epochs: rr.Epochs, hw: rr.HW}
		}
	}
	c.topics[t.Name] = t
	c.addTopic(t)
	parts := c.newPartitions(t, assign)
	maxPID := int64(-1)
	for i, p := range parts {
		epoch := int32(-1)
		if i < len(rt.LeaderEpochs) {
			epoch = rt.LeaderEpochs[i]
		}
		for _, id := range p.replicas {
			rs := logs[i][id]
			if rs == nil {
				continue
			}
			b := c.Broker(id)
			r := newReplica(b, p, c.now)
			r.log = rs.log
			p.legacyKeys = p.legacyKeys || t.Name == offsetsTopic && hasLegacyOffsetKeys(rs.log)
			for _, e := range rs.epochs {
				r.epochs.Assign(e.Epoch, e.StartOffset)
			}
			r.epochs.TruncateFromEnd(r.log.LEO())
			r.epochs.TruncateFromStart(r.log.StartOffset())
			for _, bt := range r.log.Batches(r.log.StartOffset()) {
				epoch = max(epoch, bt.Epoch)
				maxPID = max(maxPID, bt.ProducerID)
			}
			if e, ok := r.epochs.Latest(); ok {
				epoch = max(epoch, e)
			}
			b.replicas[p] = r
			b.hwCheckpoint[p] = rs.hw
			r.recover(rs.hw)
		}
		p.state.epoch = epoch + 1
		if i < len(rt.ISRs) {
			c.restoreISR(p, rt.ISRs[i], rt.Leaders)
		}
	}
	if maxPID >= c.md.nextPID {
		c.md.nextPID = maxPID + 1
	}
	c.md.topicCreated(t, parts)
	c.md.propagate(parts, nil)
	c.emit(Event{Type: EvTopic, Topic: t.Name, Replicas: assign, Detail: fmt.Sprintf("restored %s from disk: %d partition(s), RF %d", t.Name, len(assign), len(assign[0]))})
	return nil
}

// hasLegacyOffsetKeys reports whether a __consumer_offsets log holds a
// record keyed as kafkasim keyed them before offsetKey and groupKey:
// "offset" or "group", without the group and partition.
func hasLegacyOffsetKeys(l *log.Log) bool {
	for _, bt := range l.Batches(l.StartOffset()) {
		for i := range bt.Len() {
			if k := bt.Record(i).Key; k == "offset" || k == "group" {
				return true
			}
		}
	}
	return false
}

// checkNullValues refuses a record with a null value and value bytes,
// as checkProduce does: log.Record's invariant is that a null value's
// Value is "", and a file read back from disk (or a restore chunk) is
// outside input that could break it.
func checkNullValues(segs []log.RestoredSegment) error {
	for _, seg := range segs {
		for _, bt := range seg.Batches {
			for i := range bt.Len() {
				if rec := bt.Record(i); rec.NullValue && rec.Value != "" {
					return fmt.Errorf("offset %d: a null value with %d bytes", bt.Offset(i), len(rec.Value))
				}
			}
		}
	}
	return nil
}

// restoreISR sets p's ISR to the live members of isr (if any) and its
// leader to leaders[p.ID] if that is one of them, else the first.
func (c *Cluster) restoreISR(p *Partition, isr []int, leaders []int) {
	var keep []int
	for _, id := range p.replicas {
		if contains(isr, id) && c.md.live(id) {
			keep = append(keep, id)
		}
	}
	if len(keep) == 0 {
		return
	}
	p.state.isr, p.state.leader = keep, keep[0]
	if p.ID < len(leaders) && contains(keep, leaders[p.ID]) {
		p.state.leader = leaders[p.ID]
	}
}

// restored is one replica's log rebuilt from disk, waiting to be installed.
type restored struct {
	log    *log.Log
	epochs []log.EpochEntry
	hw     int64
}

func contains(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// TopicID is the topic id Metadata advertises for topic (what
// partition.metadata records), if the topic exists.
func (c *Cluster) TopicID(topic string) ([16]byte, bool) {
	t := c.topics[topic]
	if t == nil {
		return [16]byte{}, false
	}
	return t.id(), true
}

// ClusterID is the cluster's id (meta.properties' cluster.id).
func (c *Cluster) ClusterID() string { return c.clusterID() }

// Overrides returns a copy of the topic's config overrides (what
// CreateTopic.Configs and later alterations set).
func (t *Topic) Overrides() map[string]string { return maps.Clone(t.overrides) }

// Settings returns a copy of what `set` gave the cluster (its brokers'
// server.properties and the simulated OS's knobs): a restart applies
// them again before the topics come back.
func (c *Cluster) Settings() map[string]string { return maps.Clone(c.userSet) }

// EpochsVersion counts the changes to the replica's leader epoch cache
// (see log.EpochCache.Version).
func (r *Replica) EpochsVersion() uint64 { return r.epochs.Version() }
