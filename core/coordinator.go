package core

import (
	"strconv"

	"github.com/kafkasim/kafkasim/core/hash"
)

// offsetsTopic is Kafka's internal topic for group metadata and offsets.
const offsetsTopic = "__consumer_offsets"

// coordinator is a broker's group coordinator: it owns the groups whose
// __consumer_offsets partition this broker leads, loaded from that
// partition's log when it becomes leader.
type coordinator struct {
	b      *Broker
	groups map[string]*group
	loaded map[*Partition]bool
	// writes and stableWaits: 4.0's require_stable fetches waiting for
	// the writes before them (coordinator_stable_fetch.go)
	writes      map[*Partition]*writeLog
	stableWaits []*stableWait
	// maxGroups bounds the groups requests can create here
	// (maxCoordinatorGroups; tests lower it).
	maxGroups int
}

// maxCoordinatorGroups is how many groups a coordinator holds before it
// refuses to create another for a JoinGroup or an OffsetCommit naming a
// new group id. Kafka has no such limit (its bound is memory); kafkasim
// bounds every map outside input grows, generously: ten thousand groups
// on one broker is far beyond what a scenario or a few real clients make.
// The groups loaded from a __consumer_offsets partition are not refused:
// they were created within the bound.
const maxCoordinatorGroups = 10_000

func newCoordinator(b *Broker) *coordinator {
	return &coordinator{b: b, groups: map[string]*group{}, loaded: map[*Partition]bool{}, maxGroups: maxCoordinatorGroups}
}

func (co *coordinator) after(d int64, fn func()) { co.b.after(d, fn) }

// offsetsPartition returns the group's __consumer_offsets partition, or nil
// if the topic does not exist yet.
func (c *Cluster) offsetsPartition(groupID string) *Partition {
	t := c.topics[offsetsTopic]
	if t == nil {
		return nil
	}
	return t.parts[hash.CoordinatorPartition(groupID, len(t.parts))]
}

// createOffsetsTopic creates __consumer_offsets on first use, with
// offsets.topic.num.partitions partitions and
// offsets.topic.replication.factor replicas (enforced since 0.11: until
// that many brokers are alive, groups have no coordinator), and the topic
// configs of GroupMetadataManager.offsetsTopicConfigs: segment.bytes is
// offsets.topic.segment.bytes (100 MiB), not the brokers'
// log.segment.bytes, so a small log.segment.bytes set for the users'
// topics never makes a group's record too large for its segment, and
// cleanup.policy is compact, so Replica.retention leaves it alone and the
// log cleaner compacts it instead (Replica.clean), keeping each offset's
// and group's latest record (offsetKey, groupKey).
// DescribeConfigs shows both as the topic's own (DYNAMIC_TOPIC_CONFIG),
// as Kafka creates the topic with them (KafkaApis.createTopic@0.11,
// AutoTopicCreationManager.creatableTopic@3.9). Its compression.type
// producer is not modelled.
func (c *Cluster) createOffsetsTopic() error {
	if c.topics[offsetsTopic] != nil {
		return nil
	}
	configs := map[string]string{"segment.bytes": strconv.FormatInt(c.bc.offsetsSegment, 10), "cleanup.policy": "compact"}
	return c.createTopic(CreateTopic{Topic: offsetsTopic, Partitions: c.bc.offsetsPartitions, RF: c.bc.offsetsRF, Configs: configs}, false)
}

// lookup finds a loaded group, creating it if create is set; the error is
// NOT_COORDINATOR when this broker does not host the group, and
// COORDINATOR_NOT_AVAILABLE when it would create one past maxGroups.
// That is what Kafka answers when a coordinator cannot serve a group for
// now (GroupCoordinator.validateGroupStatus while it is not active):
// retriable, so clients look the coordinator up again and retry, and get
// in once offset expiry has removed Empty groups
// (cleanupGroupMetadata). GROUP_MAX_SIZE_REACHED would be wrong: it
// counts a group's members (KIP-389) and is fatal to a consumer.
func (co *coordinator) lookup(id string, create bool) (*group, string) {
	p := co.b.c.offsetsPartition(id)
	if p == nil || !co.loaded[p] {
		return nil, "NOT_COORDINATOR"
	}
	g := co.groups[id]
	if g == nil && create && len(co.groups) >= co.maxGroups {
		return nil, "COORDINATOR_NOT_AVAILABLE"
	}
	if g == nil && create {
		g = newGroup(co, id, p)
		co.groups[id] = g
	}
	if g == nil {
		return nil, "GROUP_ID_NOT_FOUND"
	}
	return g, ""
}

// onLeadershipChange loads or unloads groups when this broker starts or
// stops leading an offsets partition (GroupCoordinator.onElection/onResignation).
func (r *Replica) onLeadershipChange() {
	if r.p.Topic.Name != offsetsTopic {
		return
	}
	co := r.b.groups
	if r.role == roleLeader {
		co.unload(r.p)
		co.load(r)
		return
	}
	co.unload(r.p)
}
