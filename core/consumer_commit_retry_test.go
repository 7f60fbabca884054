package core_test

import (
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core/scenario"
)

// traceOf runs a scenario and fails the test on a parse or run error
// or a failed expectation; it returns the trace.
func traceOf(t *testing.T, src string) string {
	t.Helper()
	s, err := scenario.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	res, err := scenario.Run(s, scenario.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Failures {
		t.Errorf("line %d: %s", f.Line, f.Msg)
	}
	return res.Trace
}

// TestCommitSyncRetriesTimedOut: the coordinator answers an OffsetCommit
// REQUEST_TIMED_OUT (3.9: acks=all waits for paused broker 2 beyond
// offsets.commit.timeout.ms). ConsumerCoordinator's
// OffsetCommitResponseHandler marks the coordinator unknown on it and
// commitOffsetsSync retries a RetriableException while its timer runs:
// the commit is stored once broker 2 is back, and commitSync succeeds.
func TestCommitSyncRetriesTimedOut(t *testing.T) {
	trace := traceOf(t, `cluster brokers=3 seed=7 version=3.9 metadata=kraft
set group.initial.rebalance.delay.ms=0 offsets.topic.num.partitions=1 offsets.topic.replication.factor=3 replica.lag.time.max.ms=30000
topic create t partitions=1 rf=1
producer p acks=1
consumer c group=g topics=t auto.commit=false offset.reset=earliest
produce p t value=v count=2
settle
wait 1s
pause broker 2
commit c
during +12s resume broker 2
expect error == none
`)
	if !strings.Contains(trace, "c: offset commit failed: REQUEST_TIMED_OUT") {
		t.Fatalf("the commit was never answered REQUEST_TIMED_OUT; the test no longer sets up what it tests:\n%s", trace)
	}
	if !strings.Contains(trace, "c lost its coordinator (broker 3): REQUEST_TIMED_OUT") {
		t.Errorf("REQUEST_TIMED_OUT did not make c look its coordinator up again:\n%s", trace)
	}
}

// TestCommitSyncRetriesDisconnect: the coordinator's process is gone, so
// the OffsetCommit fails on the client's side (a DisconnectException:
// CoordinatorResponseHandler.onFailure marks the coordinator unknown).
// commitSync looks the coordinator up and retries until the controller
// has moved __consumer_offsets to a live broker, and succeeds there; it
// answered COORDINATOR_NOT_AVAILABLE at once.
func TestCommitSyncRetriesDisconnect(t *testing.T) {
	trace := traceOf(t, `cluster brokers=3 seed=7 version=3.9 metadata=kraft
set group.initial.rebalance.delay.ms=0 offsets.topic.num.partitions=1 offsets.topic.replication.factor=3
topic create t partitions=1 rf=1 assign=2
producer p acks=1
consumer c group=g topics=t auto.commit=false offset.reset=earliest
produce p t value=v count=2
settle
wait 1s
crash broker 1
commit c
expect error == none
`)
	if !strings.Contains(trace, "c lost its coordinator (broker 1): COORDINATOR_NOT_AVAILABLE") {
		t.Errorf("the refused OffsetCommit did not make c look its coordinator up again:\n%s", trace)
	}
	if !strings.Contains(trace, "c found its coordinator: broker 3") {
		t.Errorf("c did not find the new coordinator:\n%s", trace)
	}
}

// TestOffsetFetchRefusedLooksUpCoordinator: a consumer with assign() and
// a group needs t-1's committed offset after its coordinator's process
// died. The refused OffsetFetch is a DisconnectException, and
// CoordinatorResponseHandler.onFailure marks the coordinator unknown, so
// the consumer finds the broker the controller moved __consumer_offsets
// to and starts t-1; it asked the dead broker again for ever.
func TestOffsetFetchRefusedLooksUpCoordinator(t *testing.T) {
	trace := traceOf(t, `cluster brokers=3 seed=7 version=3.9 metadata=kraft
set offsets.topic.num.partitions=1 offsets.topic.replication.factor=3
topic create t partitions=2 rf=1 assign=2/2
consumer m group=g offset.reset=earliest auto.commit=false
assign m t-0
settle
wait 1s
crash broker 3
assign m t-0,t-1
wait 20s
`)
	if !strings.Contains(trace, "m lost its coordinator (broker 3): connection refused") {
		t.Errorf("the refused OffsetFetch did not make m look its coordinator up again:\n%s", trace)
	}
	if !strings.Contains(trace, "m starts t-1 at offset 0") {
		t.Errorf("m never started t-1:\n%s", trace)
	}
}

// TestJoinPrepareCommitRetries: c2 joins and c1 must rejoin; its
// pre-rebalance auto-commit times out (REQUEST_TIMED_OUT: acks=all waits
// for paused broker 1). ConsumerCoordinator.onJoinPrepare retries a
// retriable failure until its joinPrepareTimer (the rebalance timeout)
// ends, so the offsets are stored once broker 1 is back and whoever gets
// t-0 starts after v-3. Joining without the commit, the group read
// v-1..v-3 again.
func TestJoinPrepareCommitRetries(t *testing.T) {
	trace := traceOf(t, `cluster brokers=3 seed=7 version=3.9 metadata=kraft
set group.initial.rebalance.delay.ms=0 offsets.topic.num.partitions=1 offsets.topic.replication.factor=3 replica.lag.time.max.ms=30000
topic create t partitions=1 rf=1
producer p acks=1
consumer c1 group=g topics=t offset.reset=earliest auto.commit.interval.ms=60000
produce p t value=v count=3
settle
wait 2s
pause broker 1
consumer c2 group=g topics=t offset.reset=earliest auto.commit.interval.ms=60000
wait 20s
during +8s resume broker 1
expect committed g t-0 == 3
expect violations == none
`)
	if !strings.Contains(trace, "c1: offset commit failed: REQUEST_TIMED_OUT") {
		t.Fatalf("the pre-rebalance commit never timed out; the test no longer sets up what it tests:\n%s", trace)
	}
}

// TestOffsetFetchOfOldGenerationDropped: c's OffsetFetch for t-0 is lost
// in a split; back, c rejoins (its member expired) and is assigned t-0
// again. ConsumerCoordinator.fetchCommittedOffsets drops a pending
// request of another generation and sends a new one, so c starts t-0 at
// once; it waited for the lost request's request.timeout.ms (30 s).
func TestOffsetFetchOfOldGenerationDropped(t *testing.T) {
	trace := traceOf(t, `cluster brokers=3 seed=7 version=3.9 metadata=kraft
set group.initial.rebalance.delay.ms=0 offsets.topic.num.partitions=1 offsets.topic.replication.factor=3
topic create t partitions=1 rf=3
consumer c group=g topics=t auto.commit=false session.timeout.ms=10000
settle
net split c | 1,2,3
wait 15s
net heal
wait 20s
`)
	var joined, started int64 = -1, -1
	for _, line := range strings.Split(trace, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		at := parseSeconds(t, f[0])
		switch {
		case strings.Contains(line, "c joined generation") && at > 15000 && joined < 0:
			joined = at
		case strings.Contains(line, "c starts t-0") && joined >= 0 && started < 0:
			started = at
		}
	}
	if joined < 0 {
		t.Fatalf("c did not rejoin after the split; the test no longer sets up what it tests:\n%s", trace)
	}
	if started < 0 || started-joined > 1000 {
		t.Errorf("c joined at %d ms and started t-0 at %d ms, want within a second:\n%s", joined, started, trace)
	}
}
