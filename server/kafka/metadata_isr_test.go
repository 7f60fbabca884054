package kafka

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestMetadataISRFromEveryBroker: once a restarted follower is back in
// the ISR, every broker's Metadata answer names it, the leader's too. The
// leader's metadata cache used to keep the ISR it had before its own
// change (the controller told only the other brokers), so Metadata from
// the leader showed the partition under-replicated for good. In both
// modes: ZK's UpdateMetadata and KRaft's record reach every broker.
func TestMetadataISRFromEveryBroker(t *testing.T) {
	for _, mode := range []string{"kraft", "zk"} {
		t.Run(mode, func(t *testing.T) {
			b := threeBrokers(t, "3.9", mode, core.CreateTopic{Topic: "t", Partitions: 1, RF: 3, Assign: [][]int{{1, 2, 3}}})
			b.speed = 20
			_, addr := startServer(t, b, 3)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			if err := b.Apply(ctx, core.CrashBroker{Broker: 2}); err != nil {
				t.Fatal(err)
			}
			waitUntil(t, ctx, "broker 2 out of the ISR", func() bool { return !slices.Contains(b.isr("t-0"), 2) })
			if err := b.Apply(ctx, core.Restart{Broker: 2}); err != nil {
				t.Fatal(err)
			}
			waitUntil(t, ctx, "broker 2 back in the ISR", func() bool { return len(b.isr("t-0")) == 3 })
			cl := versionClient(t, addr, 3, 0, 0)
			for i := range 3 { // each broker's own answer
				var isr []int32
				mctx, mcancel := context.WithTimeout(ctx, 5*time.Second) // 100 s simulated
				for mctx.Err() == nil && !func() bool {
					req := kmsg.NewPtrMetadataRequest()
					rt := kmsg.NewMetadataRequestTopic()
					rt.Topic = kmsg.StringPtr("t")
					req.Topics = append(req.Topics, rt)
					kr, err := cl.Broker(i+1).Request(mctx, req)
					resp, _ := kr.(*kmsg.MetadataResponse)
					if err != nil || resp == nil || len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
						return false
					}
					isr = resp.Topics[0].Partitions[0].ISR
					return len(isr) == 3
				}() {
					time.Sleep(20 * time.Millisecond)
				}
				mcancel()
				if len(isr) != 3 {
					t.Errorf("broker %d: ISR %v", i+1, isr)
				}
			}
		})
	}
}
