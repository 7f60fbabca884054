package core

// Typed requests and responses of the APIs a real client needs besides
// Produce and Fetch (external_api.go has those and the conventions:
// partitions by topic and index, Kafka's error names, "" for none).

// MetadataRequest asks a broker what its metadata cache holds. Topics nil
// means every topic (internal ones included, flagged); AllowAutoCreate
// lets the broker create a missing topic when auto.create.topics.enable
// is on (Metadata v4+; older versions always allow it).
type MetadataRequest struct {
	Topics          []string `json:"topics"`
	AllowAutoCreate bool     `json:"allowAutoCreate"`
}

// MetadataResponse is the broker's view: the live brokers (the protocol
// layer adds each one's host and port), the controller (-1: unknown; in
// KRaft mode a broker answers with a random live broker, as Kafka does
// since KIP-590, here the lowest id), and each topic.
type MetadataResponse struct {
	ClusterID  string           `json:"clusterId"`
	Controller int              `json:"controller"`
	Brokers    []MetadataBroker `json:"brokers"`
	Topics     []MetadataTopic  `json:"topics"`
}

// MetadataBroker is one live broker.
type MetadataBroker struct {
	ID   int    `json:"id"`
	Rack string `json:"rack,omitempty"`
}

// MetadataTopic is one topic. TopicID is a stable id derived from the
// topic's name and creation order (Kafka 2.8+ topic ids, KIP-516).
type MetadataTopic struct {
	Name       string              `json:"name"`
	TopicID    [16]byte            `json:"topicId"`
	Error      string              `json:"error,omitempty"`
	Internal   bool                `json:"internal,omitempty"`
	Partitions []MetadataPartition `json:"partitions"`
}

// MetadataPartition is one partition as the broker's cache has it:
// Leader -1 while offline (LEADER_NOT_AVAILABLE); Offline lists replicas
// on brokers that are not live.
type MetadataPartition struct {
	Partition   int32  `json:"partition"`
	Error       string `json:"error,omitempty"`
	Leader      int    `json:"leader"`
	LeaderEpoch int32  `json:"leaderEpoch"`
	Replicas    []int  `json:"replicas"`
	ISR         []int  `json:"isr"`
	Offline     []int  `json:"offline"`
}

// ListOffsetsRequest asks the leaders for offsets by timestamp: -2 the
// log start, -1 the end (the high watermark for a read_uncommitted
// client), -3 the largest timestamp's offset (KIP-734), any other value
// the first offset whose batch timestamp is at least it.
type ListOffsetsRequest struct {
	Partitions []ListOffsetsPartition `json:"partitions"`
}

// ListOffsetsPartition is one partition of a ListOffsetsRequest.
type ListOffsetsPartition struct {
	Topic              string `json:"topic"`
	Partition          int32  `json:"partition"`
	Timestamp          int64  `json:"timestamp"`
	CurrentLeaderEpoch int32  `json:"currentLeaderEpoch"`
}

// ListOffsetsResponse answers a ListOffsetsRequest, in request order.
type ListOffsetsResponse struct {
	Partitions []ListOffsetsPartitionResponse `json:"partitions"`
}

// ListOffsetsPartitionResponse is one partition: the offset (-1: none),
// the leader's epoch and the timestamp found (-1 for the special ones).
type ListOffsetsPartitionResponse struct {
	Topic       string `json:"topic"`
	Partition   int32  `json:"partition"`
	Error       string `json:"error,omitempty"`
	Offset      int64  `json:"offset"`
	LeaderEpoch int32  `json:"leaderEpoch"`
	Timestamp   int64  `json:"timestamp"`
}

// OffsetForLeaderEpochRequest asks where each epoch ends in the leader's
// log (KIP-101, KIP-320: a consumer validating its position after a
// leader change).
type OffsetForLeaderEpochRequest struct {
	Partitions []OffsetForLeaderEpochPartition `json:"partitions"`
}

// OffsetForLeaderEpochPartition is one partition of the request.
type OffsetForLeaderEpochPartition struct {
	Topic              string `json:"topic"`
	Partition          int32  `json:"partition"`
	CurrentLeaderEpoch int32  `json:"currentLeaderEpoch"`
	LeaderEpoch        int32  `json:"leaderEpoch"`
}

// OffsetForLeaderEpochResponse answers it, in request order.
type OffsetForLeaderEpochResponse struct {
	Partitions []OffsetForLeaderEpochPartitionResponse `json:"partitions"`
}

// OffsetForLeaderEpochPartitionResponse is the largest epoch at most the
// one asked about and its end offset (-1, -1: unknown).
type OffsetForLeaderEpochPartitionResponse struct {
	Topic       string `json:"topic"`
	Partition   int32  `json:"partition"`
	Error       string `json:"error,omitempty"`
	LeaderEpoch int32  `json:"leaderEpoch"`
	EndOffset   int64  `json:"endOffset"`
}

// InitProducerIDRequest asks for a producer id. Only idempotent producers
// are simulated: a transactional id gets TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
// as from a Kafka whose authorizer denies it.
type InitProducerIDRequest struct {
	TransactionalID string `json:"transactionalId,omitempty"`
}

// InitProducerIDResponse is the new producer id and epoch.
type InitProducerIDResponse struct {
	Error         string `json:"error,omitempty"`
	ProducerID    int64  `json:"producerId"`
	ProducerEpoch int16  `json:"producerEpoch"`
}

// FindCoordinatorRequest asks which broker coordinates a group (KeyType
// 0) or a transactional id (1, not simulated:
// TRANSACTIONAL_ID_AUTHORIZATION_FAILED).
// Keys, when set, is FindCoordinator v4+ (KIP-699): several keys of
// KeyType at once, each looked up as Key would be and answered in the
// response's Coordinators, in order (KafkaApis.
// handleFindCoordinatorRequestV4AndAbove); Key is then unused.
type FindCoordinatorRequest struct {
	Key     string   `json:"key"`
	KeyType int8     `json:"keyType"`
	Keys    []string `json:"keys,omitempty"`
}

// FindCoordinatorResponse names the coordinator (-1 on error); the
// protocol layer adds its host and port. Coordinators answers Keys.
type FindCoordinatorResponse struct {
	Error        string                       `json:"error,omitempty"`
	Coordinator  int                          `json:"coordinator"`
	Coordinators []FindCoordinatorKeyResponse `json:"coordinators,omitempty"`
}

// FindCoordinatorKeyResponse is one key's coordinator (-1 on error).
type FindCoordinatorKeyResponse struct {
	Key         string `json:"key"`
	Error       string `json:"error,omitempty"`
	Coordinator int    `json:"coordinator"`
}

// OffsetCommitRequest commits offsets for a group: a member of the
// current generation, or Generation -1 for a consumer outside the group
// protocol (assign()) while the group is empty. KIP848 marks an
// OffsetCommit v9+ (the KIP-848 version, the same fields): from 4.0 a
// commit with a generation for a group the coordinator does not have is
// answered GROUP_ID_NOT_FOUND, where older versions, and 3.9's
// coordinator in every version, answer ILLEGAL_GENERATION
// (OffsetMetadataManager.validateOffsetCommit).
type OffsetCommitRequest struct {
	Group      string                  `json:"group"`
	Generation int32                   `json:"generation"`
	MemberID   string                  `json:"memberId"`
	Partitions []OffsetCommitPartition `json:"partitions"`
	KIP848     bool                    `json:"kip848,omitempty"`
}

// OffsetCommitPartition is one offset to commit, with its committed
// metadata (OffsetCommit v2+ here; null and "" are both Kafka's
// OffsetAndMetadata.NoMetadata) and committed leader epoch (v6+; nil for
// -1, none: Kafka stores Optional.empty). The coordinator keeps both with
// the offset and OffsetFetch answers them; metadata longer than
// offset.metadata.max.bytes is OFFSET_METADATA_TOO_LARGE.
type OffsetCommitPartition struct {
	Topic       string `json:"topic"`
	Partition   int32  `json:"partition"`
	Offset      int64  `json:"offset"`
	Metadata    string `json:"metadata,omitempty"`
	LeaderEpoch *int32 `json:"leaderEpoch,omitempty"`
}

// OffsetCommitResponse has each partition's error, in request order.
type OffsetCommitResponse struct {
	Partitions []OffsetCommitPartitionResponse `json:"partitions"`
}

// OffsetCommitPartitionResponse is one partition's result.
type OffsetCommitPartitionResponse struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Error     string `json:"error,omitempty"`
}

// OffsetFetchRequest reads a group's committed offsets: Partitions, or
// with none listed every partition the group has committed (v2+'s null
// topic list), unless None is set: an empty topic list that is not null,
// which asks for nothing (OffsetFetchRequest.isAllPartitions is
// topics == null). The JSON codec reads an empty list as an absent one,
// so the two need the flag to replay alike. RequireStable is
// OffsetFetch v7+'s require_stable (KIP-447): a partition whose commit is
// still being written is answered UNSTABLE_OFFSET_COMMIT (2.5 to 3.9), or
// the answer waits for the writes before it (4.0). Groups, when set, is
// OffsetFetch v8+ (KIP-709): several groups in one request, each fetched
// as a request of its own would be, from its coordinator (NOT_COORDINATOR
// for a group the broker does not coordinate), and answered together in
// the response's Groups once every group has its answer
// (KafkaApis.handleOffsetFetchRequest); Group and Partitions are then
// unused.
type OffsetFetchRequest struct {
	Group         string                 `json:"group"`
	Partitions    []OffsetFetchPartition `json:"partitions"`
	None          bool                   `json:"none,omitempty"`
	RequireStable bool                   `json:"requireStable,omitempty"`
	Groups        []OffsetFetchGroup     `json:"groups,omitempty"`
}

// OffsetFetchGroup is one group of a batched OffsetFetch: its
// Partitions, or with All every partition it has committed (a null topic
// list; the JSON codec reads an empty list as none, so the two need a
// flag).
type OffsetFetchGroup struct {
	Group      string                 `json:"group"`
	Partitions []OffsetFetchPartition `json:"partitions,omitempty"`
	All        bool                   `json:"all,omitempty"`
}

// OffsetFetchPartition names one partition.
type OffsetFetchPartition struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
}

// OffsetFetchResponse has the committed offsets (-1: none, a partition
// of no topic too, as GroupMetadataManager.getOffsets answers) or a
// group error (NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS...); Groups
// answers a batched request, one entry per group asked, in its order.
type OffsetFetchResponse struct {
	Error      string                         `json:"error,omitempty"`
	Partitions []OffsetFetchPartitionResponse `json:"partitions"`
	Groups     []OffsetFetchGroupResponse     `json:"groups,omitempty"`
}

// OffsetFetchGroupResponse is one group of a batched OffsetFetch: its
// error, or its committed offsets.
type OffsetFetchGroupResponse struct {
	Group      string                         `json:"group"`
	Error      string                         `json:"error,omitempty"`
	Partitions []OffsetFetchPartitionResponse `json:"partitions"`
}

// OffsetFetchPartitionResponse is one partition's committed offset with
// the metadata and leader epoch committed with it ("" and -1 when none,
// as for a partition with no offset).
type OffsetFetchPartitionResponse struct {
	Topic       string `json:"topic"`
	Partition   int32  `json:"partition"`
	Error       string `json:"error,omitempty"`
	Offset      int64  `json:"offset"`
	Metadata    string `json:"metadata,omitempty"`
	LeaderEpoch int32  `json:"leaderEpoch"`
}

// OtherRequest is a request the core does not model (ApiVersions,
// DescribeConfigs, ...): it travels the simulated network like any other,
// so faults and latency apply and the picture shows it, and the broker
// answers with an empty OtherResponse; the protocol layer builds the
// real answer. API names it ("ApiVersions v3"); Client is the client's
// software name and version when known.
type OtherRequest struct {
	API string `json:"api"`
}

// OtherResponse answers an OtherRequest.
type OtherResponse struct{}
