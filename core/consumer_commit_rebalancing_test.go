package core_test

import (
	"strings"
	"testing"
)

// TestCommitWhileRebalancing: a cooperative member keeps its partitions
// through a rebalance, so it has offsets to commit while it is joining or
// syncing; commitSync then fails at once, without an OffsetCommit, with
// RebalanceInProgressException (ConsumerCoordinator.sendOffsetCommitRequest
// 2.5+: generationIfStable is null and rebalanceInProgress, KAFKA-8421).
// c1's links are slowed so that its JoinGroup and SyncGroup are in
// flight for seconds.
func TestCommitWhileRebalancing(t *testing.T) {
	for _, version := range []string{"2.8", "3.9"} {
		meta := map[string]string{"2.8": "zk", "3.9": "kraft"}[version]
		trace := traceOf(t, `cluster brokers=3 seed=27 version=`+version+` metadata=`+meta+`
set offsets.topic.num.partitions=1 group.initial.rebalance.delay.ms=0
topic create t partitions=2 rf=1
producer p acks=all partitioner=roundrobin
consumer c1 group=g topics=t assignor=cooperative-sticky offset.reset=earliest auto.commit=false
wait 2s
produce p t value=a count=4
wait 1s
net delay c1 1 1500ms
net delay c1 2 1500ms
net delay c1 3 1500ms
consumer c2 group=g topics=t assignor=cooperative-sticky offset.reset=earliest auto.commit=false
wait 3500ms
commit c1
expect error contains RebalanceInProgressException: Offset commit cannot be completed since the consumer is undergoing a rebalance
wait 5s
`)
		if !strings.Contains(trace, "c1: rebalance in progress, rejoining") {
			t.Errorf("%s: c1 never rejoined; the test no longer sets up what it tests:\n%s", version, trace)
		}
		if strings.Contains(trace, "c1: offset commit failed") {
			t.Errorf("%s: c1 sent its commit:\n%s", version, trace)
		}
	}
}
