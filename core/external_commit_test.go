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
