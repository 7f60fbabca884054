package core_test

import (
	"strings"
	"testing"
)

// TestHeartbeatsWhileSyncing: from 2.7 (KAFKA-10134) the heartbeat
// thread goes on between a member's JoinGroup and SyncGroup answers, and
// the coordinator restarts its session timer on each (CompletingRebalance
// answers NONE). c1, the group's leader, gets its answers 7 s late, so c2
// waits that long for its SyncGroup answer: with a 6 s session it is
// expired on 0.11, whose heartbeat thread stops whenever the member is not
// Stable, and kept on 2.8 and 3.9.
func TestHeartbeatsWhileSyncing(t *testing.T) {
	for version, expired := range map[string]bool{"0.11 metadata=zk": true, "2.8 metadata=zk": false, "3.9 metadata=kraft": false} {
		trace := traceOf(t, `cluster brokers=3 seed=5 version=`+version+`
set offsets.topic.num.partitions=1 group.initial.rebalance.delay.ms=0
topic create t partitions=2 rf=1
consumer c1 group=g topics=t assignor=range offset.reset=earliest session.timeout.ms=6000 heartbeat.interval.ms=1000
wait 2s
net delay 1 c1 7s
net delay 2 c1 7s
net delay 3 c1 7s
consumer c2 group=g topics=t assignor=range offset.reset=earliest session.timeout.ms=6000 heartbeat.interval.ms=1000
wait 25s
`)
		if !strings.Contains(trace, "group g is CompletingRebalance (generation 2): 2 member(s) joined, leader c1") {
			t.Fatalf("%s: no rebalance led by c1; the test no longer sets up what it tests:\n%s", version, trace)
		}
		if got := strings.Contains(trace, "group g member c2 removed: session timed out"); got != expired {
			t.Errorf("%s: c2 expired while waiting for its SyncGroup answer: %v, want %v:\n%s", version, got, expired, trace)
		}
	}
}

// TestHeartbeatAnswersOnASlowLink: every Heartbeat answer is handled,
// not only the latest heartbeat's. c1's requests take 4 s to reach the
// brokers and it heartbeats every second, so each answer it gets is for
// a heartbeat older than its latest; the REBALANCE_IN_PROGRESS in them
// still makes it rejoin (HeartbeatResponseHandler), and the group, which
// c2 joined, rebalances. kafkasim dropped them all and c1 never rejoined.
func TestHeartbeatAnswersOnASlowLink(t *testing.T) {
	trace := traceOf(t, `cluster brokers=3 seed=5 version=3.9 metadata=kraft
set offsets.topic.num.partitions=1 group.initial.rebalance.delay.ms=0
topic create t partitions=2 rf=1
consumer c1 group=g topics=t assignor=range offset.reset=earliest session.timeout.ms=10000 heartbeat.interval.ms=1000
wait 2s
net delay c1 1 4s
net delay c1 2 4s
net delay c1 3 4s
consumer c2 group=g topics=t assignor=range offset.reset=earliest session.timeout.ms=10000 heartbeat.interval.ms=1000
wait 40s
`)
	for _, want := range []string{"c1: rebalance in progress, rejoining", "c2 joined generation 2"} {
		if !strings.Contains(trace, want) {
			t.Errorf("no %q:\n%s", want, trace)
		}
	}
}
