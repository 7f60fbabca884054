package core_test

import (
	"strings"
	"testing"
)

// TestStaleCommitAnswerAfterRejoin: c1's session expired during a
// network split; after the heal its heartbeat and a commitSync are both
// answered UNKNOWN_MEMBER_ID, the heartbeat's first. The heartbeat
// resets c1 and it joins again; the commit's answer then finds a member
// already rebalancing with a generation other than the one it sent, so
// 2.6+ throws RebalanceInProgressException ("generation is already
// stale") and resets nothing more (OffsetCommitResponseHandler:
// !generationUnchanged() && PREPARING_REBALANCE). A commit answered
// before any heartbeat resets the member itself: CommitFailedException,
// and c1 joins again at once.
func TestStaleCommitAnswerAfterRejoin(t *testing.T) {
	script := func(commitAfter string) string {
		return `cluster brokers=1 seed=3 version=3.9
set offsets.topic.num.partitions=1 offsets.topic.replication.factor=1 group.initial.rebalance.delay.ms=0
topic create t partitions=1 rf=1
producer p acks=all
consumer c1 group=g topics=t offset.reset=earliest auto.commit=false session.timeout.ms=6000
wait 2s
produce p t value=a count=3
wait 1s
net split 1 | c1
wait 8s
net heal
wait ` + commitAfter + `
commit c1
expect error contains ` + map[string]string{"1112ms": "RebalanceInProgressException: Offset commit cannot be completed since the consumer member's generation is already stale",
			"0ms": "CommitFailedException (UNKNOWN_MEMBER_ID)"}[commitAfter] + `
wait 5s
`
	}
	stale := traceOf(t, script("1112ms"))
	if strings.Count(stale, "c1 must rejoin") != 1 || !strings.Contains(stale, "c1 joined generation 3") {
		t.Errorf("stale answer: want one reset and one rejoin:\n%s", stale)
	}
	first := traceOf(t, script("0ms"))
	at := strings.Index(first, "c1: offset commit failed: UNKNOWN_MEMBER_ID")
	if at < 0 || !strings.HasPrefix(first[at+len("c1: offset commit failed: UNKNOWN_MEMBER_ID\n"):], "    11.004s  c1 must rejoin: UNKNOWN_MEMBER_ID") {
		t.Errorf("a commit answered UNKNOWN_MEMBER_ID first must reset c1 at once:\n%s", first)
	}
}
