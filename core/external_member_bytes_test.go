package core_test

import (
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core"
)

// TestExternalMemberBytes: a group keeps its members' protocol metadata
// as they sent it and answers it to the leader (and DescribeGroups) for
// the chosen protocol, up to core.MaxRawAssignmentBytes for the group in
// all: a member past it is answered "" (encoded from its subscription by
// the protocol layer). What is kept is written to __consumer_offsets
// with the group and read back by the next coordinator, the leader's
// assignment bytes too.
func TestExternalMemberBytes(t *testing.T) {
	c := extCluster(t)
	coordinatorConn(t, c, "j1", "g")
	coordinatorConn(t, c, "j2c", "g")
	big := strings.Repeat("m", core.MaxRawAssignmentBytes*3/4) + "\xff"
	other := strings.Repeat("o", core.MaxRawAssignmentBytes/2)
	join := func(conn, instance string, meta ...string) core.BrokerRequest {
		return core.BrokerRequest{Conn: conn, Correlation: 50, JoinGroup: &core.JoinGroupRequest{Group: "g", ClientID: conn, InstanceID: instance,
			SessionMs: 10000, RebalanceMs: 10000, Protocols: []string{"range", "roundrobin"}[:len(meta)], Topics: []string{"t"}, Generation: -1, Metadata: meta}}
	}
	apply(t, c, join("j1", "i1", "x", big))
	apply(t, c, join("j2c", "i2", "y", other))
	advance(t, c, 12_000) // the initial rebalance delay, extended by the second join
	var leader *core.JoinGroupResponse
	for _, e := range ofType(c.Events(), core.EvResponse) {
		if jg := e.Reply.JoinGroup; jg != nil && jg.Leader == jg.MemberID {
			leader = jg
		}
	}
	if leader == nil || leader.Protocol != "range" || len(leader.Members) != 2 {
		t.Fatalf("leader's join: %+v", leader)
	}
	// The first to join leads; "range" is chosen, whose bytes are small:
	// the budget counts every protocol's, so the second member's are not
	// kept.
	if leader.Members[0].Metadata != "x" || leader.Members[1].Metadata != "" {
		t.Errorf("members' metadata %q and %q, want x as sent and none (past the group's bound)", leader.Members[0].Metadata, leader.Members[1].Metadata)
	}
	ids := []string{leader.Members[0].MemberID, leader.Members[1].MemberID}
	sync := core.SyncGroupRequest{Group: "g", MemberID: leader.MemberID, Generation: leader.Generation,
		Assignments: map[string][]core.GroupPartition{ids[0]: {{Topic: "t"}}, ids[1]: {}}, Raw: map[string]string{ids[0]: "a\x00", ids[1]: "b"}}
	if r := reply(t, c, core.BrokerRequest{Conn: "j1", Correlation: 51, SyncGroup: &sync}).SyncGroup; r.Error != "" || r.Raw != "a\x00" {
		t.Fatalf("sync: %+v", r)
	}
	coord := 0
	for _, g := range c.Snapshot().Groups {
		coord = g.Coordinator
	}
	apply(t, c, core.CrashBroker{Broker: coord})
	advance(t, c, 10_000)
	ms := c.DescribeGroupMembers("g")
	if len(ms) != 2 || ms[0].MemberID != ids[0] || ms[0].Metadata != "x" || ms[0].Raw != "a\x00" || ms[1].Metadata != "" || ms[1].Raw != "b" {
		t.Errorf("the next coordinator's members: %+v", ms)
	}
}
