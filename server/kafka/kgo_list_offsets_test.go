package kafka

import (
	"testing"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// listOffsets sends one ListOffsets of partition 0 at ts to broker, as
// version v at most.
func listOffsets(t *testing.T, addr string, broker int, v int16, topic string, ts int64) kmsg.ListOffsetsResponseTopicPartition {
	t.Helper()
	cl := versionClient(t, addr, 3, 2, v)
	resp := requestBroker[*kmsg.ListOffsetsResponse](t, cl, broker, listOffsetsRequest(topic, ts))
	if resp.Version != v || len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
		t.Fatalf("v%d: %+v", resp.Version, resp)
	}
	return resp.Topics[0].Partitions[0]
}

// TestListOffsetsTieredTimestamps: without tiered storage, Kafka answers
// EARLIEST_LOCAL_TIMESTAMP (-4, v8) as the log start (EARLIEST, -2) and
// LATEST_TIERED_TIMESTAMP (-5, v9) as offset -1 with leader epoch -1,
// after the leader checks (NOT_LEADER_OR_FOLLOWER off the leader).
func TestListOffsetsTieredTimestamps(t *testing.T) {
	for _, tc := range []struct {
		preset string
		v      int16
	}{{"3.9", 8}, {"3.9", 9}, {"4.0", 10}} {
		b, addr := served(t, tc.preset, core.CreateTopic{Topic: "tiers", Partitions: 1, RF: 2})
		produceAll(t, fetchClient(t, addr, 3, 0), "tiers", 4, "r")
		leader, epoch, _ := leaderOf(t, b, "tiers")
		v := tc.v
		earliest := listOffsets(t, addr, leader, v, "tiers", -2)
		local := listOffsets(t, addr, leader, v, "tiers", -4)
		if local.ErrorCode != 0 || local.Offset != earliest.Offset || local.LeaderEpoch != earliest.LeaderEpoch || local.Timestamp != -1 ||
			earliest.Offset != 0 || earliest.LeaderEpoch != epoch {
			t.Errorf("v%d: earliest local %+v, earliest %+v (leader epoch %d)", v, local, earliest, epoch)
		}
		tiered := listOffsets(t, addr, leader, v, "tiers", -5)
		if tiered.ErrorCode != 0 || tiered.Offset != -1 || tiered.LeaderEpoch != -1 || tiered.Timestamp != -1 {
			t.Errorf("v%d: latest tiered %+v, want offset, epoch and timestamp -1", v, tiered)
		}
		if off := listOffsets(t, addr, leader%3+1, v, "tiers", -5); off.ErrorCode != kerr.NotLeaderForPartition.Code {
			t.Errorf("v%d: latest tiered off the leader: error %d, want NOT_LEADER_OR_FOLLOWER", v, off.ErrorCode)
		}
		if latest := listOffsets(t, addr, leader, v, "tiers", -1); latest.Offset != 4 {
			t.Errorf("v%d: latest %+v, want 4", v, latest)
		}
	}
}
