package core

import (
	"slices"
)

// Commands for clients the core does not simulate: a real Kafka client
// speaking the wire protocol to a listener outside the core (the protocol
// layer) enters as commands on a connection, and its answers come out as
// events. The connection's host is a node of the simulated network, so
// splits, delays, drops, pauses and crashes hit it like any simulated
// client; see external.go for the rules.
//
// The protocol layer's loop: OpenConn when a client connects to broker
// N's listener; one BrokerRequest per request frame, with the frame's
// correlation id; write each EvResponse's Reply back on that socket (a
// connection's replies come in request order, as Kafka answers them);
// close the socket on EvConnClose (and CloseConn when the client hangs
// up). Apply never waits: the driver advances time and the replies
// appear as events when simulated time says so.

// OpenConn opens connection Conn from host Host (a node of the simulated
// network; default Conn itself) to broker Broker. The connect travels
// the network: a crashed broker refuses it and an unreachable one lets it
// time out, both ending in EvConnClose; otherwise EvConnOpen follows.
// Requests may be sent at once (they queue behind the connect).
type OpenConn struct {
	Conn   string `json:"conn"`
	Host   string `json:"host,omitempty"`
	Broker int    `json:"broker"`
}

// CloseConn closes connection Conn from the client's side (the client hung
// up). Requests still unanswered are forgotten; EvConnClose lists them.
type CloseConn struct {
	Conn string `json:"conn"`
}

// BrokerRequest is one request on connection Conn, identified by the
// client's correlation id. Exactly one request body is set. The answer is
// an EvResponse event whose Reply carries Conn, Correlation and the typed
// response; acks=0 produce requests get none, as in Kafka.
type BrokerRequest struct {
	Conn        string `json:"conn"`
	Correlation int32  `json:"correlation"`
	// Label names the request in the picture: API, version and the
	// client's software (KIP-511), at most MaxLabelBytes; "" draws the
	// API's name alone.
	Label   string          `json:"label,omitempty"`
	Produce *ProduceRequest `json:"produce,omitempty"`
	Fetch   *FetchRequest   `json:"fetch,omitempty"`
	// The rest of the APIs a real client needs (external_api_more.go).
	Metadata             *MetadataRequest             `json:"metadata,omitempty"`
	ListOffsets          *ListOffsetsRequest          `json:"listOffsets,omitempty"`
	OffsetForLeaderEpoch *OffsetForLeaderEpochRequest `json:"offsetForLeaderEpoch,omitempty"`
	InitProducerID       *InitProducerIDRequest       `json:"initProducerId,omitempty"`
	FindCoordinator      *FindCoordinatorRequest      `json:"findCoordinator,omitempty"`
	OffsetCommit         *OffsetCommitRequest         `json:"offsetCommit,omitempty"`
	OffsetFetch          *OffsetFetchRequest          `json:"offsetFetch,omitempty"`
	JoinGroup            *JoinGroupRequest            `json:"joinGroup,omitempty"`
	SyncGroup            *SyncGroupRequest            `json:"syncGroup,omitempty"`
	Heartbeat            *HeartbeatRequest            `json:"heartbeat,omitempty"`
	LeaveGroup           *LeaveGroupRequest           `json:"leaveGroup,omitempty"`
	DeleteTopics         *DeleteTopicsRequest         `json:"deleteTopics,omitempty"`
	DeleteGroups         *DeleteGroupsRequest         `json:"deleteGroups,omitempty"`
	DeleteRecords        *DeleteRecordsRequest        `json:"deleteRecords,omitempty"`
	OffsetDelete         *OffsetDeleteRequest         `json:"offsetDelete,omitempty"`
	Other                *OtherRequest                `json:"other,omitempty"`
}

func (OpenConn) Kind() string      { return "conn_open" }
func (CloseConn) Kind() string     { return "conn_close" }
func (BrokerRequest) Kind() string { return "request" }

// connCommand is a command of this file; Apply hands them to applyConn,
// the command log keeps clone's deep copy.
type connCommand interface {
	Command
	applyConn(c *Cluster) error
	clone() Command
}

func (x OpenConn) clone() Command  { return x }
func (x CloseConn) clone() Command { return x }

// clone copies the request bodies, so the caller may reuse its own.
func (x BrokerRequest) clone() Command {
	if p := x.Produce; p != nil {
		cp := *p
		cp.Partitions = slices.Clone(p.Partitions)
		for i := range cp.Partitions {
			cp.Partitions[i].Records = slices.Clone(cp.Partitions[i].Records)
		}
		x.Produce = &cp
	}
	if f := x.Fetch; f != nil {
		cp := *f
		cp.Partitions = slices.Clone(f.Partitions)
		x.Fetch = &cp
	}
	x.cloneMore()
	return x
}

func (x OpenConn) applyConn(c *Cluster) error      { return c.ext.open(x) }
func (x CloseConn) applyConn(c *Cluster) error     { return c.ext.closeByClient(x.Conn) }
func (x BrokerRequest) applyConn(c *Cluster) error { return c.ext.request(x) }
