package core

import "testing"

// TestAlterTopicRFMessage: adding partitions of a replication factor the
// live brokers cannot hold is refused with the placer's own words, as a
// topic creation is: ZooKeeper's AdminUtils "Replication factor: 3 larger
// than available brokers: 2.", 2.8 KRaft's SimpleReplicaPlacementPolicy
// wrapped by ReplicationControlManager.createTopic ("Unable to replicate
// the partition 3 times: there are only 2 usable brokers"). alterTopic
// gave 2.8 KRaft the ZooKeeper text.
func TestAlterTopicRFMessage(t *testing.T) {
	for _, tc := range []struct{ meta, want string }{
		{"zk", "INVALID_REPLICATION_FACTOR: Replication factor: 3 larger than available brokers: 2."},
		{"kraft", "INVALID_REPLICATION_FACTOR: Unable to replicate the partition 3 times: there are only 2 usable brokers"},
	} {
		c, err := New(Options{Brokers: 3, Seed: 1, Version: "2.8", Metadata: tc.meta})
		if err != nil {
			t.Fatal(err)
		}
		for _, cmd := range []Command{CreateTopic{Topic: "t", Partitions: 1, RF: 3}, Wait{Duration: 1000}, CrashBroker{Broker: 3}, Wait{Duration: 60000}} {
			if err := c.Exec(cmd); err != nil {
				t.Fatalf("%s: %v", cmd.Kind(), err)
			}
		}
		for what, err := range map[string]error{
			"create":         c.ValidateCreateTopic(CreateTopic{Topic: "u", Partitions: 1, RF: 3}),
			"validate alter": c.ValidateAlterTopic(AlterTopic{Topic: "t", Partitions: 2}),
			"alter":          c.Exec(AlterTopic{Topic: "t", Partitions: 2}),
		} {
			if err == nil || err.Error() != tc.want {
				t.Errorf("2.8 %s, %s: %v, want %q", tc.meta, what, err, tc.want)
			}
		}
	}
}
