package core_test

import (
	"testing"

	"github.com/kafkasim/kafkasim/core"
)

// TestExternalJoinGroupMemberIDRequired: from 2.2 an outside client's
// first JoinGroup (empty member id) is answered MEMBER_ID_REQUIRED with
// the id to join again with (KIP-394), unless the client is static
// (group.instance.id, KIP-345) or its JoinGroup is below v4: Kafka checks
// requireKnownMemberId = version >= 4 && groupInstanceId is empty
// (KafkaApis; 4.0's JoinGroupRequest.requiresKnownMemberId), so
// kafka-python 2.0, which sends v2 and does not know the error, joins at
// once. Before 2.2 nobody is asked.
func TestExternalJoinGroupMemberIDRequired(t *testing.T) {
	for _, tc := range []struct {
		name, version, instance string
		pre                     bool
		required                bool
	}{
		{name: "v4+ on 3.9", version: "3.9", required: true},
		{name: "v4+ on 4.0", version: "4.0", required: true},
		{name: "below v4 on 3.9", version: "3.9", pre: true},
		{name: "below v4 on 4.0", version: "4.0", pre: true},
		{name: "static on 3.9", version: "3.9", instance: "i1"},
		{name: "v4+ on 0.11", version: "0.11"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mode := "kraft"
			if tc.version == "0.11" {
				mode = "zk"
			}
			c, err := core.New(core.Options{Brokers: 3, Seed: 5, Version: tc.version, Metadata: mode})
			if err != nil {
				t.Fatal(err)
			}
			apply(t, c, core.CreateTopic{Topic: "t", Partitions: 2, RF: 3})
			advance(t, c, 1000)
			apply(t, c, core.OpenConn{Conn: "k1", Host: "py", Broker: 1})
			var coord int
			for corr := int32(1); corr < 10 && coord == 0; corr++ {
				fc := reply(t, c, core.BrokerRequest{Conn: "k1", Correlation: corr, FindCoordinator: &core.FindCoordinatorRequest{Key: "g"}}).FindCoordinator
				if fc.Error == "" {
					coord = fc.Coordinator
				}
			}
			if coord == 0 {
				t.Fatal("no coordinator for g")
			}
			apply(t, c, core.OpenConn{Conn: "j", Host: "py", Broker: coord})
			jg := replyWithin(t, c, 10_000, core.BrokerRequest{Conn: "j", Correlation: 1, JoinGroup: &core.JoinGroupRequest{Group: "g", ClientID: "py",
				InstanceID: tc.instance, SessionMs: 10000, RebalanceMs: 10000, Protocols: []string{"range"}, Topics: []string{"t"},
				Generation: -1, PreKIP394: tc.pre}}).JoinGroup
			if tc.required {
				if jg.Error != "MEMBER_ID_REQUIRED" || jg.MemberID == "" {
					t.Fatalf("a v4+ join without a member id: %+v, want MEMBER_ID_REQUIRED with an id", jg)
				}
				return
			}
			if jg.Error != "" || jg.Generation != 1 || jg.MemberID == "" || jg.Leader != jg.MemberID || len(jg.Members) != 1 {
				t.Fatalf("join: %+v, want generation 1 led by the new member", jg)
			}
		})
	}
}

// replyWithin applies req and returns its reply, advancing up to ms of
// virtual time for it (a join waits out the initial rebalance delay).
func replyWithin(t *testing.T, c *core.Cluster, ms int64, req core.BrokerRequest) *core.Reply {
	t.Helper()
	apply(t, c, req)
	for waited := int64(0); waited < ms; waited += 100 {
		advance(t, c, 100)
		for _, e := range ofType(c.Events(), core.EvResponse) {
			if e.Reply.Conn == req.Conn && e.Reply.Correlation == req.Correlation {
				return e.Reply
			}
		}
	}
	t.Fatalf("no reply to %d within %d ms", req.Correlation, ms)
	return nil
}
