package core_test

import (
	"testing"

	"github.com/kafkasim/kafkasim/core"
)

// braceGroupFetch is group's committed offset of t-0 as conn's broker
// answers it.
func braceGroupFetch(t *testing.T, c *core.Cluster, conn, group string, corr int32) core.OffsetFetchPartitionResponse {
	t.Helper()
	r := reply(t, c, core.BrokerRequest{Conn: conn, Correlation: corr, OffsetFetch: &core.OffsetFetchRequest{Group: group,
		Partitions: []core.OffsetFetchPartition{{Topic: "t"}}}}).OffsetFetch
	if r.Error != "" || len(r.Partitions) != 1 {
		t.Fatalf("fetch: %+v", r)
	}
	return r.Partitions[0]
}

// groupCoordinator is the broker the snapshot names as group's
// coordinator (0: none).
func groupCoordinator(c *core.Cluster, group string) int {
	for _, g := range c.Snapshot().Groups {
		if g.Name == group {
			return g.Coordinator
		}
	}
	return 0
}

// TestBraceGroupOffsetsSurviveFailover: Kafka allows any group id, one
// starting with "{" too, whose short offset record "{weird/t-0=5" starts
// as the JSON form does; the next coordinator still reads it back, and
// a commit with metadata (the JSON form) then its expiry's tombstone
// "{weird/t-0=null" leave no offset after the next failover.
func TestBraceGroupOffsetsSurviveFailover(t *testing.T) {
	const group = "{weird"
	c := extCluster(t)
	apply(t, c, core.Set{Configs: map[string]string{"offsets.retention.minutes": "1", "offsets.retention.check.interval.ms": "1000"}})
	coordinatorConn(t, c, "k", group)
	commit := func(conn string, corr int32, off int64, meta string) {
		t.Helper()
		r := reply(t, c, core.BrokerRequest{Conn: conn, Correlation: corr, OffsetCommit: &core.OffsetCommitRequest{Group: group, Generation: -1,
			Partitions: []core.OffsetCommitPartition{{Topic: "t", Offset: off, Metadata: meta}}}}).OffsetCommit
		if e := r.Partitions[0].Error; e != "" {
			t.Fatalf("commit: %s", e)
		}
	}
	commit("k", 1, 5, "")
	apply(t, c, core.CrashBroker{Broker: groupCoordinator(c, group)})
	advance(t, c, 10_000)
	coordinatorConn(t, c, "k2", group)
	if got := braceGroupFetch(t, c, "k2", group, 2); got.Offset != 5 {
		t.Fatalf("the next coordinator fetched %+v, want offset 5", got)
	}

	// The JSON form (metadata), then its expiry's short tombstone.
	commit("k2", 3, 6, "m")
	coord := groupCoordinator(c, group)
	advance(t, c, 70_000)
	if got := braceGroupFetch(t, c, "k2", group, 4); got.Offset != -1 {
		t.Fatalf("after expiry: %+v, want no offset", got)
	}
	// Only the tombstone, not a second expiry, may remove it now.
	apply(t, c, core.Set{Configs: map[string]string{"offsets.retention.minutes": "1000"}})
	apply(t, c, core.CrashBroker{Broker: coord})
	advance(t, c, 10_000)
	coordinatorConn(t, c, "k3", group)
	if got := braceGroupFetch(t, c, "k3", group, 5); got.Offset != -1 {
		t.Errorf("the next coordinator after the tombstone fetched %+v, want no offset", got)
	}
}

// TestBraceGroupTombstoneSurvivesFailover: the tombstone "{weird=null" of
// a dead group whose id starts with "{" is read back by the next
// coordinator, which does not bring the group back.
func TestBraceGroupTombstoneSurvivesFailover(t *testing.T) {
	const group = "{weird"
	c := extCluster(t)
	apply(t, c, core.Set{Configs: map[string]string{"offsets.retention.check.interval.ms": "1000"}})
	coordinatorConn(t, c, "k", group)
	jg := replyWithin(t, c, 10_000, core.BrokerRequest{Conn: "k", Correlation: 1, JoinGroup: &core.JoinGroupRequest{Group: group, ClientID: "kgo",
		SessionMs: 10000, RebalanceMs: 10000, Protocols: []string{"range"}, Topics: []string{"t"}, Generation: -1, PreKIP394: true}}).JoinGroup
	if jg.Error != "" {
		t.Fatalf("join: %+v", jg)
	}
	if sg := replyWithin(t, c, 10_000, core.BrokerRequest{Conn: "k", Correlation: 2, SyncGroup: &core.SyncGroupRequest{Group: group,
		MemberID: jg.MemberID, Generation: jg.Generation}}).SyncGroup; sg.Error != "" {
		t.Fatalf("sync: %+v", sg)
	}
	coord := groupCoordinator(c, group)
	reply(t, c, core.BrokerRequest{Conn: "k", Correlation: 3, LeaveGroup: &core.LeaveGroupRequest{Group: group, MemberIDs: []string{jg.MemberID}}})
	advance(t, c, 3000) // Empty with no offsets: Dead, "{weird=null" written
	if groupCoordinator(c, group) != 0 {
		t.Fatalf("group %s still there after the cleanup", group)
	}
	// No cleanup on the next coordinator may hide a tombstone it dropped.
	apply(t, c, core.Set{Configs: map[string]string{"offsets.retention.check.interval.ms": "600000"}})
	advance(t, c, 2000)
	apply(t, c, core.CrashBroker{Broker: coord})
	advance(t, c, 10_000)
	if n := groupCoordinator(c, group); n != 0 {
		t.Errorf("broker %d brought group %s back from the log", n, group)
	}
}
