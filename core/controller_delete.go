package core

import (
	"fmt"
	"slices"
	"strings"
)

// Topic deletion (DeleteTopic; docs/fidelity.md).
//
// ZooKeeper mode follows Kafka's TopicDeletionManager: the request only
// creates /admin/delete_topics/<name> (AdminZkClient.deleteTopic); the
// controller, told by its watch, tells every broker to stop serving the
// topic (UpdateMetadata with LeaderDuringDelete: ZkMetadataCache drops the
// partitions, and the group coordinators drop the offsets they hold), then
// sends StopReplica(deletePartition=true) to each replica's broker. A
// replica whose broker is offline goes to ReplicaDeletionIneligible and
// the topic is ineligible: its deletion waits until that broker returns
// (KafkaController.onBrokerStartup resumes it). Once every replica is
// ReplicaDeletionSuccessful the controller removes /brokers/topics/<name>,
// /config/topics/<name> and /admin/delete_topics/<name>
// (completeDeleteTopic). KRaft (ReplicationControlManager.deleteTopic)
// writes a RemoveTopicRecord: the topic is gone at once, and each broker
// drops its replicas when it applies the record, or, if it was down, when
// it comes back and finds them stray.

// topicDeletion is the ZooKeeper controller's state of one topic queued
// for deletion: each replica's deletion state, whether deletion has begun
// (brokers told to stop serving it), and whether it is ineligible (a
// replica's broker is offline).
type topicDeletion struct {
	states     map[*Partition]map[int]replicaDelState // partition -> broker -> state
	begun      bool
	ineligible bool
}

// replicaDelState is a replica's place in ReplicaStateMachine's deletion
// states: replicaOnline stands for OnlineReplica and OfflineReplica (not
// asked to delete yet, or to be asked again).
type replicaDelState uint8

const (
	replicaOnline replicaDelState = iota
	replicaDeletionStarted
	replicaDeletionSuccessful
	replicaDeletionIneligible
)

func newTopicDeletion(t *Topic) *topicDeletion {
	d := &topicDeletion{states: map[*Partition]map[int]replicaDelState{}}
	for _, p := range t.parts {
		d.states[p] = map[int]replicaDelState{}
		for _, id := range p.replicas {
			d.states[p][id] = replicaOnline
		}
	}
	return d
}

// each calls fn for every replica of t in partition and assignment order.
func (d *topicDeletion) each(t *Topic, fn func(p *Partition, broker int, st replicaDelState)) {
	for _, p := range t.parts {
		for _, id := range p.replicas {
			fn(p, id, d.states[p][id])
		}
	}
}

func (d *topicDeletion) count(t *Topic, st replicaDelState) (n, total int) {
	d.each(t, func(_ *Partition, _ int, s replicaDelState) {
		total++
		if s == st {
			n++
		}
	})
	return n, total
}

// deleteTopic is the DeleteTopic command.
func (c *Cluster) deleteTopic(name string) error {
	t, err := c.deletable(name)
	if err != nil {
		return err
	}
	if t.del != nil {
		return fmt.Errorf("topic %s is already marked for deletion (/admin/delete_topics/%s): its deletion is under way", name, name)
	}
	c.markForDeletion(t)
	return nil
}

// deletable returns the topic DeleteTopics may delete, or Kafka's error
// ("NAME: message"). A topic already marked for deletion is returned as
// it is (Kafka swallows TopicAlreadyMarkedForDeletionException and waits
// for the deletion again).
func (c *Cluster) deletable(name string) (*Topic, error) {
	t := c.topics[name]
	switch {
	case !c.bc.deleteTopicEnable:
		return nil, fmt.Errorf("TOPIC_DELETION_DISABLED: Topic deletion is disabled (delete.topic.enable=false%s).", c.deleteDefaultNote())
	case t == nil:
		return nil, fmt.Errorf("UNKNOWN_TOPIC_OR_PARTITION: Topic `%s` to delete does not exist", name)
	case name == offsetsTopic:
		// kafka-topics.sh refuses it (TopicCommand: "is a kafka internal
		// topic and is not allowed to be marked for deletion"); the
		// simulated coordinators cannot run without it.
		return nil, fmt.Errorf("INVALID_REQUEST: Topic %s is a kafka internal topic and is not allowed to be marked for deletion.", name)
	}
	return t, nil
}

func (c *Cluster) deleteDefaultNote() string {
	if _, set := c.userSet["delete.topic.enable"]; set {
		return ""
	}
	return fmt.Sprintf(", the default of version %s: true only from 1.0, KAFKA-5384", c.preset.name)
}

// markForDeletion starts t's deletion: /admin/delete_topics/<name> and the
// controller's watch (ZooKeeper), or the RemoveTopicRecord (KRaft).
func (c *Cluster) markForDeletion(t *Topic) {
	m := c.md
	if m.kraft {
		m.log(fmt.Sprintf("RemoveTopicRecord name=%s topicId=%x", t.Name, t.id()))
		c.emit(Event{Type: EvTopicDelete, Topic: t.Name, State: DeleteDeleted, Detail: fmt.Sprintf("RemoveTopicRecord: %s deleted; brokers drop its replicas as they apply the record", t.Name)})
		c.removeTopic(t)
		for _, id := range m.registeredIDs() {
			m.sendRemoval(c.Broker(id), t.parts)
		}
		return
	}
	m.zk.create("/admin/delete_topics/"+t.Name, "", "")
	t.del = newTopicDeletion(t)
	c.emit(Event{Type: EvTopicDelete, Topic: t.Name, State: DeleteMarked, Detail: fmt.Sprintf("%s marked for deletion (/admin/delete_topics/%s)", t.Name, t.Name)})
	m.notifyController(m.processTopicDeletion)
}

// Event.State of EvTopicDelete.
const (
	DeleteMarked   = "marked"          // ZK: /admin/delete_topics/<name> created
	DeleteStarted  = "started"         // ZK: brokers told to stop serving it, StopReplica sent
	DeleteWaiting  = "waiting"         // ZK: ineligible, a replica's broker is offline
	DeleteReplica  = "replica-deleted" // a broker deleted its replica (Partition, Broker)
	DeleteDeleted  = "deleted"         // the topic is gone
	DeleteDisabled = "disabled"        // ZK: delete.topic.enable=false: the mark was removed
)

// processTopicDeletion is KafkaController.processTopicDeletion: the
// /admin/delete_topics watch fired.
func (m *metadata) processTopicDeletion() {
	if !m.c.bc.deleteTopicEnable {
		for _, t := range m.deletingTopics() {
			m.zk.delete("/admin/delete_topics/" + t.Name)
			t.del = nil
			m.c.emit(Event{Type: EvTopicDelete, Topic: t.Name, State: DeleteDisabled, Detail: "delete.topic.enable=false: the controller removed /admin/delete_topics/" + t.Name})
		}
		return
	}
	m.resumeDeletions()
}

func (m *metadata) deletingTopics() []*Topic {
	var out []*Topic
	for _, t := range m.c.order {
		if t.del != nil {
			out = append(out, t)
		}
	}
	return out
}

// replicaOnline reports whether the controller counts broker id as live
// (ControllerContext.isReplicaOnline: in liveBrokerIds).
func (m *metadata) replicaOnline(id int) bool {
	reg, ok := m.registered[id]
	return ok && m.known[id] == reg && m.live(id)
}

// resumeDeletions is TopicDeletionManager.resumeDeletions.
func (m *metadata) resumeDeletions() {
	if !m.kraft && m.controller == 0 {
		return // no controller: the next one reads /admin/delete_topics (deletionsOnFailover)
	}
	for _, t := range m.deletingTopics() {
		d := t.del
		done, total := d.count(t, replicaDeletionSuccessful)
		if done == total {
			m.completeDeleteTopic(t)
			continue
		}
		started, _ := d.count(t, replicaDeletionStarted)
		if started > 0 {
			continue
		}
		if failed, _ := d.count(t, replicaDeletionIneligible); failed > 0 {
			// retryDeletionForIneligibleReplicas: back to OfflineReplica.
			d.each(t, func(p *Partition, id int, st replicaDelState) {
				if st == replicaDeletionIneligible {
					d.states[p][id] = replicaOnline
				}
			})
		}
		if !d.ineligible {
			m.onTopicDeletion(t)
		}
	}
}

// onTopicDeletion tells every broker to stop serving t (UpdateMetadata
// with LeaderDuringDelete), then asks its replicas' brokers to delete them.
func (m *metadata) onTopicDeletion(t *Topic) {
	d := t.del
	if !d.begun {
		d.begun = true
		m.c.emit(Event{Type: EvTopicDelete, Topic: t.Name, State: DeleteStarted, Broker: m.controller,
			Detail: fmt.Sprintf("deletion of %s started: brokers stop serving it (UpdateMetadata, leader -2) and delete their replicas (StopReplica)", t.Name)})
	}
	for _, id := range m.registeredIDs() {
		if m.known[id] == m.registered[id] {
			b := m.c.Broker(id)
			parts := t.parts
			m.sendToBroker(b, "UpdateMetadata", func() { b.forgetPartitions(parts) }, nil)
		}
	}
	m.onPartitionDeletion(t)
}

// onPartitionDeletion: replicas on live brokers go to
// ReplicaDeletionStarted with a StopReplica(deletePartition=true); those
// on offline brokers to ReplicaDeletionIneligible, and the topic waits.
func (m *metadata) onPartitionDeletion(t *Topic) {
	d := t.del
	byBroker := map[int][]*Partition{}
	var dead []int
	d.each(t, func(p *Partition, id int, st replicaDelState) {
		switch {
		case st == replicaDeletionSuccessful:
		case !m.replicaOnline(id):
			d.states[p][id] = replicaDeletionIneligible
			if !slices.Contains(dead, id) {
				dead = append(dead, id)
			}
		default:
			d.states[p][id] = replicaDeletionStarted
			byBroker[id] = append(byBroker[id], p)
		}
	})
	for _, id := range m.registeredIDs() {
		if parts := byBroker[id]; len(parts) > 0 {
			m.sendStopReplica(m.c.Broker(id), t, parts)
		}
	}
	if len(dead) > 0 {
		slices.Sort(dead)
		d.ineligible = true
		m.c.emit(Event{Type: EvTopicDelete, Topic: t.Name, State: DeleteWaiting, Broker: m.controller,
			Detail: fmt.Sprintf("deletion of %s waits: broker(s) %s offline (their replicas are ReplicaDeletionIneligible until they return)", t.Name, joinInts(dead))})
	}
}

// sendStopReplica sends StopReplica(deletePartition=true) for parts to b;
// its answer moves the replicas to ReplicaDeletionSuccessful.
func (m *metadata) sendStopReplica(b *Broker, t *Topic, parts []*Partition) {
	ctrl, epoch := m.controller, m.ctrlEpoch
	m.sendToBroker(b, "StopReplica", func() { b.deleteReplicas(parts) }, func() {
		if m.controller != ctrl || m.ctrlEpoch != epoch || t.del == nil {
			return
		}
		for _, p := range parts {
			if t.del.states[p][b.ID] == replicaDeletionStarted {
				t.del.states[p][b.ID] = replicaDeletionSuccessful
			}
		}
		m.resumeDeletions()
	})
}

// sendToBroker sends a controller request to b's current process and, on
// arrival, runs deliver there; answered, if set, runs when the response is
// back at the controller. Like sendState it is sent again every
// zkStateResendMs until answered, while the process, its registration and
// the controller last (the controller's RequestSendThread).
func (m *metadata) sendToBroker(b *Broker, kind string, deliver, answered func()) {
	inc := b.incarnation
	if m.registered[b.ID] != inc+1 {
		return
	}
	ctrl, epoch := m.controller, m.ctrlEpoch
	from := m.ctrlNode()
	if from == nil {
		return
	}
	got := false
	var try func()
	try = func() {
		m.c.net.send(from, b.node, kind, func() {
			if b.incarnation != inc || epoch < b.ctrlEpoch && !m.kraft {
				return
			}
			deliver()
			m.c.net.send(b.node, from, kind+"Response", func() {
				if !got {
					got = true
					if answered != nil {
						answered()
					}
				}
			}, nil)
		}, nil)
		again := func() {
			if !got && b.incarnation == inc && m.registered[b.ID] == inc+1 && m.controller == ctrl && m.ctrlEpoch == epoch && m.ctrlNode() == from {
				try()
			}
		}
		if m.kraft {
			m.c.after(kraftStateResendMs, again)
		} else {
			m.c.Broker(ctrl).after(zkStateResendMs, again)
		}
	}
	try()
}

// sendRemoval tells b that parts are gone (KRaft: the RemoveTopicRecord it
// fetches, or its stray logs on restart): the cache forgets them and the
// replicas are deleted.
func (m *metadata) sendRemoval(b *Broker, parts []*Partition) {
	m.sendToBroker(b, "MetadataUpdate", func() {
		b.forgetPartitions(parts)
		b.deleteReplicas(parts)
	}, nil)
}

// completeDeleteTopic is TopicDeletionManager.completeDeleteTopic: every
// replica is deleted; the topic's znodes go and the topic with them.
func (m *metadata) completeDeleteTopic(t *Topic) {
	z := m.zk
	z.delete("/brokers/topics/" + t.Name)
	z.delete("/config/topics/" + t.Name)
	z.delete("/admin/delete_topics/" + t.Name)
	m.c.emit(Event{Type: EvTopicDelete, Topic: t.Name, State: DeleteDeleted, Broker: m.controller,
		Detail: fmt.Sprintf("deletion of %s completed: /brokers/topics/%s and /admin/delete_topics/%s removed", t.Name, t.Name, t.Name)})
	m.c.removeTopic(t)
}

// removeTopic forgets a deleted topic: a topic of the same name may be
// created again (with a new id and generation).
func (c *Cluster) removeTopic(t *Topic) {
	if c.topics[t.Name] == t {
		delete(c.topics, t.Name)
	}
	c.order = slices.DeleteFunc(slices.Clone(c.order), func(x *Topic) bool { return x == t })
	c.nparts -= len(t.parts)
	c.deletions[t.Name]++
	t.deleted, t.del = true, nil
}

// addTopic appends a new topic to the creation order.
func (c *Cluster) addTopic(t *Topic) {
	t.seq, t.gen = c.created, c.deletions[t.Name]
	t.idv = topicID(t.Name, t.seq)
	c.created++
	c.order = append(c.order, t)
}

// deletionsOnFailure: broker id went offline. Its replicas of topics being
// deleted become ReplicaDeletionIneligible and those topics wait for it
// (TopicDeletionManager.failReplicaDeletion).
func (m *metadata) deletionsOnFailure(id int) {
	for _, t := range m.deletingTopics() {
		hit := false
		t.del.each(t, func(p *Partition, b int, st replicaDelState) {
			if b == id && st != replicaDeletionSuccessful {
				t.del.states[p][b] = replicaDeletionIneligible
				hit = true
			}
		})
		if hit {
			t.del.ineligible = true
		}
	}
	m.resumeDeletions()
}

// deletionsOnStartup: broker id is back. Deletions waiting for it resume
// (KafkaController.onBrokerStartup: resumeDeletionForTopics), and replicas
// it holds of topics deleted meanwhile are stray: deleted (KRaft's stray
// log detection; a ZooKeeper deletion cannot complete without it).
func (m *metadata) deletionsOnStartup(id int) {
	b := m.c.Broker(id)
	if stray := b.strayPartitions(); len(stray) > 0 {
		m.sendRemoval(b, stray)
	}
	for _, t := range m.deletingTopics() {
		if slices.ContainsFunc(t.parts, func(p *Partition) bool { return slices.Contains(p.replicas, id) }) {
			t.del.ineligible = false
		}
	}
	m.resumeDeletions()
}

// deletionsOnFailover: a new ZooKeeper controller reads /admin/delete_topics
// (TopicDeletionManager.init): replicas on offline brokers are
// ineligible, the rest start again.
func (m *metadata) deletionsOnFailover() {
	for _, t := range m.deletingTopics() {
		t.del = newTopicDeletion(t)
		var dead []int
		t.del.each(t, func(p *Partition, id int, _ replicaDelState) {
			if !m.replicaOnline(id) {
				t.del.states[p][id] = replicaDeletionIneligible
				t.del.ineligible = true
				if !slices.Contains(dead, id) {
					dead = append(dead, id)
				}
			}
		})
		if len(dead) > 0 {
			slices.Sort(dead)
			m.c.emit(Event{Type: EvTopicDelete, Topic: t.Name, State: DeleteWaiting, Broker: m.controller,
				Detail: fmt.Sprintf("controller %d takes over the deletion of %s: it waits for broker(s) %s (offline)", m.controller, t.Name, joinInts(dead))})
		}
	}
	m.resumeDeletions()
}

// deletionText describes t's deletion under way, for print: how many
// replicas are deleted and which brokers it waits for.
func (c *Cluster) deletionText(t *Topic) string {
	var b strings.Builder
	done, total := t.del.count(t, replicaDeletionSuccessful)
	fmt.Fprintf(&b, "%s: marked for deletion (/admin/delete_topics/%s), %d of %d replicas deleted", t.Name, t.Name, done, total)
	var waits []int
	t.del.each(t, func(_ *Partition, id int, st replicaDelState) {
		if st != replicaDeletionSuccessful && !c.md.replicaOnline(id) && !slices.Contains(waits, id) {
			waits = append(waits, id)
		}
	})
	if len(waits) > 0 {
		slices.Sort(waits)
		fmt.Fprintf(&b, ", waiting for broker(s) %s", joinInts(waits))
	}
	b.WriteByte('\n')
	return b.String()
}
