package kafka

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestFranzGoGroup: three franz-go group members share six partitions;
// when one leaves, the group rebalances and the other two read the rest.
// Every record is read, the group's offsets are committed in the
// simulated __consumer_offsets.
func TestFranzGoGroup(t *testing.T) {
	for _, version := range kgoPresets {
		t.Run(version, func(t *testing.T) { franzGoGroup(t, version) })
	}
}

// franzGoGroup is TestFranzGoGroup on one preset.
func franzGoGroup(t *testing.T, version string) {
	b := threeBrokers(t, version, "kraft", core.CreateTopic{Topic: "events", Partitions: 6, RF: 3})
	_, addr := startServer(t, b, 3)
	prod, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer prod.Close()
	produceAll(t, prod, "events", 120, "a")

	var mu sync.Mutex
	seen := map[string]int{}
	assigned := map[int]int{}
	newMember := func(i int) *kgo.Client {
		cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumerGroup("g"), kgo.ConsumeTopics("events"),
			kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.ClientID("member"),
			// franz-go defaults to cooperative-sticky: callbacks carry only
			// what moves, so keep a running count.
			kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
				mu.Lock()
				assigned[i] += len(m["events"])
				mu.Unlock()
			}),
			kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
				mu.Lock()
				assigned[i] -= len(m["events"])
				mu.Unlock()
			}),
			kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
				mu.Lock()
				assigned[i] -= len(m["events"])
				mu.Unlock()
			}))
		if err != nil {
			t.Fatal(err)
		}
		return cl
	}
	members := []*kgo.Client{newMember(0), newMember(1), newMember(2)}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	// poll runs each member's poll loop until stop is closed.
	poll := func(ms []*kgo.Client, stop chan struct{}) {
		for _, m := range ms {
			wg.Add(1)
			go func(m *kgo.Client) {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					pctx, pc := context.WithTimeout(ctx, 200*time.Millisecond)
					fs := m.PollFetches(pctx)
					pc()
					fs.EachRecord(func(r *kgo.Record) {
						mu.Lock()
						seen[string(r.Value)]++
						mu.Unlock()
					})
				}
			}(m)
		}
	}
	stop := make(chan struct{})
	poll(members, stop)
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for ctx.Err() == nil {
			mu.Lock()
			done := ok()
			mu.Unlock()
			if done {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("timed out waiting for %s: seen %d, assigned %v", what, len(seen), assigned)
	}
	waitFor("all three members assigned", func() bool {
		return assigned[0] > 0 && assigned[1] > 0 && assigned[2] > 0 && assigned[0]+assigned[1]+assigned[2] == 6
	})
	waitFor("120 records", func() bool { return len(seen) == 120 })
	close(stop)
	wg.Wait()

	// Member 2 leaves; the others take its partitions and read what follows.
	members[2].Close()
	stop = make(chan struct{})
	poll(members[:2], stop)
	produceAll(t, prod, "events", 60, "b")
	waitFor("the rebalance onto two members", func() bool { return assigned[0]+assigned[1] == 6 })
	waitFor("180 records", func() bool { return len(seen) == 180 })
	close(stop)
	wg.Wait()
	for _, m := range members[:2] {
		if err := m.CommitUncommittedOffsets(ctx); err != nil {
			t.Fatalf("commit: %v", err)
		}
		m.Close()
	}
	var committed map[string]int64
	b.Do(ctx, func(c *core.Cluster) {
		for _, g := range c.Snapshot().Groups {
			if g.Name == "g" {
				committed = g.Committed
			}
		}
	})
	var sum int64
	for _, off := range committed {
		sum += off
	}
	if sum != 180 {
		t.Fatalf("committed offsets of g: %v, want the ends of every partition (180 records)", committed)
	}
}
