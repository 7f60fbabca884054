package core

import "github.com/kafkasim/kafkasim/core/log"

// EventType names an event. The set is part of the core's output contract:
// the trace printer, the checker, the websocket bridge and the browser all
// read the same stream.
type EventType string

// Event types. Message events carry SentAt/DeliverAt so a renderer can place
// a message anywhere on its way by interpolation.
const (
	EvMsgSend      EventType = "msg.send"       // From -> To, Msg kind, SentAt, DeliverAt, MsgID
	EvMsgDrop      EventType = "msg.drop"       // MsgID lost (Detail: why)
	EvBrokerState  EventType = "broker.state"   // Broker, Detail: up, crashed, poweredoff, paused
	EvNet          EventType = "net"            // Detail: split/heal/delay/drop description
	EvTopic        EventType = "topic.create"   // Topic, Replicas (per partition)
	EvTopicAlter   EventType = "topic.alter"    // Topic, Replicas of the new partitions
	EvAppend       EventType = "append"         // Partition, Broker, Offset..EndOffset, Epoch, Records, Leader (true on the leader)
	EvHW           EventType = "hw"             // Partition, Broker, HW
	EvISR          EventType = "isr"            // Partition, ISR, Detail: shrink/expand + who
	EvLeader       EventType = "leader"         // Partition, Leader (-1 = none), Epoch, ISR, Unclean
	EvTruncate     EventType = "truncate"       // Partition, Broker, Offset (new LEO), Records dropped, Detail: why
	EvLost         EventType = "lost"           // Partition, Broker, Records lost from the page cache on power-off
	EvFlush        EventType = "flush"          // Partition, Broker, Offset (recovery point)
	EvRoll         EventType = "segment.roll"   // Partition, Broker, Detail: new segment file
	EvRetention    EventType = "segment.delete" // Partition, Broker, Detail: deleted segment, Offset: new log start
	EvZK           EventType = "zk"             // Op (create, set, delete, closeSession), Path, Zxid, Session; Detail: what happened
	EvController   EventType = "controller"     // Broker: the new controller (ZK) or Detail (KRaft)
	EvProduce      EventType = "produce"        // Producer, Partition, Records handed to send()
	EvProduceSend  EventType = "produce.send"   // Producer, Broker, Partition, Records in a request (Attempt)
	EvAck          EventType = "produce.ack"    // Producer, Partition, Offset, Records acked
	EvProduceError EventType = "produce.error"  // Producer, Partition, Records, Error, Retry (will retry)
	EvConsume      EventType = "consume"        // Consumer, Partition, Offset, Records returned by poll
	EvConsumerInfo EventType = "consumer"       // Consumer, Partition, Detail (reset, error, assignment)
	EvConn         EventType = "conn"           // From (client), Broker, Detail: connection lost or re-established
	EvGroup        EventType = "group"          // Group, Generation, Detail: state change / rebalance
	EvCommit       EventType = "offset.commit"  // Group/Consumer, Partition, Offset
	EvViolation    EventType = "violation"      // Detail: an invariant the checker saw broken
	EvInfo         EventType = "info"           // Detail: anything else worth a line
	EvConnOpen     EventType = "conn.open"      // Conn (outside connection), From (its host), Broker: the connect was answered
	EvConnClose    EventType = "conn.close"     // Conn, From, Broker, Reason (ConnReset, ...), Pending: correlation ids never answered
	EvResponse     EventType = "response"       // Conn, From, Broker, Reply: a broker's answer to an outside client's request
)

// Event is one thing that happened at virtual time At. Only the fields that
// matter for its Type are set. Records, when set, is shared with the log and
// must not be modified.
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
	// Outside clients' connections (EvConnOpen, EvConnClose, EvResponse).
	Conn    string  `json:"conn,omitempty"`
	Reason  string  `json:"reason,omitempty"`
	Pending []int32 `json:"pending,omitempty"`
	Reply   *Reply  `json:"reply,omitempty"`
	// Minor marks routine detail (internal topics' replication, offsets
	// committed again unchanged) that traces hide unless verbose.
	Minor bool `json:"minor,omitempty"`
}

// Values returns the record values of e, in offset order.
func (e *Event) Values() []string {
	v := make([]string, len(e.Records))
	for i, r := range e.Records {
		v[i] = r.Value
	}
	return v
}
