package kafka

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestFranzGoIdempotentRetryAcrossFailover: franz-go's idempotent
// producer streams with several requests in flight while the leader's
// answers to it are dropped (its batches are appended and replicated,
// acks=all, but it never hears so), then the leader crashes. The client
// retries those batches on the new leader, which has them and their
// producers' sequences from the replication (ProducerStateManager), so it
// answers them as duplicates (DUPLICATE_SEQUENCE_NUMBER is success to the
// client) instead of appending them again: every record is read exactly
// once. Without idempotence, the same retries would write them twice.
func TestFranzGoIdempotentRetryAcrossFailover(t *testing.T) {
	for _, version := range kgoPresets {
		t.Run(version, func(t *testing.T) { franzGoIdempotentRetry(t, version) })
	}
}

func franzGoIdempotentRetry(t *testing.T, version string) {
	b := threeBrokers(t, version, "kraft", core.CreateTopic{Topic: "t", Partitions: 1, RF: 3, Assign: [][]int{{1, 2, 3}}})
	_, addr := startServer(t, b, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	prod, err := kgo.NewClient(kgo.SeedBrokers(addrs(addr, 3)...), kgo.DefaultProduceTopic("t"), kgo.ClientID("idem"),
		kgo.RecordRetries(100), kgo.ProducerLinger(5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer prod.Close()
	const n = 3000
	var mu sync.Mutex
	var perr error
	acked := 0
	produce := func(from, to int) {
		for i := from; i < to; i++ {
			prod.Produce(ctx, &kgo.Record{Value: []byte(strconv.Itoa(i))}, func(_ *kgo.Record, err error) {
				mu.Lock()
				defer mu.Unlock()
				if err != nil && perr == nil {
					perr = err
				}
				acked++
			})
			if i%100 == 99 {
				time.Sleep(2 * time.Millisecond) // a stream, not one burst
			}
		}
	}
	produce(0, n/3)
	if err := prod.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	leader := b.leader("t-0")
	if err := b.Apply(ctx, core.NetDrop{From: strconv.Itoa(leader), To: "idem"}); err != nil {
		t.Fatal(err)
	}
	produce(n/3, 2*n/3)
	// Let the leader append and replicate what it got, unanswered.
	deadline := time.Now().Add(20 * time.Second)
	for b.highWatermark("t-0") < int64(n/3)+100 {
		if time.Now().After(deadline) {
			t.Fatalf("the leader appended no unanswered batch: HW %d", b.highWatermark("t-0"))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := b.Apply(ctx, core.CrashBroker{Broker: leader}); err != nil {
		t.Fatal(err)
	}
	if err := b.Apply(ctx, core.NetHeal{}); err != nil {
		t.Fatal(err)
	}
	produce(2*n/3, n)
	if err := prod.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if perr != nil || acked != n {
		t.Fatalf("acked %d of %d, first error %v", acked, n, perr)
	}
	mu.Unlock()
	if l := b.leader("t-0"); l == leader || l < 0 {
		t.Fatalf("leader after the crash: %d (was %d)", l, leader)
	}
	cons, err := kgo.NewClient(kgo.SeedBrokers(addrs(addr, 3)...), kgo.ConsumeTopics("t"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	seen := make([]int, n)
	recs := consume(t, cons, n)
	for _, r := range recs {
		i, err := strconv.Atoi(string(r.Value))
		if err != nil || i < 0 || i >= n {
			t.Fatalf("record %q", r.Value)
		}
		seen[i]++
	}
	for i, c := range seen {
		if c != 1 {
			t.Errorf("%s read %d times", fmt.Sprint(i), c)
		}
	}
	if hw := b.highWatermark("t-0"); hw != n {
		t.Errorf("high watermark %d, want %d: a retried batch was appended again", hw, n)
	}
}
