package kafka

import (
	"context"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The group APIs' versions of Kafka 3.9 and 4.0 (KIP-699, KIP-709,
// KIP-800, KIP-814, KIP-848, KIP-1043), asked with raw requests at the
// version under test: a versionClient pinned to it, or franz-go's own
// maximum, which the preset clips to the release's.

// coordinatorOf asks broker 1 for group's coordinator until it has one
// (the first ask creates __consumer_offsets), in whatever FindCoordinator
// version cl speaks.
func coordinatorOf(t *testing.T, cl *kgo.Client, group string) int32 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	id := int32(-1)
	waitUntil(t, ctx, "a coordinator for "+group, func() bool {
		req := kmsg.NewPtrFindCoordinatorRequest()
		req.CoordinatorKey, req.CoordinatorKeys = group, []string{group}
		resp := requestBroker[*kmsg.FindCoordinatorResponse](t, cl, 1, req)
		code, node := resp.ErrorCode, resp.NodeID
		if resp.Version >= 4 && len(resp.Coordinators) == 1 {
			code, node = resp.Coordinators[0].ErrorCode, resp.Coordinators[0].NodeID
		}
		id = node
		return code == 0
	})
	return id
}

// commitRequest commits offset of partition 0 of topic for group as
// member of generation.
func commitRequest(group, member string, generation int32, topic string, offset int64) *kmsg.OffsetCommitRequest {
	req := kmsg.NewPtrOffsetCommitRequest()
	req.Group, req.MemberID, req.Generation = group, member, generation
	rt := kmsg.NewOffsetCommitRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewOffsetCommitRequestTopicPartition()
	rp.Offset = offset
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	return req
}

// groupsOf is the names of the groups the cluster has.
func groupsOf(b *wallBackend) map[string]bool {
	names := map[string]bool{}
	b.Do(context.Background(), func(c *core.Cluster) {
		for _, g := range c.Snapshot().Groups {
			names[g.Name] = true
		}
	})
	return names
}

// TestOffsetCommitV9: a commit with a generation for a group the
// coordinator does not have (its members' group is gone) is refused and
// makes no group: ILLEGAL_GENERATION from 3.9's GroupCoordinator in v8
// and v9 alike, and from 4.0's below v9, while 4.0 answers v9, the
// KIP-848 version, GROUP_ID_NOT_FOUND (OffsetMetadataManager.
// validateOffsetCommit). A commit without a generation makes the group
// and is stored, in v9 too.
func TestOffsetCommitV9(t *testing.T) {
	for _, tc := range []struct {
		preset string
		v8, v9 int16
	}{
		{preset: "3.9", v8: 22, v9: 22},
		{preset: "4.0", v8: 22, v9: 69},
	} {
		t.Run(tc.preset, func(t *testing.T) {
			b, addr := served(t, tc.preset, core.CreateTopic{Topic: "t", Partitions: 1, RF: 3})
			cl := versionClient(t, addr, 3, 8, 0)
			old := versionClient(t, addr, 3, 8, 8)
			coord := coordinatorOf(t, cl, "gone")
			for _, c := range []struct {
				cl   *kgo.Client
				v    int16
				want int16
			}{{old, 8, tc.v8}, {cl, 9, tc.v9}} {
				resp := requestBroker[*kmsg.OffsetCommitResponse](t, c.cl, int(coord), commitRequest("gone", "member-1", 3, "t", 5))
				if resp.Version != c.v {
					t.Fatalf("OffsetCommit went out as v%d, want v%d", resp.Version, c.v)
				}
				if got := resp.Topics[0].Partitions[0].ErrorCode; got != c.want {
					t.Errorf("%s: OffsetCommit v%d with generation 3 for a group that does not exist: code %d, want %d", tc.preset, c.v, got, c.want)
				}
			}
			if groupsOf(b)["gone"] {
				t.Errorf("%s: the refused commits left a group behind", tc.preset)
			}
			coord = coordinatorOf(t, cl, "simple")
			resp := requestBroker[*kmsg.OffsetCommitResponse](t, cl, int(coord), commitRequest("simple", "", -1, "t", 7))
			if resp.Version != 9 || resp.Topics[0].Partitions[0].ErrorCode != 0 {
				t.Fatalf("%s: OffsetCommit v%d without a generation: %+v", tc.preset, resp.Version, resp.Topics)
			}
			if !groupsOf(b)["simple"] {
				t.Errorf("%s: no group after a commit outside the group protocol", tc.preset)
			}
		})
	}
}
