package scene

import (
	"strconv"
	"strings"
)

// Message classes: how the canvas draws a message (shape and colour) and
// what the learner toggles. The order of Classes is the legend's order.
const (
	ClassProduce   = "produce"   // Produce, InitProducerId: client -> leader
	ClassAck       = "ack"       // ProduceResponse, InitProducerIdResponse: leader -> client
	ClassFetch     = "fetch"     // follower Fetch / OffsetsForLeaderEpoch and responses: the follower pulls
	ClassConsume   = "consume"   // consumer Fetch, ListOffsets and responses
	ClassMetadata  = "metadata"  // Metadata, LeaderAndIsr, UpdateMetadata, AlterPartition, FindCoordinator...
	ClassZK        = "zk"        // ZooKeeper traffic: sessions, watches, znode writes
	ClassHeartbeat = "heartbeat" // group heartbeats, broker liveness (BrokerHeartbeat)
	ClassJoin      = "join"      // JoinGroup, SyncGroup, LeaveGroup, OffsetCommit, OffsetFetch
	ClassOther     = "other"     // connections and anything unnamed
)

// Classes lists every class in legend order.
var Classes = []string{ClassProduce, ClassAck, ClassFetch, ClassConsume, ClassMetadata, ClassZK, ClassHeartbeat, ClassJoin, ClassOther}

// IsBrokerHost reports whether a host name names a broker ("1", "2", ...)
// and returns its id.
func IsBrokerHost(host string) (int, bool) {
	id, err := strconv.Atoi(host)
	return id, err == nil && id > 0
}

// Classify maps a core message kind to its class. From and To are host
// names: a Fetch between two brokers is a follower fetch, from a client a
// consumer fetch. Unknown kinds are ClassOther, never an error: the core
// may grow kinds the canvas has not heard of.
func Classify(kind, from, to string) string {
	base := strings.TrimSuffix(kind, "Response")
	_, fromBroker := IsBrokerHost(from)
	_, toBroker := IsBrokerHost(to)
	if from == "zk" || to == "zk" || strings.HasPrefix(base, "Zk") {
		return ClassZK
	}
	switch base {
	case "Produce", "InitProducerId":
		if strings.HasSuffix(kind, "Response") {
			return ClassAck
		}
		return ClassProduce
	case "Fetch", "OffsetsForLeaderEpoch", "ListOffsets":
		if fromBroker && toBroker {
			return ClassFetch
		}
		return ClassConsume
	case "Metadata", "LeaderAndIsr", "UpdateMetadata", "MetadataUpdate", "StopReplica",
		"AlterIsr", "AlterPartition", "FindCoordinator", "Register", "BrokerRegistration",
		"ControlledShutdown", "Fenced":
		return ClassMetadata
	case "Heartbeat", "BrokerHeartbeat":
		return ClassHeartbeat
	case "JoinGroup", "SyncGroup", "LeaveGroup", "OffsetCommit", "OffsetFetch":
		return ClassJoin
	case "Ping", "SessionExpired":
		return ClassZK
	}
	return ClassOther
}

// Hidden reports whether class is switched off in s.
func (s *Scene) Hidden(class string) bool {
	for _, h := range s.Hide {
		if h == class {
			return true
		}
	}
	return false
}
