package scenario

import (
	"strings"
	"testing"
)

// TestKRaftUncleanCheckInterval: the KRaft controller's unclean election
// check runs every unclean.leader.election.interval.ms while a partition
// is leaderless, so with it at 10 s the partition that
// topic-config-unclean-kraft lets lead unclean gets its leader at the
// first check after the config change (85.002 s: checks at 65, 75 and 85
// s after it went offline at 55.002 s), not 5 minutes after it went
// offline.
func TestKRaftUncleanCheckInterval(t *testing.T) {
	res := runText(t, "interval 10s", variant(t, "testdata/topic-config-unclean-kraft.ksim",
		"version=3.9 metadata=kraft\n", "version=3.9 metadata=kraft\nset unclean.leader.election.interval.ms=10000\n",
		"wait 5m\n", "wait 10s\n"))
	if !strings.Contains(res.Trace, "85.002s  t-0 leader 2, epoch 2, isr [2] (UNCLEAN election") {
		t.Errorf("no unclean election at 85.002 s:\n%s", res.Trace)
	}
}
