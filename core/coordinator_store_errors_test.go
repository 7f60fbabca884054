package core

import "testing"

// TestStoreErrorTable: each append error a write to __consumer_offsets
// can meet, answered as 3.9's GroupMetadataManager answers it for a
// group's metadata (storeGroup) and for offsets
// (maybeConvertOffsetCommitError), and as 4.0's coordinator answers both
// (appendGroupMetadataErrorToResponseError, handleOperationException).
// Most rows no scenario reaches (a partition gone while its write waits,
// a record too large); the timeouts are TestStoreTimeoutErrors.
func TestStoreErrorTable(t *testing.T) {
	const cna, nc, use = "COORDINATOR_NOT_AVAILABLE", "NOT_COORDINATOR", "UNKNOWN_SERVER_ERROR"
	rows := []struct {
		append                    string
		group39, offsets39, all40 string
	}{
		{"UNKNOWN_TOPIC_OR_PARTITION", cna, cna, cna},
		{"NOT_ENOUGH_REPLICAS", cna, cna, cna},
		{"NOT_ENOUGH_REPLICAS_AFTER_APPEND", cna, cna, cna},
		{"REQUEST_TIMED_OUT", "REBALANCE_IN_PROGRESS", "REQUEST_TIMED_OUT", cna},
		{"NOT_LEADER_OR_FOLLOWER", nc, nc, nc},
		{"KAFKA_STORAGE_ERROR", nc, nc, nc},
		{"NOT_COORDINATOR", nc, nc, nc},
		{"MESSAGE_TOO_LARGE", use, "INVALID_COMMIT_OFFSET_SIZE", use},
		{"RECORD_LIST_TOO_LARGE", use, "INVALID_COMMIT_OFFSET_SIZE", use},
		{"INVALID_FETCH_SIZE", use, "INVALID_COMMIT_OFFSET_SIZE", use},
		{"CORRUPT_MESSAGE", "CORRUPT_MESSAGE", "CORRUPT_MESSAGE", "CORRUPT_MESSAGE"},
	}
	co := map[string]*coordinator{}
	for _, v := range []string{"2.8", "3.9", "4.0"} {
		c, err := New(Options{Brokers: 1, Seed: 1, Version: v})
		if err != nil {
			t.Fatal(err)
		}
		co[v] = c.brokers[0].groups
	}
	for _, r := range rows {
		for _, v := range []string{"2.8", "3.9"} {
			if got := co[v].storeGroupError(r.append); got != r.group39 {
				t.Errorf("%s: a group's write failing %s answers %s, want %s", v, r.append, got, r.group39)
			}
			if got := co[v].storeOffsetsError(r.append); got != r.offsets39 {
				t.Errorf("%s: an offset commit's write failing %s answers %s, want %s", v, r.append, got, r.offsets39)
			}
		}
		if got := co["4.0"].storeGroupError(r.append); got != r.all40 {
			t.Errorf("4.0: a group's write failing %s answers %s, want %s", r.append, got, r.all40)
		}
		if got := co["4.0"].storeOffsetsError(r.append); got != r.all40 {
			t.Errorf("4.0: an offset commit's write failing %s answers %s, want %s", r.append, got, r.all40)
		}
	}
}
