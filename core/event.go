package core

import "github.com/kafkasim/kafkasim/core/log"

// EventType names an event. The set is part of the core's output contract:
// the trace printer, the checker, the websocket bridge and the browser all
// read the same stream.
type EventType string

// Event types. Message events carry SentAt/DeliverAt so a renderer can place
// a message anywhere on its way by interpolation. docs/events.md lists
// every type with its fields and an example (TestEventsDocumented checks
// that every type a run emits is there).
const (
	EvMsgSend      EventType = "msg.send"       // From -> To, Msg kind, SentAt, DeliverAt, MsgID
	EvMsgDrop      EventType = "msg.drop"       // MsgID lost (Detail: why)
	EvBrokerState  EventType = "broker.state"   // Broker, State (up, paused, crashed, powered off), Detail
	EvNet          EventType = "net"            // Detail: split/heal/delay/drop description
	EvTopic        EventType = "topic.create"   // Topic, Replicas (per partition)
	EvTopicAlter   EventType = "topic.alter"    // Topic, Replicas of the new partitions
	EvTopicDelete  EventType = "topic.delete"   // Topic, State (marked, waiting, replica-deleted, deleted), Broker for a replica's deletion, Partition
	EvTopicConfig  EventType = "topic.config"   // Topic, Detail: the topic's own configs after a change
	EvAppend       EventType = "append"         // Partition, Broker, Offset..EndOffset, Epoch, Records, IsLeader
	EvHW           EventType = "hw"             // Partition, Broker, HW
	EvISR          EventType = "isr"            // Partition, Broker (leader), Change (shrink/expand), Brokers and Reasons, ISR; Error if refused
	EvLeader       EventType = "leader"         // Partition, Leader (-1 = none), Epoch, ISR, Election (kind), Reason, Unclean
	EvRole         EventType = "replica.role"   // Partition, Broker, Role (leader/follower), Leader, Epoch, LEO, HW
	EvTruncate     EventType = "truncate"       // Partition, Broker, Offset (new LEO)..EndOffset dropped, Records, Reason, Fate truncated
	EvLost         EventType = "lost"           // Partition, Broker, Offset, Records lost from the page cache on power-off, Fate lost
	EvFlush        EventType = "flush"          // Partition, Broker, Offset (recovery point)
	EvRetention    EventType = "segment.delete" // Partition, Broker, Detail: deleted segment, Offset: new log start
	EvClean        EventType = "segment.clean"  // Partition, Broker, Detail: the segments a clean rewrote, Offset: first, EndOffset: the new cleaner checkpoint
	EvLogStart     EventType = "log.start"      // Partition, Broker (a follower), Leader, Offset: its new log start, the leader's
	EvZK           EventType = "zk"             // Op (create, set, delete, closeSession), Path, Zxid, Session; Detail: what happened
	EvController   EventType = "controller"     // Broker: the new controller (ZK) or Detail (KRaft)
	EvProduce      EventType = "produce"        // Producer, Topic, Detail: records handed to send()
	EvProduceSend  EventType = "produce.send"   // Producer, Broker, Partition, Records in a request (Attempt)
	EvAck          EventType = "produce.ack"    // Producer, Partition, Offset, Records acked, Fate acked
	EvProduceError EventType = "produce.error"  // Producer, Partition, Records, Error, Retry (will retry), Fate failed unless retried
	EvConsume      EventType = "consume"        // Consumer, Partition, Offset, Records returned by poll
	EvConsumerInfo EventType = "consumer"       // Consumer, Partition, Detail (reset, error, assignment)
	EvConn         EventType = "conn"           // From (client), Broker, State (connected/lost), Reason, Detail
	EvGroup        EventType = "group"          // Group, Generation, State (the group's state now), Broker (coordinator), Detail
	EvCommit       EventType = "offset.commit"  // Group/Consumer, Partition, Offset
	EvInfo         EventType = "info"           // Detail: anything else worth a line
	EvConnOpen     EventType = "conn.open"      // Conn (outside connection), From (its host), Broker: the connect was answered
	EvConnClose    EventType = "conn.close"     // Conn, From, Broker, Reason (ConnReset, ...), Pending: correlation ids never answered
	EvResponse     EventType = "response"       // Conn, From, Broker, Reply: a broker's answer to an outside client's request
)

// ISR changes (Event.Change of EvISR).
const (
	ISRShrink = "shrink"
	ISRExpand = "expand"
)

// Why a replica joins or leaves the ISR (Event.Reasons of EvISR, one per
// broker in Event.Brokers).
const (
	ISRCaughtUp       = "caught-up"       // its LEO reached the HW and its leader epoch's start
	ISRLagging        = "lagging"         // not caught up for replica.lag.time.max.ms (0.9+)
	ISRNotFetching    = "not-fetching"    // 0.8: no fetch for replica.lag.time.max.ms
	ISRMessagesBehind = "messages-behind" // 0.8: more than replica.lag.max.messages behind
)

// Election kinds (Event.Election of EvLeader). Controlled shutdown is not
// simulated (brokers crash, power off or pause), so there is no
// controlled kind.
const (
	ElectionClean     = "clean"     // a live ISR member leads
	ElectionUnclean   = "unclean"   // a live replica outside the ISR leads (unclean.leader.election.enable)
	ElectionPreferred = "preferred" // the preferred replica takes leadership back (auto.leader.rebalance.enable)
	ElectionNone      = "none"      // no eligible replica: the partition is offline
)

// Replica roles (Event.Role of EvRole).
const (
	RoleLeader   = "leader"
	RoleFollower = "follower"
)

// Why a follower truncates (Event.Reason of EvTruncate).
const (
	TruncateHighWatermark = "high-watermark"  // to its own HW: before 0.11 (KIP-101), or the leader had no epoch to answer with
	TruncateLeaderEpoch   = "leader-epoch"    // to where its epoch ends, per OffsetsForLeaderEpoch
	TruncateOutOfRange    = "out-of-range"    // it was ahead of the leader (OFFSET_OUT_OF_RANGE)
	TruncateBelowStart    = "below-log-start" // it ended below the leader's log start (OFFSET_OUT_OF_RANGE): emptied, restarts there
)

// Records' fates (Event.Fate): acked by the leader (EvAck), failed for
// good with an error (EvProduceError without Retry), lost from a page
// cache (EvLost), cut from a log by truncation (EvTruncate).
const (
	FateAcked     = "acked"
	FateFailed    = "failed"
	FateLost      = "lost"
	FateTruncated = "truncated"
)

// Simulated clients' connection states (Event.State of EvConn).
const (
	ConnConnected = "connected"
	ConnLost      = "lost"
)

// Event is one thing that happened at virtual time At. Only the fields that
// matter for its Type are set. Records, when set, is shared with the log and
// must not be modified. An append of a batch the log keeps packed (a real
// client's, log.Packed) leaves Records nil and reads them only when asked:
// RecordList, Values, Text and the JSON have them either way, so that no
// copy of a real client's records is made for events nobody reads.
type Event struct {
	Seq        uint64       `json:"seq"`
	At         int64        `json:"at"`
	Type       EventType    `json:"type"`
	Broker     int          `json:"broker,omitempty"`
	Partition  string       `json:"partition,omitempty"`
	Topic      string       `json:"topic,omitempty"`
	From       string       `json:"from,omitempty"`
	To         string       `json:"to,omitempty"`
	Msg        string       `json:"msg,omitempty"`
	MsgID      uint64       `json:"msgId,omitempty"`
	SentAt     int64        `json:"sentAt,omitempty"`
	DeliverAt  int64        `json:"deliverAt,omitempty"`
	Leader     int          `json:"leader,omitempty"`
	Epoch      int32        `json:"epoch,omitempty"`
	ISR        []int        `json:"isr,omitempty"`
	Replicas   [][]int      `json:"replicas,omitempty"`
	Offset     int64        `json:"offset,omitempty"`
	EndOffset  int64        `json:"endOffset,omitempty"`
	HW         int64        `json:"hw,omitempty"`
	Records    []log.Record `json:"records,omitempty"`
	Producer   string       `json:"producer,omitempty"`
	Consumer   string       `json:"consumer,omitempty"`
	Group      string       `json:"group,omitempty"`
	Generation int          `json:"generation,omitempty"`
	Error      string       `json:"error,omitempty"`
	Retry      bool         `json:"retry,omitempty"`
	Unclean    bool         `json:"unclean,omitempty"`
	IsLeader   bool         `json:"isLeader,omitempty"`
	Attempt    int          `json:"attempt,omitempty"`
	Detail     string       `json:"detail,omitempty"`
	// ZooKeeper (EvZK, and outside clients' messages): the operation, the
	// znode, the transaction's zxid and the session (0x... ids).
	Op      string `json:"op,omitempty"`
	Path    string `json:"path,omitempty"`
	Zxid    int64  `json:"zxid,omitempty"`
	Session int64  `json:"session,omitempty"`
	// What happened, in typed fields (see the constants above): the kind of
	// ISR change and the brokers it moved with their reasons; the kind of
	// election; a replica's new role and log end offset; a group's or
	// broker's state; a record's fate.
	Change   string   `json:"change,omitempty"`
	Brokers  []int    `json:"brokers,omitempty"`
	Reasons  []string `json:"reasons,omitempty"`
	Election string   `json:"election,omitempty"`
	Role     string   `json:"role,omitempty"`
	LEO      int64    `json:"leo,omitempty"`
	State    string   `json:"state,omitempty"`
	Fate     string   `json:"fate,omitempty"`
	// Outside clients' connections (EvConnOpen, EvConnClose, EvResponse);
	// Reason also says why a follower truncated or a leader was elected.
	Conn    string  `json:"conn,omitempty"`
	Reason  string  `json:"reason,omitempty"`
	Pending []int32 `json:"pending,omitempty"`
	Reply   *Reply  `json:"reply,omitempty"`
	// Label is what the picture writes by an outside client's message
	// (msg.send): the protocol layer's BrokerRequest.Label, e.g.
	// "Produce v9 franz-go/1.22.3", on the request and its response.
	Label string `json:"label,omitempty"`
	// Minor marks routine detail (internal topics' replication, offsets
	// committed again unchanged) that traces hide unless verbose.
	Minor bool `json:"minor,omitempty"`
	// Outside marks an outside observer's traffic: an outside ZooKeeper
	// client's reads, pings, watch events and sessions (not commands, so a
	// replay of the command history has none). It takes no number of the
	// simulation's own sequence (Seq repeats the previous event's) and its
	// messages have ids of their own (OutsideMsgIDs and up): the
	// simulation's events are the same, numbers included, whether anyone
	// looks or not.
	Outside bool `json:"outside,omitempty"`
	// packed holds the records instead of Records (see Event).
	packed *log.Packed
}

// RecordList is the event's records: Records, or those of the packed
// batch it is about, read into a new slice. The caller must not change
// them.
func (e *Event) RecordList() []log.Record { return log.RecordsOr(e.Records, e.packed) }

// Values returns the record values of e, in offset order.
func (e *Event) Values() []string {
	recs := e.RecordList()
	v := make([]string, len(recs))
	for i, r := range recs {
		v[i] = r.Value
	}
	return v
}
