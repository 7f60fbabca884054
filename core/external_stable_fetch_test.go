package core_test

import (
	"testing"

	"github.com/kafkasim/kafkasim/core"
)

// TestExternalOffsetFetchRequireStable: an outside client's OffsetFetch
// v7 with require_stable (KIP-447), sent while another connection's
// commit is still being written to __consumer_offsets. 2.5 to 3.9
// answer that partition UNSTABLE_OFFSET_COMMIT with offset -1
// (GroupMetadataManager.getOffsets); 4.0 holds the answer until the write
// is committed and answers the new offset
// (GroupCoordinatorService.fetchOffsets). Without require_stable both
// answer the offset committed before, at once.
func TestExternalOffsetFetchRequireStable(t *testing.T) {
	for _, tc := range []struct {
		version      string
		stable       core.OffsetFetchPartitionResponse
		stableAtOnce bool
		plainOffset  int64
	}{
		{version: "3.9", stable: core.OffsetFetchPartitionResponse{Topic: "t", Error: "UNSTABLE_OFFSET_COMMIT", Offset: -1, LeaderEpoch: -1}, stableAtOnce: true, plainOffset: 2},
		{version: "4.0", stable: core.OffsetFetchPartitionResponse{Topic: "t", Offset: 5, LeaderEpoch: -1}, plainOffset: 2},
	} {
		t.Run(tc.version, func(t *testing.T) {
			c, err := core.New(core.Options{Brokers: 3, Seed: 5, Version: tc.version, Metadata: "kraft"})
			if err != nil {
				t.Fatal(err)
			}
			apply(t, c, core.CreateTopic{Topic: "t", Partitions: 1, RF: 3, Assign: [][]int{{1, 2, 3}}})
			advance(t, c, 1000)
			apply(t, c, core.OpenConn{Conn: "k1", Host: "kgo", Broker: 1})
			var coord int
			for corr := int32(1); corr < 10 && coord == 0; corr++ {
				fc := reply(t, c, core.BrokerRequest{Conn: "k1", Correlation: corr, FindCoordinator: &core.FindCoordinatorRequest{Key: "g"}}).FindCoordinator
				coord = fc.Coordinator
				if fc.Error != "" {
					coord = 0
				}
			}
			if coord == 0 {
				t.Fatal("no coordinator for g")
			}
			apply(t, c, core.OpenConn{Conn: "w", Host: "kgo", Broker: coord})
			apply(t, c, core.OpenConn{Conn: "r", Host: "kgo", Broker: coord})
			commit := func(corr int32, off int64) core.BrokerRequest {
				return core.BrokerRequest{Conn: "w", Correlation: corr, OffsetCommit: &core.OffsetCommitRequest{Group: "g", Generation: -1,
					Partitions: []core.OffsetCommitPartition{{Topic: "t", Offset: off}}}}
			}
			fetch := func(corr int32, stable bool) core.BrokerRequest {
				return core.BrokerRequest{Conn: "r", Correlation: corr, OffsetFetch: &core.OffsetFetchRequest{Group: "g", RequireStable: stable,
					Partitions: []core.OffsetFetchPartition{{Topic: "t"}}}}
			}
			if oc := reply(t, c, commit(20, 2)).OffsetCommit; oc.Partitions[0].Error != "" {
				t.Fatalf("first commit %+v", oc)
			}

			// The second commit and both fetches leave together; the
			// commit reaches the coordinator first and waits for the
			// followers of __consumer_offsets.
			apply(t, c, commit(21, 5))
			apply(t, c, fetch(22, false))
			apply(t, c, fetch(23, true))
			var plainAt, stableAt, commitAt int64 = -1, -1, -1
			var plain, stable *core.OffsetFetchResponse
			for ms := 0; ms < 2000 && (plain == nil || stable == nil || commitAt < 0); ms++ {
				advance(t, c, 1)
				for _, e := range ofType(c.Events(), core.EvResponse) {
					switch r := e.Reply; {
					case r.Conn == "w" && r.Correlation == 21:
						commitAt = c.Now()
						if r.OffsetCommit.Partitions[0].Error != "" {
							t.Fatalf("second commit %+v", r.OffsetCommit)
						}
					case r.Conn == "r" && r.Correlation == 22:
						plain, plainAt = r.OffsetFetch, c.Now()
					case r.Conn == "r" && r.Correlation == 23:
						stable, stableAt = r.OffsetFetch, c.Now()
					}
				}
			}
			if plain == nil || stable == nil || commitAt < 0 {
				t.Fatalf("replies missing: plain %v stable %v commit at %d", plain, stable, commitAt)
			}
			if plain.Error != "" || len(plain.Partitions) != 1 || plain.Partitions[0].Offset != tc.plainOffset || plain.Partitions[0].Error != "" {
				t.Fatalf("fetch without require_stable: %+v, want offset %d", plain, tc.plainOffset)
			}
			if plainAt > commitAt {
				t.Fatalf("fetch without require_stable answered at %d, after the commit at %d", plainAt, commitAt)
			}
			if stable.Error != "" || len(stable.Partitions) != 1 || stable.Partitions[0] != tc.stable {
				t.Fatalf("require_stable fetch: %+v, want %+v", stable, tc.stable)
			}
			if tc.stableAtOnce != (stableAt < commitAt) {
				t.Fatalf("require_stable answered at %d, the commit at %d (want before: %v)", stableAt, commitAt, tc.stableAtOnce)
			}
			if of := reply(t, c, fetch(24, true)).OffsetFetch; of.Partitions[0].Offset != 5 || of.Partitions[0].Error != "" {
				t.Fatalf("require_stable after the commit: %+v", of)
			}
		})
	}
}
