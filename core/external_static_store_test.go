package core_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core"
)

// TestExternalStaticRejoinStored: a static member back under a new member
// id in a Stable group is answered only once the group, with the new id,
// is written to __consumer_offsets (GroupCoordinator
// .updateStaticMemberAndRebalance answers from storeGroup's callback).
// When the write fails (the followers paused: the acks=all append times
// out after offsets.commit.timeout.ms) the answer is the error with no
// member id (TestStoreTimeoutErrors: which error), and the member is back under its old id, whose heartbeats
// the group still takes. A second instance under the same id while the
// first waits fences the first.
func TestExternalStaticRejoinStored(t *testing.T) {
	c := extCluster(t)
	coordinatorConn(t, c, "j", "g")
	join := func(corr int32) core.BrokerRequest {
		return core.BrokerRequest{Conn: "j", Correlation: corr, JoinGroup: &core.JoinGroupRequest{Group: "g", ClientID: "kgo", InstanceID: "i1",
			SessionMs: 10000, RebalanceMs: 10000, Protocols: []string{"range"}, Topics: []string{"t"}, Generation: -1}}
	}
	j1 := replyWithin(t, c, 10_000, join(1)).JoinGroup
	if j1.Error != "" || j1.Generation != 1 {
		t.Fatalf("join: %+v", j1)
	}
	sync := core.SyncGroupRequest{Group: "g", MemberID: j1.MemberID, Generation: 1, Assignments: map[string][]core.GroupPartition{j1.MemberID: {{Topic: "t"}}}}
	if s := reply(t, c, core.BrokerRequest{Conn: "j", Correlation: 2, SyncGroup: &sync}).SyncGroup; s.Error != "" {
		t.Fatalf("sync: %+v", s)
	}
	coord := 0
	for _, g := range c.Snapshot().Groups {
		coord = g.Coordinator
	}

	// The answer comes with the group's record committed.
	apply(t, c, join(3))
	var j2 *core.JoinGroupResponse
	for ms := 0; ms < 1000 && j2 == nil; ms++ {
		advance(t, c, 1)
		for _, e := range ofType(c.Events(), core.EvResponse) {
			if e.Reply.Correlation == 3 {
				j2 = e.Reply.JoinGroup
			}
		}
	}
	if j2 == nil || j2.Error != "" || j2.Generation != 1 || j2.MemberID == j1.MemberID {
		t.Fatalf("rejoin under a new id: %+v", j2)
	}
	if !committedGroupRecord(t, c, j2.MemberID) {
		t.Errorf("the rejoin was answered before __consumer_offsets committed the group with member %s", j2.MemberID)
	}

	// A failed write: the error, and the member keeps its id.
	for b := 1; b <= 3; b++ {
		if b != coord {
			apply(t, c, core.Pause{Broker: b})
		}
	}
	apply(t, c, join(4))
	sent := c.Now()
	var failed *core.JoinGroupResponse
	for ms := 0; ms < 8000 && failed == nil; ms += 10 {
		advance(t, c, 10)
		for _, e := range ofType(c.Events(), core.EvResponse) {
			if e.Reply.Correlation == 4 {
				failed = e.Reply.JoinGroup
			}
		}
	}
	if failed == nil || failed.Error != "REBALANCE_IN_PROGRESS" || failed.MemberID != "" || c.Now()-sent < 5000 {
		t.Fatalf("rejoin while the group cannot be written: %+v after %d ms, want REBALANCE_IN_PROGRESS (3.9's storeGroup for a timeout) with no member id after offsets.commit.timeout.ms", failed, c.Now()-sent)
	}
	if ms := c.DescribeGroupMembers("g"); len(ms) != 1 || ms[0].MemberID != j2.MemberID {
		t.Errorf("members after the failed store: %+v, want %s back", ms, j2.MemberID)
	}
	if hb := reply(t, c, core.BrokerRequest{Conn: "j", Correlation: 5, Heartbeat: &core.HeartbeatRequest{Group: "g", MemberID: j2.MemberID, Generation: 1}}).Heartbeat; hb.Error != "" {
		t.Errorf("heartbeat of the member's old id after the failed store: %q", hb.Error)
	}

	// Another instance with the same id while the first waits fences it
	// (GroupMetadata.replaceStaticMember).
	apply(t, c, core.OpenConn{Conn: "j2", Host: "kgo2", Broker: coord})
	apply(t, c, join(6))
	advance(t, c, 50)
	second := join(7)
	second.Conn = "j2" // a connection handles one request at a time
	apply(t, c, second)
	advance(t, c, 50)
	var fenced *core.JoinGroupResponse
	for _, e := range ofType(c.Events(), core.EvResponse) {
		if e.Reply.Correlation == 6 {
			fenced = e.Reply.JoinGroup
		}
	}
	if fenced == nil || fenced.Error != "FENCED_INSTANCE_ID" {
		t.Errorf("the first of two rejoins under one instance id, while its store waits: %+v, want FENCED_INSTANCE_ID", fenced)
	}
}

// committedGroupRecord reports whether some __consumer_offsets partition
// has committed a group record naming member.
func committedGroupRecord(t *testing.T, c *core.Cluster, member string) bool {
	t.Helper()
	for i := 0; i < 50; i++ {
		p, err := c.Partition("__consumer_offsets-" + strconv.Itoa(i))
		if err != nil {
			continue
		}
		recs, _ := c.CommittedLog(p)
		for _, r := range recs {
			if strings.HasPrefix(r, "{") && strings.Contains(r, `"id":"`+member+`"`) {
				return true
			}
		}
	}
	return false
}
