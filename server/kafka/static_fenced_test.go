package kafka

import (
	"context"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestHeartbeatFencedInstance: once a second consumer with the same
// group.instance.id replaced a static member, the old member's Heartbeat
// is FENCED_INSTANCE_ID (GroupCoordinator.validateCurrentMember), which
// clients take as fatal. It was UNKNOWN_MEMBER_ID: the old one rejoined,
// fencing the new one, and the two took turns for ever.
func TestHeartbeatFencedInstance(t *testing.T) {
	_, addr := served(t, "3.9", core.CreateTopic{Topic: "t", Partitions: 1, RF: 3})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	member := func() *kgo.Client {
		cl := versionClient(t, addr, 3, 0, 0, kgo.ConsumerGroup("g"), kgo.ConsumeTopics("t"), kgo.InstanceID("i"))
		waitUntil(t, ctx, "a member id", func() bool {
			pctx, pcancel := context.WithTimeout(ctx, 50*time.Millisecond)
			cl.PollFetches(pctx)
			pcancel()
			_, gen := cl.GroupMetadata()
			return gen > 0
		})
		return cl
	}
	first := member()
	old, gen := first.GroupMetadata()
	first.PauseFetchTopics("t")
	second := member()
	if now, _ := second.GroupMetadata(); now == old {
		t.Fatalf("the second instance has the first's member id %s", old)
	}
	req := kmsg.NewPtrHeartbeatRequest()
	req.Group, req.MemberID, req.Generation, req.InstanceID = "g", old, gen, kmsg.StringPtr("i")
	resp, err := req.RequestWith(ctx, second)
	if err != nil {
		t.Fatal(err)
	}
	if resp.ErrorCode != 82 {
		t.Errorf("the replaced member's Heartbeat: error %d, want 82 (FENCED_INSTANCE_ID)", resp.ErrorCode)
	}
}
