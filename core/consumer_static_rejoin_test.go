package core_test

import (
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core/scenario"
)

// TestConsumerRejoinsAfterRebalanceInProgress: a simulated static member
// whose takeover JoinGroup is answered REBALANCE_IN_PROGRESS (3.9's
// storeGroup timed out) joins again at once, as
// AbstractCoordinator.joinGroupIfNeeded does for a
// RebalanceInProgressException, not after retry.backoff.ms (100 ms).
func TestConsumerRejoinsAfterRebalanceInProgress(t *testing.T) {
	s, err := scenario.Parse(`cluster brokers=3 seed=3 version=3.9 metadata=kraft
set group.initial.rebalance.delay.ms=0 offsets.topic.num.partitions=1 offsets.topic.replication.factor=3 replica.lag.time.max.ms=8000
topic create t partitions=1 rf=1 assign=2
consumer c1 group=g topics=t instance=i1 auto.commit=false
wait 5s
crash consumer c1
net delay 2 1 30s
net delay 2 3 30s
consumer c2 group=g topics=t instance=i1 auto.commit=false
wait 20s
`)
	if err != nil {
		t.Fatal(err)
	}
	res, err := scenario.Run(s, scenario.RunOptions{})
	if err != nil || len(res.Failures) > 0 {
		t.Fatalf("run: %v %v", err, res.Failures)
	}
	var refused int64 = -1
	rejoins := 0
	for _, line := range strings.Split(res.Trace, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || !strings.HasSuffix(f[0], "s") {
			continue
		}
		at := parseSeconds(t, f[0])
		switch {
		case strings.Contains(line, "c2 could not join: REBALANCE_IN_PROGRESS"):
			refused = at
		case strings.Contains(line, "replaced by c2") && refused >= 0:
			if at-refused > 10 {
				t.Errorf("c2 joined again %d ms after REBALANCE_IN_PROGRESS, want at once (one network hop)", at-refused)
			}
			refused = -1
			rejoins++
		}
	}
	if rejoins == 0 {
		t.Fatalf("no JoinGroup answered REBALANCE_IN_PROGRESS and joined again:\n%s", res.Trace)
	}
}

// parseSeconds reads a trace timestamp ("10.012s") as milliseconds.
func parseSeconds(t *testing.T, s string) int64 {
	t.Helper()
	whole, frac, _ := strings.Cut(strings.TrimSuffix(s, "s"), ".")
	var ms int64
	for _, r := range whole + (frac + "000")[:3] {
		if r < '0' || r > '9' {
			return -1
		}
		ms = ms*10 + int64(r-'0')
	}
	return ms
}
