package scenario

import (
	"strings"
	"testing"
)

// TestCommitBelowMinISR39 runs testdata/group-commit-below-min-isr-4.0
// as 3.9: its coordinator writes with acks=all
// (GroupMetadataManager.storeOffsets, offsetCommitRequiredAcks = -1), so
// the leader refuses each attempt before appending
// (Partition.appendRecordsToLeader: NOT_ENOUGH_REPLICAS), answered
// COORDINATOR_NOT_AVAILABLE at once, and nothing the failed commit sent
// is ever stored: the group's offset stays 3 once the ISR is back, where
// 4.0's becomes 5.
func TestCommitBelowMinISR39(t *testing.T) {
	res := runText(t, "3.9", variant(t, "testdata/group-commit-below-min-isr-4.0.ksim",
		"version=4.0", "version=3.9", "expect committed g t-0 == 5", "expect committed g t-0 == 3"))
	if strings.Contains(res.Trace, "after its OffsetCommit timed out") {
		t.Errorf("3.9 stored a commit it had answered failed:\n%s", res.Trace)
	}
	// The first attempt is refused one round trip after commit starts
	// (at 17.140 s), not after offsets.commit.timeout.ms.
	if !strings.Contains(res.Trace, "17.144s  c: offset commit failed: COORDINATOR_NOT_AVAILABLE") {
		t.Errorf("3.9 did not refuse the first attempt at once:\n%s", res.Trace)
	}
}
