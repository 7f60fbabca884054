package core

// Command is one input to a Cluster. Commands are plain data: the scenario
// parser, the websocket bridge (as JSON, see DecodeCommand) and tests all build
// them, and Cluster.Apply validates and executes them. Kind is the command's
// JSON "type" tag.
type Command interface {
	Kind() string
}

// CreateTopic creates a topic. Assign, when set, gives the replica list of
// each partition (broker ids, preferred leader first) and must have
// Partitions entries of RF brokers each. Configs are topic-level overrides by
// Kafka's topic config names (min.insync.replicas, segment.bytes, ...).
type CreateTopic struct {
	Topic      string            `json:"topic"`
	Partitions int               `json:"partitions"`
	RF         int               `json:"rf"`
	Assign     [][]int           `json:"assign,omitempty"`
	Configs    map[string]string `json:"configs,omitempty"`
}

// AlterTopic raises a topic's partition count (Kafka never lowers it).
type AlterTopic struct {
	Topic      string `json:"topic"`
	Partitions int    `json:"partitions"`
}

// AlterTopicConfigs changes a topic's own configs at runtime
// (kafka-configs.sh --alter --entity-type topics, Admin
// .incrementalAlterConfigs): Set gives keys their new value, Delete removes
// a key's override, so the topic takes the brokers' default again. Keys
// are Kafka's topic-level names (retention.ms, min.insync.replicas, ...).
// The controller records the change (ZooKeeper: /config/topics/NAME,
// AdminZkClient.changeTopicConfig; KRaft: one ConfigRecord per changed key,
// ConfigurationControlManager.incrementalAlterConfigResource) and the
// brokers apply it: min.insync.replicas, unclean.leader.election.enable,
// flush.* and message.timestamp.type act on the next produce, election
// or flush; the log configs (segment.bytes, retention.*, segment.ms,
// index.interval.bytes) reach every replica's log at once
// (UnifiedLog.updateConfig: the next roll, append or retention check).
type AlterTopicConfigs struct {
	Topic  string            `json:"topic"`
	Set    map[string]string `json:"set,omitempty"`
	Delete []string          `json:"delete,omitempty"`
}

// ElectLeaders runs a manual leader election of type Election
// (ElectPreferred or ElectUnclean) for Partitions ("orders-0", ...; none:
// every partition of every topic). Each partition is elected if Kafka's
// controller would elect it (CheckElectLeader says why not, per
// partition); the command fails only on an unknown type or partition.
type ElectLeaders struct {
	Election   string   `json:"election"`
	Partitions []string `json:"partitions,omitempty"`
}

// DeleteRecords is kafka-delete-records.sh (Admin.deleteRecords,
// KIP-107) for one partition ("orders-0"): a DeleteRecords request at
// the partition's leader, which moves its log start offset up to Offset
// (-1: its high watermark); the followers take it from their next Fetch
// response, and the request's answer, an event, comes once they have
// (or REQUEST_TIMED_OUT after 30 s, the Admin client's
// request.timeout.ms). The command fails when the leader refuses it
// (OFFSET_OUT_OF_RANGE, POLICY_VIOLATION, ...), on an unknown partition,
// one without a leader, and on a preset before KIP-107.
type DeleteRecords struct {
	Partition string `json:"partition"`
	Offset    int64  `json:"offset"`
}

// DeleteTopic deletes a topic (kafka-topics.sh --delete,
// Admin.deleteTopics). ZooKeeper mode marks it for deletion
// (/admin/delete_topics/NAME) and the controller's TopicDeletionManager
// deletes it when every replica's broker has confirmed, waiting for an
// offline broker to come back; KRaft writes a RemoveTopicRecord and the
// topic is gone at once, brokers dropping their replicas as they learn it.
// Refused with TOPIC_DELETION_DISABLED while delete.topic.enable is false
// (the default before Kafka 1.0, KAFKA-5384).
type DeleteTopic struct {
	Topic string `json:"topic"`
}

// Set changes cluster-wide defaults by Kafka's config names (broker, topic,
// producer and consumer keys, and the simulator's own keys such as
// net.latency.ms). Keys are applied in sorted order.
type Set struct {
	Configs map[string]string `json:"configs"`
}

// NewProducer starts a simulated producer on a host of its own named Name.
// Configs are Kafka producer config names (acks, retries,
// max.in.flight.requests.per.connection, enable.idempotence, linger.ms,
// batch.size, ...) plus "partitioner" (default|roundrobin|sticky).
type NewProducer struct {
	Name    string            `json:"name"`
	Configs map[string]string `json:"configs,omitempty"`
}

// Produce sends records asynchronously, like KafkaProducer.send. With Count
// > 1 it sends Value-1 .. Value-Count. Key nil is a null key; Partition nil
// lets the partitioner choose.
type Produce struct {
	Producer  string  `json:"producer"`
	Topic     string  `json:"topic"`
	Value     string  `json:"value"`
	Key       *string `json:"key,omitempty"`
	Partition *int    `json:"partition,omitempty"`
	Count     int     `json:"count,omitempty"`
}

// NewConsumer starts a simulated consumer on a host of its own. Group ""
// means no group (manual assignment only); with a group it subscribes to
// Topics (all non-internal topics when empty, like a pattern
// subscription). Configs are Kafka consumer config names
// (partition.assignment.strategy, enable.auto.commit, group.instance.id,
// ...) plus "poll" (auto|manual).
type NewConsumer struct {
	Name    string            `json:"name"`
	Group   string            `json:"group,omitempty"`
	Topics  []string          `json:"topics,omitempty"`
	Configs map[string]string `json:"configs,omitempty"`
}

// Assign gives a consumer a manual assignment ("orders-0", ...).
type Assign struct {
	Consumer   string   `json:"consumer"`
	Partitions []string `json:"partitions"`
}

// Poll is KafkaConsumer.poll(timeout): it runs virtual time until the consumer
// has records to return (at most Max, 0 = max.poll.records) or Timeout ms
// (0 = 10 s) have passed.
type Poll struct {
	Consumer string `json:"consumer"`
	Max      int    `json:"max,omitempty"`
	Timeout  int64  `json:"timeout,omitempty"`
}

// Commit commits the consumer's current positions (commitSync).
type Commit struct {
	Consumer string `json:"consumer"`
}

// CloseConsumer closes a consumer cleanly (LeaveGroup).
type CloseConsumer struct {
	Consumer string `json:"consumer"`
}

// CrashConsumer kills a consumer without leaving its group.
type CrashConsumer struct {
	Consumer string `json:"consumer"`
}

// CrashBroker kills a broker's process; its page cache survives.
type CrashBroker struct {
	Broker int `json:"broker"`
}

// PowerOff kills a broker's machine; unflushed data is lost.
type PowerOff struct {
	Broker int `json:"broker"`
}

// Restart starts a crashed or powered-off broker.
type Restart struct {
	Broker int `json:"broker"`
}

// Pause freezes a broker (GC pause, disk stall): it handles nothing until
// Resume, then handles what queued up meanwhile.
type Pause struct {
	Broker int `json:"broker"`
}

// Resume ends a Pause.
type Resume struct {
	Broker int `json:"broker"`
}

// NetSplit partitions the network: hosts in different groups cannot talk.
// Hosts are broker ids ("1"), client names, "zk" or "controller"; hosts in
// no group keep talking to everyone.
type NetSplit struct {
	Groups [][]string `json:"groups"`
}

// NetHeal removes every split, drop and delay.
type NetHeal struct{}

// NetDelay adds one-way latency (ms) on the link From -> To.
type NetDelay struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Delay int64  `json:"delay"`
}

// NetDrop drops the next Count messages From -> To (0: all, until heal).
type NetDrop struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Count int    `json:"count,omitempty"`
}

// Wait advances virtual time by Duration ms.
type Wait struct {
	Duration int64 `json:"duration"`
}

// Settle runs until nothing is in flight, at most Max ms (0 = 5 minutes);
// it fails if the cluster does not settle.
type Settle struct {
	Max int64 `json:"max,omitempty"`
}

func (CreateTopic) Kind() string       { return "topic_create" }
func (AlterTopic) Kind() string        { return "topic_alter" }
func (AlterTopicConfigs) Kind() string { return "topic_config" }
func (ElectLeaders) Kind() string      { return "elect" }
func (DeleteRecords) Kind() string     { return "records_delete" }
func (DeleteTopic) Kind() string       { return "topic_delete" }
func (Set) Kind() string               { return "set" }
func (NewProducer) Kind() string       { return "producer" }
func (Produce) Kind() string           { return "produce" }
func (NewConsumer) Kind() string       { return "consumer" }
func (Assign) Kind() string            { return "assign" }
func (Poll) Kind() string              { return "poll" }
func (Commit) Kind() string            { return "commit" }
func (CloseConsumer) Kind() string     { return "close" }
func (CrashConsumer) Kind() string     { return "crash_consumer" }
func (CrashBroker) Kind() string       { return "crash" }
func (PowerOff) Kind() string          { return "poweroff" }
func (Restart) Kind() string           { return "restart" }
func (Pause) Kind() string             { return "pause" }
func (Resume) Kind() string            { return "resume" }
func (NetSplit) Kind() string          { return "net_split" }
func (NetHeal) Kind() string           { return "net_heal" }
func (NetDelay) Kind() string          { return "net_delay" }
func (NetDrop) Kind() string           { return "net_drop" }
func (Wait) Kind() string              { return "wait" }
func (Settle) Kind() string            { return "settle" }
