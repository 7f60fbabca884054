package core_test

import (
	"testing"

	"github.com/kafkasim/kafkasim/core"
)

// reply runs one request on conn and returns its reply.
func reply(t *testing.T, c *core.Cluster, req core.BrokerRequest) *core.Reply {
	t.Helper()
	apply(t, c, req)
	advance(t, c, 2000)
	for _, e := range ofType(c.Events(), core.EvResponse) {
		if e.Reply.Conn == req.Conn && e.Reply.Correlation == req.Correlation {
			return e.Reply
		}
	}
	t.Fatalf("no reply to %d", req.Correlation)
	return nil
}

// TestExternalMoreAPIs: what a real client asks before and while it
// produces and consumes, answered by the broker it asked.
func TestExternalMoreAPIs(t *testing.T) {
	c := extCluster(t)
	apply(t, c, core.OpenConn{Conn: "k1", Host: "kgo", Broker: 2})

	md := reply(t, c, core.BrokerRequest{Conn: "k1", Correlation: 1, Metadata: &core.MetadataRequest{}}).Metadata
	if len(md.Brokers) != 3 || len(md.Topics) != 1 || md.Topics[0].Name != "t" || md.Topics[0].Partitions[0].Leader != 1 ||
		len(md.Topics[0].Partitions[0].ISR) != 3 || md.ClusterID == "" || md.Topics[0].TopicID == [16]byte{} {
		t.Fatalf("metadata %+v", md)
	}
	md = reply(t, c, core.BrokerRequest{Conn: "k1", Correlation: 2, Metadata: &core.MetadataRequest{Topics: []string{"nope"}}}).Metadata
	if md.Topics[0].Error != "UNKNOWN_TOPIC_OR_PARTITION" {
		t.Fatalf("unknown topic: %+v", md.Topics)
	}

	pid := reply(t, c, core.BrokerRequest{Conn: "k1", Correlation: 3, InitProducerID: &core.InitProducerIDRequest{}}).InitProducerID
	if pid.Error != "" || pid.ProducerID < 0 {
		t.Fatalf("init producer id %+v", pid)
	}

	apply(t, c, core.OpenConn{Conn: "k2", Host: "kgo", Broker: 1})
	if r := reply(t, c, produceReq("k2", 4, -1, "a", "b", "c")).Produce; r.Partitions[0].Error != "" {
		t.Fatalf("produce %+v", r)
	}
	lo := reply(t, c, core.BrokerRequest{Conn: "k2", Correlation: 5, ListOffsets: &core.ListOffsetsRequest{Partitions: []core.ListOffsetsPartition{
		{Topic: "t", Timestamp: -2, CurrentLeaderEpoch: -1}, {Topic: "t", Partition: 9, Timestamp: -1}}}}).ListOffsets
	if lo.Partitions[0].Offset != 0 || lo.Partitions[1].Error != "UNKNOWN_TOPIC_OR_PARTITION" {
		t.Fatalf("list offsets %+v", lo)
	}
	if lo := reply(t, c, core.BrokerRequest{Conn: "k2", Correlation: 50, ListOffsets: &core.ListOffsetsRequest{Partitions: []core.ListOffsetsPartition{
		{Topic: "t", Timestamp: -1, CurrentLeaderEpoch: -1}}}}).ListOffsets; lo.Partitions[0].Offset != 3 {
		t.Fatalf("list offsets, latest %+v", lo)
	}
	// A partition asked twice in one request is INVALID_REQUEST each time
	// (KafkaApis: ListOffsetsRequest.duplicatePartitions), as kcat -Q
	// -t t:0:-1 -t t:0:-2 gets from Kafka.
	lo = reply(t, c, core.BrokerRequest{Conn: "k2", Correlation: 51, ListOffsets: &core.ListOffsetsRequest{Partitions: []core.ListOffsetsPartition{
		{Topic: "t", Timestamp: -2, CurrentLeaderEpoch: -1}, {Topic: "t", Timestamp: -1, CurrentLeaderEpoch: -1}}}}).ListOffsets
	if lo.Partitions[0].Error != "INVALID_REQUEST" || lo.Partitions[1].Error != "INVALID_REQUEST" || lo.Partitions[0].Offset != -1 {
		t.Fatalf("list offsets, a partition twice %+v", lo)
	}
	// Broker 2 follows: ListOffsets there is refused.
	lo = reply(t, c, core.BrokerRequest{Conn: "k1", Correlation: 6, ListOffsets: &core.ListOffsetsRequest{Partitions: []core.ListOffsetsPartition{{Topic: "t", Timestamp: -1, CurrentLeaderEpoch: -1}}}}).ListOffsets
	if lo.Partitions[0].Error != "NOT_LEADER_OR_FOLLOWER" {
		t.Fatalf("list offsets on a follower %+v", lo)
	}
	ep := reply(t, c, core.BrokerRequest{Conn: "k2", Correlation: 7, OffsetForLeaderEpoch: &core.OffsetForLeaderEpochRequest{Partitions: []core.OffsetForLeaderEpochPartition{{Topic: "t", CurrentLeaderEpoch: -1, LeaderEpoch: 0}}}}).OffsetForLeaderEpoch
	if ep.Partitions[0].Error != "" || ep.Partitions[0].EndOffset != 3 {
		t.Fatalf("offset for leader epoch %+v", ep)
	}

	// Groups: the coordinator is found (after __consumer_offsets exists),
	// a commit outside the group protocol is stored and read back.
	var coord int
	for corr := int32(10); corr < 20; corr++ {
		fc := reply(t, c, core.BrokerRequest{Conn: "k1", Correlation: corr, FindCoordinator: &core.FindCoordinatorRequest{Key: "g"}}).FindCoordinator
		if fc.Error == "" {
			coord = fc.Coordinator
			break
		}
	}
	if coord == 0 {
		t.Fatal("no coordinator for g")
	}
	apply(t, c, core.OpenConn{Conn: "k3", Host: "kgo", Broker: coord})
	oc := reply(t, c, core.BrokerRequest{Conn: "k3", Correlation: 20, OffsetCommit: &core.OffsetCommitRequest{Group: "g", Generation: -1,
		Partitions: []core.OffsetCommitPartition{{Topic: "t", Offset: 2}}}}).OffsetCommit
	if oc.Partitions[0].Error != "" {
		t.Fatalf("offset commit %+v", oc)
	}
	of := reply(t, c, core.BrokerRequest{Conn: "k3", Correlation: 21, OffsetFetch: &core.OffsetFetchRequest{Group: "g"}}).OffsetFetch
	if of.Error != "" || len(of.Partitions) != 1 || of.Partitions[0].Offset != 2 {
		t.Fatalf("offset fetch %+v", of)
	}
	if r := reply(t, c, core.BrokerRequest{Conn: "k3", Correlation: 22, Other: &core.OtherRequest{API: "ApiVersions v3"}}); r.Other == nil || r.API != "ApiVersions v3" {
		t.Fatalf("other %+v", r)
	}
	if err := c.Apply(core.BrokerRequest{Conn: "k3", Correlation: 23}); err == nil {
		t.Fatal("a request with no body was taken")
	}
}
