package core_test

import (
	"strings"
	"testing"
)

// TestHeartbeatMissingGroupRejoins: c is cut off past its session, its
// group empties and, with no offsets, is removed (Dead). Back, c's
// Heartbeat names a group the coordinator no longer has: Kafka answers
// UNKNOWN_MEMBER_ID (GroupCoordinator.handleHeartbeat "case None", 4.0's
// classicGroupHeartbeat) and c joins afresh. Answered GROUP_ID_NOT_FOUND,
// c took it for a lost coordinator and heartbeated the missing group for
// ever, never in a group again.
func TestHeartbeatMissingGroupRejoins(t *testing.T) {
	for _, v := range []string{"3.9", "4.0"} {
		trace := traceOf(t, `cluster brokers=3 seed=7 version=`+v+` metadata=kraft
set group.initial.rebalance.delay.ms=0 offsets.topic.num.partitions=1 offsets.topic.replication.factor=3 offsets.retention.check.interval.ms=1000
topic create t partitions=1 rf=3
consumer c group=g topics=t auto.commit=false session.timeout.ms=10000
settle
net split c | 1,2,3
wait 15s
net heal
wait 20s
`)
		if !strings.Contains(trace, "group g is Dead") {
			t.Fatalf("%s: the group was not removed; the test no longer sets up what it tests:\n%s", v, trace)
		}
		if !strings.Contains(trace, "c must rejoin: UNKNOWN_MEMBER_ID") || !strings.Contains(trace, "c joined generation 1") {
			t.Errorf("%s: c did not join again after its group was removed:\n%s", v, trace)
		}
	}
}
