package core_test

import (
	"testing"

	"github.com/kafkasim/kafkasim/core"
)

// TestDeleteGroupsBelowMinISR: up to 3.9 DeleteGroups' tombstones are
// appended with requiredAcks = 0 (GroupMetadataManager
// .cleanupGroupMetadata), which checks no min.insync.replicas
// (Partition.appendRecordsToLeader): with __consumer_offsets' ISR down
// to its leader they are still written, so the coordinator that loads
// the group later has no offsets. They were refused like a commit
// (NOT_ENOUGH_REPLICAS), DeleteGroups still answered no error, and the
// next coordinator brought the group's offset back.
func TestDeleteGroupsBelowMinISR(t *testing.T) {
	c, err := core.New(core.Options{Brokers: 3, Seed: 1, Version: "3.9", Metadata: "kraft"})
	if err != nil {
		t.Fatal(err)
	}
	apply(t, c, core.Set{Configs: map[string]string{"min.insync.replicas": "2", "offsets.topic.num.partitions": "1", "replica.lag.time.max.ms": "5000"}})
	apply(t, c, core.CreateTopic{Topic: "t", Partitions: 1, RF: 1, Configs: map[string]string{"min.insync.replicas": "1"}})
	apply(t, c, core.OpenConn{Conn: "k1", Host: "kgo", Broker: 1})
	var fc *core.FindCoordinatorResponse
	for i := int32(1); i <= 5; i++ { // the first creates __consumer_offsets
		if fc = reply(t, c, core.BrokerRequest{Conn: "k1", Correlation: i, FindCoordinator: &core.FindCoordinatorRequest{Key: "g"}}).FindCoordinator; fc.Error == "" {
			break
		}
	}
	if fc.Error != "" {
		t.Fatalf("find coordinator: %+v", fc)
	}
	coord := fc.Coordinator
	apply(t, c, core.OpenConn{Conn: "k2", Host: "kgo", Broker: coord})
	oc := reply(t, c, core.BrokerRequest{Conn: "k2", Correlation: 12, OffsetCommit: &core.OffsetCommitRequest{Group: "g", Generation: -1,
		Partitions: []core.OffsetCommitPartition{{Topic: "t", Partition: 0, Offset: 3}}}}).OffsetCommit
	if len(oc.Partitions) != 1 || oc.Partitions[0].Error != "" {
		t.Fatalf("commit: %+v", oc)
	}
	var others []int
	for id := 1; id <= 3; id++ {
		if id != coord {
			others = append(others, id)
			apply(t, c, core.CrashBroker{Broker: id})
		}
	}
	advance(t, c, 15000) // the ISR shrinks to the coordinator
	dg := reply(t, c, core.BrokerRequest{Conn: "k2", Correlation: 13, DeleteGroups: &core.DeleteGroupsRequest{Groups: []string{"g"}}}).DeleteGroups
	if len(dg.Groups) != 1 || dg.Groups[0].Error != "" {
		t.Fatalf("delete: %+v", dg)
	}
	for _, id := range others {
		apply(t, c, core.Restart{Broker: id})
	}
	advance(t, c, 30000)
	apply(t, c, core.CrashBroker{Broker: coord})
	advance(t, c, 15000)
	p, err := c.Partition("t-0")
	if err != nil {
		t.Fatal(err)
	}
	if off, ok, err := c.GroupCommitted("g", p); err != nil || ok {
		t.Errorf("the next coordinator has g's offset: %d %v %v, want none", off, ok, err)
	}
}
