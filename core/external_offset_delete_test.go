package core_test

import (
	"testing"

	"github.com/kafkasim/kafkasim/core"
)

// coordConnID opens conn k2 to group's coordinator and returns its id.
func coordConnID(t *testing.T, c *core.Cluster, group string) int {
	t.Helper()
	apply(t, c, core.OpenConn{Conn: "k1", Host: "kgo", Broker: 1})
	var fc *core.FindCoordinatorResponse
	for i := int32(100); i < 105; i++ { // the first creates __consumer_offsets
		if fc = reply(t, c, core.BrokerRequest{Conn: "k1", Correlation: i, FindCoordinator: &core.FindCoordinatorRequest{Key: group}}).FindCoordinator; fc.Error == "" {
			break
		}
	}
	if fc.Error != "" {
		t.Fatalf("find coordinator: %+v", fc)
	}
	apply(t, c, core.OpenConn{Conn: "k2", Host: "kgo", Broker: fc.Coordinator})
	return fc.Coordinator
}

func offsetDelete(t *testing.T, c *core.Cluster, conn string, corr int32, group string, parts ...core.GroupPartition) *core.OffsetDeleteResponse {
	t.Helper()
	return reply(t, c, core.BrokerRequest{Conn: conn, Correlation: corr, OffsetDelete: &core.OffsetDeleteRequest{Group: group, Partitions: parts}}).OffsetDelete
}

func committed(t *testing.T, c *core.Cluster, group, part string) (int64, bool) {
	t.Helper()
	p, err := c.Partition(part)
	if err != nil {
		t.Fatal(err)
	}
	off, ok, err := c.GroupCommitted(group, p)
	if err != nil {
		t.Fatal(err)
	}
	return off, ok
}

// TestOffsetDeleteEmptyGroup: OffsetDelete (KIP-496) deletes an Empty
// group's committed offset, which OffsetFetch then answers -1; the group,
// left with no offsets, is Dead, and asked again GROUP_ID_NOT_FOUND.
// An empty group id is INVALID_GROUP_ID, a broker that does not
// coordinate the group NOT_COORDINATOR, an unknown partition
// UNKNOWN_TOPIC_OR_PARTITION with the others deleted.
func TestOffsetDeleteEmptyGroup(t *testing.T) {
	c := extCluster(t)
	coord := coordConnID(t, c, "g")
	oc := reply(t, c, core.BrokerRequest{Conn: "k2", Correlation: 1, OffsetCommit: &core.OffsetCommitRequest{Group: "g", Generation: -1,
		Partitions: []core.OffsetCommitPartition{{Topic: "t", Partition: 0, Offset: 3}}}}).OffsetCommit
	if oc.Partitions[0].Error != "" {
		t.Fatalf("commit: %+v", oc)
	}
	if r := offsetDelete(t, c, "k2", 2, ""); r.Error != "INVALID_GROUP_ID" {
		t.Errorf("empty group id: %+v", r)
	}
	other := coord%3 + 1
	apply(t, c, core.OpenConn{Conn: "k3", Host: "kgo", Broker: other})
	if r := offsetDelete(t, c, "k3", 3, "g", core.GroupPartition{Topic: "t", Partition: 0}); r.Error != "NOT_COORDINATOR" || len(r.Partitions) != 0 {
		t.Errorf("at broker %d: %+v, want NOT_COORDINATOR", other, r)
	}
	r := offsetDelete(t, c, "k2", 4, "g", core.GroupPartition{Topic: "t", Partition: 0}, core.GroupPartition{Topic: "t", Partition: 9})
	want := []core.OffsetDeletePartitionResponse{{Topic: "t", Partition: 0}, {Topic: "t", Partition: 9, Error: "UNKNOWN_TOPIC_OR_PARTITION"}}
	if r.Error != "" || len(r.Partitions) != 2 || r.Partitions[0] != want[0] || r.Partitions[1] != want[1] {
		t.Fatalf("delete: %+v, want %+v", r, want)
	}
	of := reply(t, c, core.BrokerRequest{Conn: "k2", Correlation: 5, OffsetFetch: &core.OffsetFetchRequest{Group: "g", Partitions: []core.OffsetFetchPartition{{Topic: "t", Partition: 0}}}}).OffsetFetch
	if of.Error != "" || of.Partitions[0].Offset != -1 {
		t.Errorf("offset fetch after: %+v, want -1", of)
	}
	if st, ok := c.GroupState("g"); ok && st != "Dead" {
		t.Errorf("group state %q, want Dead (or gone)", st)
	}
	if r := offsetDelete(t, c, "k2", 6, "g", core.GroupPartition{Topic: "t", Partition: 0}); r.Error != "GROUP_ID_NOT_FOUND" {
		t.Errorf("again: %+v, want GROUP_ID_NOT_FOUND", r)
	}
}

// TestOffsetDeleteSubscribedTopic: a group with a member keeps the
// offsets of the topics its members subscribe to
// (GROUP_SUBSCRIBED_TO_TOPIC) and loses those of others, and its
// tombstone is in __consumer_offsets: the coordinator after a crash
// loads the group without it.
func TestOffsetDeleteSubscribedTopic(t *testing.T) {
	c := extCluster(t)
	apply(t, c, core.CreateTopic{Topic: "u", Partitions: 1, RF: 3, Assign: [][]int{{1, 2, 3}}})
	advance(t, c, 1000)
	coord := coordConnID(t, c, "g")
	oc := reply(t, c, core.BrokerRequest{Conn: "k2", Correlation: 1, OffsetCommit: &core.OffsetCommitRequest{Group: "g", Generation: -1,
		Partitions: []core.OffsetCommitPartition{{Topic: "t", Partition: 0, Offset: 0}, {Topic: "u", Partition: 0, Offset: 2}}}}).OffsetCommit
	if oc.Partitions[0].Error != "" || oc.Partitions[1].Error != "" {
		t.Fatalf("commit: %+v", oc)
	}
	apply(t, c, core.NewConsumer{Name: "c1", Group: "g", Topics: []string{"t"}})
	apply(t, c, core.Poll{Consumer: "c1", Timeout: 8000})
	advance(t, c, 9000)
	if st, _ := c.GroupState("g"); st != "Stable" {
		t.Fatalf("group %s, want Stable", st)
	}
	r := offsetDelete(t, c, "k2", 2, "g", core.GroupPartition{Topic: "t", Partition: 0}, core.GroupPartition{Topic: "u", Partition: 0})
	want := []core.OffsetDeletePartitionResponse{{Topic: "t", Partition: 0, Error: "GROUP_SUBSCRIBED_TO_TOPIC"}, {Topic: "u", Partition: 0}}
	if r.Error != "" || len(r.Partitions) != 2 || r.Partitions[0] != want[0] || r.Partitions[1] != want[1] {
		t.Fatalf("delete: %+v, want %+v", r, want)
	}
	if _, ok := committed(t, c, "g", "t-0"); !ok {
		t.Error("t-0's offset went with the delete refused")
	}
	if off, ok := committed(t, c, "g", "u-0"); ok {
		t.Errorf("u-0's offset %d is still there", off)
	}
	apply(t, c, core.CrashBroker{Broker: coord})
	advance(t, c, 15000)
	if off, ok := committed(t, c, "g", "u-0"); ok {
		t.Errorf("the next coordinator has u-0's offset %d", off)
	}
}
