package core_test

import (
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core"
)

// storeErrorCluster is a three-broker cluster of version v with topic t
// (two partitions) and a connection "j" to group g's coordinator, whose
// number it returns.
func storeErrorCluster(t *testing.T, v string) (*core.Cluster, int) {
	t.Helper()
	c, err := core.New(core.Options{Brokers: 3, Seed: 5, Version: v, Metadata: "kraft"})
	if err != nil {
		t.Fatal(err)
	}
	apply(t, c, core.Set{Configs: map[string]string{"offset.metadata.max.bytes": "8"}})
	apply(t, c, core.CreateTopic{Topic: "t", Partitions: 2, RF: 3, Assign: [][]int{{1, 2, 3}, {1, 2, 3}}})
	advance(t, c, 1000)
	c.Events()
	coordinatorConn(t, c, "j", "g")
	coord := 0
	for corr := int32(50); corr < 60 && coord == 0; corr++ {
		fc := reply(t, c, core.BrokerRequest{Conn: "j-find", Correlation: corr, FindCoordinator: &core.FindCoordinatorRequest{Key: "g"}}).FindCoordinator
		coord = fc.Coordinator
	}
	return c, coord
}

// staticJoin is a JoinGroup of static member i1 of group g on "j".
func staticJoin(corr int32, member string) core.BrokerRequest {
	return core.BrokerRequest{Conn: "j", Correlation: corr, JoinGroup: &core.JoinGroupRequest{Group: "g", ClientID: "kgo", InstanceID: "i1", MemberID: member,
		SessionMs: 10000, RebalanceMs: 10000, Protocols: []string{"range"}, Topics: []string{"t"}, Generation: -1}}
}

// stableStaticGroup is storeErrorCluster with group g Stable in
// generation 1, static member i1 its leader (the JoinGroup answer).
func stableStaticGroup(t *testing.T, v string) (*core.Cluster, int, *core.JoinGroupResponse) {
	t.Helper()
	c, coord := storeErrorCluster(t, v)
	j1 := answerWithin(t, c, 10_000, staticJoin(1, "")).JoinGroup
	if j1.Error != "" || j1.Generation != 1 {
		t.Fatalf("join: %+v", j1)
	}
	sync := core.SyncGroupRequest{Group: "g", MemberID: j1.MemberID, Generation: 1, Assignments: map[string][]core.GroupPartition{j1.MemberID: {{Topic: "t"}}}}
	if s := answerWithin(t, c, 2000, core.BrokerRequest{Conn: "j", Correlation: 2, SyncGroup: &sync}).SyncGroup; s.Error != "" {
		t.Fatalf("sync: %+v", s)
	}
	return c, coord, j1
}

// pauseFollowers pauses every broker but coord: the coordinator's
// acks=all appends to __consumer_offsets time out after
// offsets.commit.timeout.ms (5 s).
func pauseFollowers(t *testing.T, c *core.Cluster, coord int) {
	t.Helper()
	for b := 1; b <= 3; b++ {
		if b != coord {
			apply(t, c, core.Pause{Broker: b})
		}
	}
}

// answerWithin applies req and returns its reply, stepping 10 ms at a
// time for up to ms.
func answerWithin(t *testing.T, c *core.Cluster, ms int64, req core.BrokerRequest) *core.Reply {
	t.Helper()
	apply(t, c, req)
	for waited := int64(0); waited < ms; waited += 10 {
		advance(t, c, 10)
		for _, e := range ofType(c.Events(), core.EvResponse) {
			if e.Reply.Conn == req.Conn && e.Reply.Correlation == req.Correlation {
				return e.Reply
			}
		}
	}
	t.Fatalf("no reply to %d within %d ms", req.Correlation, ms)
	return nil
}

// TestStoreTimeoutErrors: a write to __consumer_offsets that times out is
// answered as each coordinator answers it. 3.9's GroupMetadataManager:
// REBALANCE_IN_PROGRESS for a group's metadata (storeGroup, both to a
// static member's rejoin and to SyncGroup) and REQUEST_TIMED_OUT for
// offsets (maybeConvertOffsetCommitError passes it on); 4.0's
// coordinator: COORDINATOR_NOT_AVAILABLE for both
// (appendGroupMetadataErrorToResponseError, handleOperationException),
// and a failed OffsetCommit answers every partition the error, one whose
// metadata is too long included (OffsetCommitRequest.getErrorResponse),
// where 3.9 keeps OFFSET_METADATA_TOO_LARGE for it. The failed static
// rejoin names the group's generation, protocol and leader (the member's
// old id), as updateStaticMemberAndRebalance answers, not generation -1.
func TestStoreTimeoutErrors(t *testing.T) {
	for _, tc := range []struct {
		version, group, commit, tooLarge string
	}{
		{"3.9", "REBALANCE_IN_PROGRESS", "REQUEST_TIMED_OUT", "OFFSET_METADATA_TOO_LARGE"},
		{"4.0", "COORDINATOR_NOT_AVAILABLE", "COORDINATOR_NOT_AVAILABLE", "COORDINATOR_NOT_AVAILABLE"},
	} {
		t.Run(tc.version, func(t *testing.T) {
			// Each write from a fresh cluster: KRaft fences the paused
			// brokers after broker.session.timeout.ms (9 s), and the ISR
			// without them takes writes again.
			c, coord, j1 := stableStaticGroup(t, tc.version)
			pauseFollowers(t, c, coord)
			sent := c.Now()
			failed := answerWithin(t, c, 8000, staticJoin(3, "")).JoinGroup
			if failed.Error != tc.group || failed.MemberID != "" || c.Now()-sent < 5000 {
				t.Errorf("static rejoin whose store timed out: %+v after %d ms, want %s with no member id after offsets.commit.timeout.ms", failed, c.Now()-sent, tc.group)
			}
			if failed.Generation != 1 || failed.Leader != j1.MemberID || failed.Protocol != "range" {
				t.Errorf("static rejoin whose store failed names generation %d, leader %q, protocol %q; want 1, %q (the old id), range",
					failed.Generation, failed.Leader, failed.Protocol, j1.MemberID)
			}

			// An OffsetCommit: one partition's metadata is too long.
			c, coord, j1 = stableStaticGroup(t, tc.version)
			pauseFollowers(t, c, coord)
			oc := answerWithin(t, c, 8000, core.BrokerRequest{Conn: "j", Correlation: 4, OffsetCommit: &core.OffsetCommitRequest{Group: "g", MemberID: j1.MemberID, Generation: 1,
				Partitions: []core.OffsetCommitPartition{{Topic: "t", Offset: 1}, {Topic: "t", Partition: 1, Offset: 1, Metadata: strings.Repeat("m", 9)}}}}).OffsetCommit
			if got := oc.Partitions[0].Error; got != tc.commit {
				t.Errorf("commit whose write timed out: %q, want %q", got, tc.commit)
			}
			if got := oc.Partitions[1].Error; got != tc.tooLarge {
				t.Errorf("commit whose write timed out, partition with too long metadata: %q, want %q", got, tc.tooLarge)
			}

			// A SyncGroup: the leader joins again (a rebalance), then its
			// assignment cannot be stored.
			c, coord, j1 = stableStaticGroup(t, tc.version)
			j5 := answerWithin(t, c, 10_000, staticJoin(5, j1.MemberID)).JoinGroup
			if j5.Error != "" {
				t.Fatalf("rejoin of the leader: %+v", j5)
			}
			pauseFollowers(t, c, coord)
			sync := core.SyncGroupRequest{Group: "g", MemberID: j5.MemberID, Generation: j5.Generation, Assignments: map[string][]core.GroupPartition{j5.MemberID: {{Topic: "t"}}}}
			if s := answerWithin(t, c, 8000, core.BrokerRequest{Conn: "j", Correlation: 6, SyncGroup: &sync}).SyncGroup; s.Error != tc.group {
				t.Errorf("SyncGroup whose store timed out: %q, want %q", s.Error, tc.group)
			}
		})
	}
}
