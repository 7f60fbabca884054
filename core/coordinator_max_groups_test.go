package core

import "testing"

// TestCoordinatorMaxGroups: a coordinator holding maxGroups groups
// answers COORDINATOR_NOT_AVAILABLE to a JoinGroup or an OffsetCommit
// that would create another, and makes none, while the groups it has go
// on committing and joining (the bound lowered to 2 here; it is
// maxCoordinatorGroups).
func TestCoordinatorMaxGroups(t *testing.T) {
	c, err := New(Options{Brokers: 3, Seed: 5, Version: "3.9", Metadata: "kraft"})
	if err != nil {
		t.Fatal(err)
	}
	must := func(cmd Command) {
		t.Helper()
		if err := c.Apply(cmd); err != nil {
			t.Fatal(err)
		}
	}
	must(Set{Configs: map[string]string{"offsets.topic.num.partitions": "1", "group.initial.rebalance.delay.ms": "0"}})
	must(CreateTopic{Topic: "t", Partitions: 1, RF: 3})
	if _, err := c.Advance(1000); err != nil {
		t.Fatal(err)
	}
	for _, b := range c.brokers {
		b.groups.maxGroups = 2
	}
	corr := int32(0)
	ask := func(conn string, req BrokerRequest) *Reply {
		t.Helper()
		corr++
		req.Conn, req.Correlation = conn, corr
		must(req)
		for ms := 0; ms < 5000; ms += 10 {
			if _, err := c.Advance(10); err != nil {
				t.Fatal(err)
			}
			for _, e := range c.Events() {
				if e.Type == EvResponse && e.Reply.Conn == conn && e.Reply.Correlation == corr {
					return e.Reply
				}
			}
		}
		t.Fatalf("no reply to %+v", req)
		return nil
	}
	must(OpenConn{Conn: "find", Host: "kgo", Broker: 1})
	coord := -1
	for i := 0; i < 10 && coord < 0; i++ {
		if fc := ask("find", BrokerRequest{FindCoordinator: &FindCoordinatorRequest{Key: "a"}}).FindCoordinator; fc.Error == "" {
			coord = fc.Coordinator
		}
	}
	must(OpenConn{Conn: "k", Host: "kgo", Broker: coord})
	commit := func(group string) string {
		t.Helper()
		r := ask("k", BrokerRequest{OffsetCommit: &OffsetCommitRequest{Group: group, Generation: -1,
			Partitions: []OffsetCommitPartition{{Topic: "t", Offset: 1}}}}).OffsetCommit
		return r.Partitions[0].Error
	}
	join := func(group string) string {
		t.Helper()
		return ask("k", BrokerRequest{JoinGroup: &JoinGroupRequest{Group: group, ClientID: "kgo", InstanceID: "i", SessionMs: 10000,
			RebalanceMs: 10000, Protocols: []string{"range"}, Topics: []string{"t"}, Generation: -1}}).JoinGroup.Error
	}
	for _, tc := range []struct{ what, got, want string }{
		{"commit to a new group a", commit("a"), ""},
		{"join a new group b", join("b"), ""},
		{"commit to a third group", commit("c"), "COORDINATOR_NOT_AVAILABLE"},
		{"join a third group", join("d"), "COORDINATOR_NOT_AVAILABLE"},
		{"commit to group a again", commit("a"), ""},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %q, want %q", tc.what, tc.got, tc.want)
		}
	}
	if n := len(c.Broker(coord).groups.groups); n != 2 {
		t.Errorf("the coordinator holds %d groups, want 2", n)
	}
}

// TestPendingMembersBounded: JoinGroups without a member id (each handed
// an id to join again with, KIP-394) keep at most maxGroupMembers pending
// ids in a group; the next is GROUP_MAX_SIZE_REACHED.
func TestPendingMembersBounded(t *testing.T) {
	c, err := New(Options{Brokers: 3, Seed: 5, Version: "3.9", Metadata: "kraft"})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Apply(CreateTopic{Topic: "t", Partitions: 1, RF: 3}); err != nil {
		t.Fatal(err)
	}
	if err := c.createOffsetsTopic(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Advance(1000); err != nil {
		t.Fatal(err)
	}
	p := c.offsetsPartition("g")
	b := c.Broker(p.Leader())
	var last string
	for i := 0; i <= maxGroupMembers; i++ {
		b.handleJoinGroup(joinReq{group: "g", client: "kgo", protocols: []string{"range"}, sessionMs: 10000, rebalanceMs: 10000},
			func(r joinResult) { last = r.err })
		if i < maxGroupMembers && last != "MEMBER_ID_REQUIRED" {
			t.Fatalf("join %d: %q, want MEMBER_ID_REQUIRED", i, last)
		}
	}
	if last != "GROUP_MAX_SIZE_REACHED" {
		t.Errorf("join past %d pending member ids: %q, want GROUP_MAX_SIZE_REACHED", maxGroupMembers, last)
	}
	if n := len(b.groups.groups["g"].pending); n != maxGroupMembers {
		t.Errorf("%d pending member ids, want %d", n, maxGroupMembers)
	}
}
