package core_test

import (
	"testing"

	"github.com/kafkasim/kafkasim/core"
)

// coordinatorConn finds group's coordinator from broker 1 and opens conn
// to it.
func coordinatorConn(t *testing.T, c *core.Cluster, conn, group string) {
	t.Helper()
	apply(t, c, core.OpenConn{Conn: conn + "-find", Host: "kgo", Broker: 1})
	for corr := int32(1); corr < 10; corr++ {
		fc := reply(t, c, core.BrokerRequest{Conn: conn + "-find", Correlation: corr, FindCoordinator: &core.FindCoordinatorRequest{Key: group}}).FindCoordinator
		if fc.Error == "" {
			apply(t, c, core.OpenConn{Conn: conn, Host: "kgo", Broker: fc.Coordinator})
			return
		}
	}
	t.Fatalf("no coordinator for %s", group)
}

// TestExternalCommitValidation: an outside client's OffsetCommit is
// checked as GroupCoordinator.validateOffsetCommit and doCommitOffsets
// check it: a commit without a generation is taken while the group is
// empty whatever member id it names; once the group has a member, one
// from a stranger is UNKNOWN_MEMBER_ID and one from the member with an
// old generation ILLEGAL_GENERATION even while the group awaits its
// assignment, when only the member's own commit of the current
// generation is REBALANCE_IN_PROGRESS.
func TestExternalCommitValidation(t *testing.T) {
	c := extCluster(t)
	coordinatorConn(t, c, "k", "g")
	commit := func(corr int32, member string, gen int32) string {
		t.Helper()
		r := reply(t, c, core.BrokerRequest{Conn: "k", Correlation: corr, OffsetCommit: &core.OffsetCommitRequest{Group: "g", MemberID: member, Generation: gen,
			Partitions: []core.OffsetCommitPartition{{Topic: "t", Offset: int64(corr)}}}}).OffsetCommit
		return r.Partitions[0].Error
	}
	if e := commit(1, "someone", -1); e != "" {
		t.Errorf("a commit without a generation to an empty group, naming a member: %q, want it stored", e)
	}
	jg := replyWithin(t, c, 10_000, core.BrokerRequest{Conn: "k", Correlation: 2, JoinGroup: &core.JoinGroupRequest{Group: "g", ClientID: "kgo",
		SessionMs: 10000, RebalanceMs: 10000, Protocols: []string{"range"}, Topics: []string{"t"}, Generation: -1, PreKIP394: true}}).JoinGroup
	if jg.Error != "" || jg.Generation != 1 {
		t.Fatalf("join: %+v", jg)
	}
	// No SyncGroup yet: the group awaits its assignment (CompletingRebalance).
	for i, tc := range []struct {
		member string
		gen    int32
		want   string
	}{
		{"stranger", 1, "UNKNOWN_MEMBER_ID"},
		{jg.MemberID, 0, "ILLEGAL_GENERATION"},
		{"", -1, "UNKNOWN_MEMBER_ID"},
		{jg.MemberID, 1, "REBALANCE_IN_PROGRESS"},
	} {
		if e := commit(int32(10+i), tc.member, tc.gen); e != tc.want {
			t.Errorf("commit from %q, generation %d, while the group awaits its assignment: %q, want %q", tc.member, tc.gen, e, tc.want)
		}
	}
}

// TestExternalCommitMetadata: an OffsetCommit's metadata and leader
// epoch are written with the offset to __consumer_offsets and answered
// by OffsetFetch, also by the next coordinator, which reads them back
// from the log; a later commit without them clears them (its
// OffsetAndMetadata has none); metadata past offset.metadata.max.bytes
// is OFFSET_METADATA_TOO_LARGE and leaves what was committed.
func TestExternalCommitMetadata(t *testing.T) {
	c := extCluster(t)
	apply(t, c, core.Set{Configs: map[string]string{"offset.metadata.max.bytes": "8"}})
	coordinatorConn(t, c, "k", "g")
	corr := int32(100)
	commit := func(conn string, off int64, meta string, epoch *int32) string {
		t.Helper()
		corr++
		r := reply(t, c, core.BrokerRequest{Conn: conn, Correlation: corr, OffsetCommit: &core.OffsetCommitRequest{Group: "g", Generation: -1,
			Partitions: []core.OffsetCommitPartition{{Topic: "t", Offset: off, Metadata: meta, LeaderEpoch: epoch}}}}).OffsetCommit
		return r.Partitions[0].Error
	}
	fetch := func(conn string) core.OffsetFetchPartitionResponse {
		t.Helper()
		corr++
		r := reply(t, c, core.BrokerRequest{Conn: conn, Correlation: corr, OffsetFetch: &core.OffsetFetchRequest{Group: "g",
			Partitions: []core.OffsetFetchPartition{{Topic: "t"}}}}).OffsetFetch
		if r.Error != "" || len(r.Partitions) != 1 {
			t.Fatalf("fetch: %+v", r)
		}
		return r.Partitions[0]
	}
	zero := int32(0)
	if e := commit("k", 5, "ckpt-é", &zero); e != "" {
		t.Fatalf("commit: %s", e)
	}
	if e := commit("k", 6, "123456789", nil); e != "OFFSET_METADATA_TOO_LARGE" {
		t.Errorf("9 chars of metadata with offset.metadata.max.bytes=8: %q", e)
	}
	if got := fetch("k"); got.Offset != 5 || got.Metadata != "ckpt-é" || got.LeaderEpoch != 0 {
		t.Errorf("fetched %+v, want offset 5, metadata ckpt-é, leader epoch 0", got)
	}
	var coord int
	for _, g := range c.Snapshot().Groups {
		if g.Name == "g" {
			coord = g.Coordinator
		}
	}
	apply(t, c, core.CrashBroker{Broker: coord})
	advance(t, c, 10_000)
	coordinatorConn(t, c, "k2", "g")
	if got := fetch("k2"); got.Offset != 5 || got.Metadata != "ckpt-é" || got.LeaderEpoch != 0 {
		t.Errorf("the next coordinator fetched %+v, want offset 5, metadata ckpt-é, leader epoch 0", got)
	}
	if e := commit("k2", 7, "", nil); e != "" {
		t.Fatalf("commit: %s", e)
	}
	if got := fetch("k2"); got.Offset != 7 || got.Metadata != "" || got.LeaderEpoch != -1 {
		t.Errorf("after a commit with neither: %+v, want offset 7, no metadata, leader epoch -1", got)
	}
}

// TestExternalOffsetFetchNoTopicsReplays: a single group's OffsetFetch
// with an empty topic list that is not null asks for nothing, one with a
// null list for every committed partition (OffsetFetchRequest
// .isAllPartitions), and each answers the same once it has gone through
// the outside command JSON, as a room's history replays it.
func TestExternalOffsetFetchNoTopicsReplays(t *testing.T) {
	c := extCluster(t)
	coordinatorConn(t, c, "k", "g")
	if r := reply(t, c, core.BrokerRequest{Conn: "k", Correlation: 1, OffsetCommit: &core.OffsetCommitRequest{Group: "g", Generation: -1,
		Partitions: []core.OffsetCommitPartition{{Topic: "t", Offset: 4}}}}).OffsetCommit; r.Partitions[0].Error != "" {
		t.Fatalf("commit: %+v", r)
	}
	for i, tc := range []struct {
		name string
		req  core.OffsetFetchRequest
		want int
	}{
		{"null topics", core.OffsetFetchRequest{Group: "g"}, 1},
		{"no topics", core.OffsetFetchRequest{Group: "g", Partitions: []core.OffsetFetchPartition{}, None: true}, 0},
	} {
		req := core.BrokerRequest{Conn: "k", Correlation: int32(10 + i), OffsetFetch: &tc.req}
		data, bytes, err := core.EncodeOutsideCommand(req)
		if err != nil {
			t.Fatal(err)
		}
		cmd, err := core.DecodeOutsideCommand(data, bytes)
		if err != nil {
			t.Fatal(err)
		}
		for _, sent := range []core.BrokerRequest{req, cmd.(core.BrokerRequest)} {
			sent.Correlation += 10
			if r := reply(t, c, sent).OffsetFetch; r.Error != "" || len(r.Partitions) != tc.want {
				t.Errorf("%s (%s): %+v, want %d partitions", tc.name, data, r, tc.want)
			}
		}
	}
}

// TestExternalCommitMetadataNotUTF8: metadata that is not valid UTF-8 is
// decoded once, as Kafka decodes the request's string, each invalid
// byte a U+FFFD: the coordinator answers the same string before and
// after a failover.
func TestExternalCommitMetadataNotUTF8(t *testing.T) {
	c := extCluster(t)
	coordinatorConn(t, c, "k", "g")
	const want = "a\ufffd\ufffdb"
	r := reply(t, c, core.BrokerRequest{Conn: "k", Correlation: 1, OffsetCommit: &core.OffsetCommitRequest{Group: "g", Generation: -1,
		Partitions: []core.OffsetCommitPartition{{Topic: "t", Offset: 5, Metadata: "a\xff\xfeb"}}}}).OffsetCommit
	if e := r.Partitions[0].Error; e != "" {
		t.Fatalf("commit: %s", e)
	}
	if got := braceGroupFetch(t, c, "k", "g", 2); got.Metadata != want {
		t.Errorf("metadata %q, want %q", got.Metadata, want)
	}
	apply(t, c, core.CrashBroker{Broker: groupCoordinator(c, "g")})
	advance(t, c, 10_000)
	coordinatorConn(t, c, "k2", "g")
	if got := braceGroupFetch(t, c, "k2", "g", 3); got.Metadata != want {
		t.Errorf("the next coordinator's metadata %q, want %q", got.Metadata, want)
	}
}
