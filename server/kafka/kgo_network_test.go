package kafka

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestFranzGoNetworkSplit: a split that cuts a real client's host off
// from the partition's leader (the brokers still reach each other) holds
// its produce: nothing is acknowledged while it lasts, since requests
// and answers across it are lost and the client waits them out; after
// `net heal` every record is acknowledged and read exactly once (the
// idempotent producer's retries of what the leader may have appended are
// answered as duplicates).
func TestFranzGoNetworkSplit(t *testing.T) {
	b := threeBrokers(t, "3.9", "kraft", core.CreateTopic{Topic: "t", Partitions: 1, RF: 3, Assign: [][]int{{1, 2, 3}}})
	_, addr := startServer(t, b, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	prod, err := kgo.NewClient(kgo.SeedBrokers(addrs(addr, 3)...), kgo.DefaultProduceTopic("t"), kgo.ClientID("cut"),
		kgo.RecordRetries(1000), kgo.ProduceRequestTimeout(time.Second), kgo.RequestTimeoutOverhead(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer prod.Close()
	if err := prod.ProduceSync(ctx, &kgo.Record{Value: []byte("before")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	leader := b.leader("t-0")
	if err := b.Apply(ctx, core.NetSplit{Groups: [][]string{{strconv.Itoa(leader)}, {"cut"}}}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	acked, failed := 0, 0
	const n = 50
	for i := range n {
		prod.Produce(ctx, &kgo.Record{Value: []byte(strconv.Itoa(i))}, func(_ *kgo.Record, err error) {
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failed++
			} else {
				acked++
			}
		})
	}
	time.Sleep(3 * time.Second)
	mu.Lock()
	during := acked
	mu.Unlock()
	if during != 0 {
		t.Errorf("%d records acknowledged while the client was cut off from leader %d", during, leader)
	}
	if err := b.Apply(ctx, core.NetHeal{}); err != nil {
		t.Fatal(err)
	}
	if err := prod.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if acked != n || failed != 0 {
		t.Fatalf("after heal: %d acknowledged, %d failed, of %d", acked, failed, n)
	}
	mu.Unlock()
	cons, err := kgo.NewClient(kgo.SeedBrokers(addrs(addr, 3)...), kgo.ConsumeTopics("t"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	seen := map[string]int{}
	for _, r := range consume(t, cons, n+1) {
		seen[string(r.Value)]++
	}
	for i := range n {
		if c := seen[strconv.Itoa(i)]; c != 1 {
			t.Errorf("record %d read %d times", i, c)
		}
	}
}

// TestFranzGoNetworkDelay: `net delay` on a real client's link to the
// leader, each way, lengthens its acks=all round trips by at least twice
// the delay, and ends with `net heal`.
func TestFranzGoNetworkDelay(t *testing.T) {
	b := threeBrokers(t, "3.9", "kraft", core.CreateTopic{Topic: "t", Partitions: 1, RF: 3, Assign: [][]int{{1, 2, 3}}})
	_, addr := startServer(t, b, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	prod, err := kgo.NewClient(kgo.SeedBrokers(addrs(addr, 3)...), kgo.DefaultProduceTopic("t"), kgo.ClientID("slow"))
	if err != nil {
		t.Fatal(err)
	}
	defer prod.Close()
	roundTrip := func() time.Duration {
		start := time.Now()
		if err := prod.ProduceSync(ctx, &kgo.Record{Value: []byte("x")}).FirstErr(); err != nil {
			t.Fatal(err)
		}
		return time.Since(start)
	}
	roundTrip() // the client's host exists once it connected
	base := roundTrip()
	leader := strconv.Itoa(b.leader("t-0"))
	const delay = 300 // ms each way
	for _, d := range []core.NetDelay{{From: "slow", To: leader, Delay: delay}, {From: leader, To: "slow", Delay: delay}} {
		if err := b.Apply(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	got := roundTrip()
	t.Logf("base %v, delayed %v", base, got)
	if got < 2*delay*time.Millisecond || got > 2*delay*time.Millisecond+5*time.Second {
		t.Errorf("round trip %v with %d ms each way (without: %v)", got, delay, base)
	}
	if err := b.Apply(ctx, core.NetHeal{}); err != nil {
		t.Fatal(err)
	}
	if got := roundTrip(); got >= 2*delay*time.Millisecond {
		t.Errorf("round trip %v after heal (before the delay: %v)", got, base)
	}
}
