package core

import (
	"encoding/json"
	"slices"

	"github.com/kafkasim/kafkasim/core/log"
)

// Typed requests and responses for outside clients (BrokerRequest,
// EvResponse). They name partitions by topic and index, and carry Kafka's
// error names ("NOT_LEADER_OR_FOLLOWER", ...; "" for none), so the
// protocol layer maps them to wire types field by field. Kafka wire types
// never enter the core.

// ProduceRequest is a Produce request: one record batch per partition.
// Acks is 0, 1 or -1 (all); TimeoutMs is how long acks=all may wait for
// the ISR (in simulated time).
type ProduceRequest struct {
	Acks       int16              `json:"acks"`
	TimeoutMs  int32              `json:"timeoutMs"`
	Partitions []ProducePartition `json:"partitions"`
}

// ProducePartition is one partition's batch. ProducerID -1 means not
// idempotent; an idempotent batch carries its producer epoch and base
// sequence, and every batch of one request must have the same producer id.
type ProducePartition struct {
	Topic         string `json:"topic"`
	Partition     int32  `json:"partition"`
	ProducerID    int64  `json:"producerId"`
	ProducerEpoch int16  `json:"producerEpoch"`
	BaseSequence  int32  `json:"baseSequence"`
	// Timestamp is the batch's first timestamp (CreateTime) in the
	// broker clock's ms, each record's own being Timestamp plus its
	// TimestampDelta; nil lets the leader stamp its clock, as for the
	// core's own producers.
	Timestamp *int64 `json:"timestamp,omitempty"`
	// Records become the log's once applied (a stored batch never
	// changes, and followers and consumers share it): the caller must not
	// change them afterwards. Not copying them is what keeps a real
	// client's records cheap (the protocol layer decodes each batch into
	// a fresh slice).
	Records []log.Record `json:"records"`
	// Packed, if set, is the records packed (log.Pack, as the protocol
	// layer decodes a real client's batch), and Records may then be nil
	// (or must hold the same records): the log keeps the packed batch
	// instead of a Record per record, which would cost the garbage
	// collector for as long as the log holds them. The JSON has the
	// records either way.
	Packed *log.Packed `json:"-"`
}

// Len is the number of records.
func (pp *ProducePartition) Len() int { return log.LenOr(pp.Records, pp.Packed) }

// RecordList is Records, or the packed records read into a new slice.
// The caller must not change them.
func (pp *ProducePartition) RecordList() []log.Record { return log.RecordsOr(pp.Records, pp.Packed) }

// withRecords is cmd with the records of its packed Produce partitions
// read out into Records (a copy of the request; Packed cleared), for the
// encoders that see Records only.
func withRecords(cmd Command) Command {
	var x BrokerRequest
	switch c := cmd.(type) {
	case BrokerRequest:
		x = c
	case *BrokerRequest:
		if c == nil {
			return cmd
		}
		x = *c
	default:
		return cmd
	}
	if x.Produce == nil || !slices.ContainsFunc(x.Produce.Partitions, func(p ProducePartition) bool { return p.Packed != nil }) {
		return cmd
	}
	pr := *x.Produce
	pr.Partitions = slices.Clone(pr.Partitions)
	for i := range pr.Partitions {
		p := &pr.Partitions[i]
		p.Records, p.Packed = p.RecordList(), nil
	}
	x.Produce = &pr
	if _, ok := cmd.(*BrokerRequest); ok {
		return &x
	}
	return x
}

// ProduceResponse answers a ProduceRequest, partitions in request order.
type ProduceResponse struct {
	Partitions []ProducePartitionResponse `json:"partitions"`
}

// ProducePartitionResponse is one partition's answer: the batch's base
// offset (-1 on error) or the error name.
type ProducePartitionResponse struct {
	Topic      string `json:"topic"`
	Partition  int32  `json:"partition"`
	Error      string `json:"error,omitempty"`
	BaseOffset int64  `json:"baseOffset"`
	// LogStartOffset is the partition's log start offset (-1 on error).
	LogStartOffset int64 `json:"logStartOffset"`
	// LogAppendTime is the leader's clock at the append when the topic's
	// message.timestamp.type is LogAppendTime, else -1.
	LogAppendTime int64 `json:"logAppendTime"`
	// Leader is the leader the broker knows of, with NOT_LEADER_OR_FOLLOWER
	// (KIP-951), else nil.
	Leader *LeaderHint `json:"leader,omitempty"`
}

// FetchRequest is a consumer's Fetch request. The leader answers at once
// if MinBytes are readable below the high watermark (or some partition has
// an error), else holds it until they are or MaxWaitMs passes (simulated
// time). MaxBytes bounds the response (0 or less: the broker's
// fetch.max.bytes), PartitionMaxBytes each partition's share (0 or less:
// none of its own); the first batch comes whole even if larger (KIP-74).
//
// ByTopicID marks a request naming its topics by id (Fetch v13+, KIP-516):
// each partition's TopicID must be the id of the topic named Topic when
// the broker reads the request, else that partition is answered
// UNKNOWN_TOPIC_ID, as Kafka's broker answers an id its metadata does not
// know (KafkaApis.handleFetchRequest). A topic deleted and created again
// under the same name has a new id, so a fetch by the old one never reads
// the new topic's log. Topic may be "" for an id nobody resolved.
type FetchRequest struct {
	MaxWaitMs  int32            `json:"maxWaitMs"`
	MinBytes   int32            `json:"minBytes"`
	MaxBytes   int32            `json:"maxBytes"`
	ByTopicID  bool             `json:"byTopicId,omitempty"`
	Partitions []FetchPartition `json:"partitions"`
}

// FetchPartition is one partition to fetch. CurrentLeaderEpoch is the
// client's view of the leader epoch (KIP-320), -1 to skip the check.
type FetchPartition struct {
	Topic              string   `json:"topic"`
	Partition          int32    `json:"partition"`
	FetchOffset        int64    `json:"fetchOffset"`
	CurrentLeaderEpoch int32    `json:"currentLeaderEpoch"`
	PartitionMaxBytes  int32    `json:"partitionMaxBytes"`
	TopicID            [16]byte `json:"topicId,omitzero"`
}

// FetchResponse answers a FetchRequest, partitions in request order.
type FetchResponse struct {
	Partitions []FetchPartitionResponse `json:"partitions"`
}

// FetchPartitionResponse is one partition's data: whole batches from the
// one holding FetchOffset (the client skips records before it), or the
// error name. The offsets are -1 when the broker does not lead the
// partition. Without transactions the last stable offset is the HW.
type FetchPartitionResponse struct {
	Topic            string         `json:"topic"`
	Partition        int32          `json:"partition"`
	Error            string         `json:"error,omitempty"`
	HighWatermark    int64          `json:"highWatermark"`
	LastStableOffset int64          `json:"lastStableOffset"`
	LogStartOffset   int64          `json:"logStartOffset"`
	Batches          []FetchedBatch `json:"batches,omitempty"`
	// Leader is the leader the broker knows of, with NOT_LEADER_OR_FOLLOWER
	// and FENCED_LEADER_EPOCH (KIP-951), else nil.
	Leader *LeaderHint `json:"leader,omitempty"`
}

// LeaderHint is the leader a broker that refused a partition knows of
// (KIP-951: Fetch v16+ and Produce v10+ carry it with NOT_LEADER_OR_FOLLOWER
// and FENCED_LEADER_EPOCH, so a client moves to the new leader without a
// Metadata round trip): its own replica's view when it has one, else its
// metadata cache's (KafkaApis.getCurrentLeader); LeaderID and LeaderEpoch
// are -1 when it knows neither. Live reports that broker registered (the
// response then carries its endpoint), Rack its rack.
type LeaderHint struct {
	LeaderID    int    `json:"leaderId"`
	LeaderEpoch int32  `json:"leaderEpoch"`
	Live        bool   `json:"live,omitempty"`
	Rack        string `json:"rack,omitempty"`
}

// FetchedBatch is one record batch as stored in the leader's log
// (record batch v2 fields). Timestamp is the first timestamp (the
// producer's create time, or the leader's clock when the producer gave
// none), MaxTimestamp the header's max timestamp; with LogAppendTime set
// every record reads as MaxTimestamp, else as Timestamp plus its
// TimestampDelta. Records is the log's own (capacity clipped), shared
// and never changed: a reader must not change it either. A batch the log
// keeps packed comes as Packed instead, Records nil; RecordList reads
// either, and its JSON has the records either way.
type FetchedBatch struct {
	BaseOffset           int64        `json:"baseOffset"`
	PartitionLeaderEpoch int32        `json:"partitionLeaderEpoch"`
	ProducerID           int64        `json:"producerId"`
	ProducerEpoch        int16        `json:"producerEpoch"`
	BaseSequence         int32        `json:"baseSequence"`
	Timestamp            int64        `json:"timestamp"`
	MaxTimestamp         int64        `json:"maxTimestamp"`
	LogAppendTime        bool         `json:"logAppendTime,omitempty"`
	Records              []log.Record `json:"records"`
	Packed               *log.Packed  `json:"-"`
	// OffsetDeltas and LastOffsetDelta are a cleaned batch's (log.Batch):
	// record i at BaseOffset+OffsetDeltas[i]; nil for a batch as appended.
	OffsetDeltas    []int32 `json:"offsetDeltas,omitempty"`
	LastOffsetDelta int32   `json:"lastOffsetDelta,omitempty"`
	// DeleteHorizon marks Timestamp as the delete horizon the log
	// cleaner gave the batch (log.Batch.HasDeleteHorizon, KIP-534).
	DeleteHorizon bool `json:"deleteHorizon,omitempty"`
}

// Len is the number of records.
func (b *FetchedBatch) Len() int { return log.LenOr(b.Records, b.Packed) }

// RecordList is the records: Records, or the packed ones read into a new
// slice. The caller must not change them.
func (b *FetchedBatch) RecordList() []log.Record { return log.RecordsOr(b.Records, b.Packed) }

// MarshalJSON writes the batch with its records, packed or not.
func (b FetchedBatch) MarshalJSON() ([]byte, error) {
	type plain FetchedBatch
	b.Records = b.RecordList()
	return json.Marshal(plain(b))
}

// Reply is a broker's answer to one BrokerRequest, carried by EvResponse.
// API names the request ("Produce", "Fetch"); exactly one body is set.
type Reply struct {
	Conn        string           `json:"conn"`
	Correlation int32            `json:"correlation"`
	API         string           `json:"api"`
	Produce     *ProduceResponse `json:"produce,omitempty"`
	Fetch       *FetchResponse   `json:"fetch,omitempty"`
	// The rest (external_api_more.go).
	Metadata             *MetadataResponse             `json:"metadata,omitempty"`
	ListOffsets          *ListOffsetsResponse          `json:"listOffsets,omitempty"`
	OffsetForLeaderEpoch *OffsetForLeaderEpochResponse `json:"offsetForLeaderEpoch,omitempty"`
	InitProducerID       *InitProducerIDResponse       `json:"initProducerId,omitempty"`
	FindCoordinator      *FindCoordinatorResponse      `json:"findCoordinator,omitempty"`
	OffsetCommit         *OffsetCommitResponse         `json:"offsetCommit,omitempty"`
	OffsetFetch          *OffsetFetchResponse          `json:"offsetFetch,omitempty"`
	JoinGroup            *JoinGroupResponse            `json:"joinGroup,omitempty"`
	SyncGroup            *SyncGroupResponse            `json:"syncGroup,omitempty"`
	Heartbeat            *GroupErrorResponse           `json:"heartbeat,omitempty"`
	LeaveGroup           *GroupErrorResponse           `json:"leaveGroup,omitempty"`
	DeleteTopics         *DeleteTopicsResponse         `json:"deleteTopics,omitempty"`
	DeleteGroups         *DeleteGroupsResponse         `json:"deleteGroups,omitempty"`
	DeleteRecords        *DeleteRecordsResponse        `json:"deleteRecords,omitempty"`
	OffsetDelete         *OffsetDeleteResponse         `json:"offsetDelete,omitempty"`
	Other                *OtherResponse                `json:"other,omitempty"`
}
