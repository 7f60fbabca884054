package kafka

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestFranzGoLeaderCrash: an idempotent franz-go producer writes while
// the partition's leader crashes: its connections reset, the client
// follows the new leader (NOT_LEADER_OR_FOLLOWER, metadata refresh) and
// every record it was acked for is read back exactly once.
func TestFranzGoLeaderCrash(t *testing.T) {
	for _, version := range kgoPresets {
		t.Run(version, func(t *testing.T) { franzGoLeaderCrash(t, version) })
	}
}

// franzGoLeaderCrash is TestFranzGoLeaderCrash on one preset.
func franzGoLeaderCrash(t *testing.T, version string) {
	b := threeBrokers(t, version, "kraft", core.CreateTopic{Topic: "t", Partitions: 1, RF: 3, Assign: [][]int{{1, 2, 3}}})
	b.speed = 5
	_, addr := startServer(t, b, 3)
	prod, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic("t"), kgo.RecordRetries(100))
	if err != nil {
		t.Fatal(err)
	}
	defer prod.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	acked := map[string]bool{}
	for i := 0; i < 60; i++ {
		if i == 20 {
			if err := b.Apply(ctx, core.CrashBroker{Broker: b.leader("t-0")}); err != nil {
				t.Fatal(err)
			}
		}
		v := fmt.Sprint("r", i)
		if err := prod.ProduceSync(ctx, &kgo.Record{Value: []byte(v)}).FirstErr(); err != nil {
			t.Fatalf("produce %s: %v", v, err)
		}
		acked[v] = true
	}
	if l := b.leader("t-0"); l == 1 || l < 0 {
		t.Fatalf("leader after the crash: %d", l)
	}
	// The bootstrap broker is the crashed one: seed every broker, as
	// clients are told to.
	cons, err := kgo.NewClient(kgo.SeedBrokers(addrs(addr, 3)...), kgo.ConsumeTopics("t"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	seen := map[string]int{}
	for _, r := range consume(t, cons, len(acked)) {
		seen[string(r.Value)]++
	}
	for v := range acked {
		if seen[v] != 1 {
			t.Errorf("%s read %d times", v, seen[v])
		}
	}
}

// TestFranzGoUncleanElectionLoses: with unclean.leader.election.enable
// (the default before 0.11, KIP-106) an acks=1 record written to a leader whose follower had
// left the ISR is gone once the follower is elected uncleanly: a real
// consumer never sees it, and the old leader truncates it on return.
func TestFranzGoUncleanElectionLoses(t *testing.T) {
	b := newWallBackend(t, core.Options{Brokers: 2, Seed: 2, Version: "3.9", Metadata: "zk"},
		core.Set{Configs: map[string]string{"unclean.leader.election.enable": "true"}}, core.CreateTopic{Topic: "t", Partitions: 1, RF: 2, Assign: [][]int{{1, 2}}})
	b.speed = 20
	_, addr := startServer(t, b, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	prod, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic("t"), kgo.RequiredAcks(kgo.LeaderAck()),
		kgo.DisableIdempotentWrite())
	if err != nil {
		t.Fatal(err)
	}
	defer prod.Close()
	if err := prod.ProduceSync(ctx, &kgo.Record{Value: []byte("kept")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // replicated to broker 2
	// Broker 2 pauses: it stops fetching and leaves the ISR after
	// replica.lag.time.max.ms (10 s, half a wall second here).
	b.Apply(ctx, core.Pause{Broker: 2})
	waitUntil(t, ctx, "broker 2 out of the ISR", func() bool { return len(b.isr("t-0")) == 1 })
	if err := prod.ProduceSync(ctx, &kgo.Record{Value: []byte("lost")}).FirstErr(); err != nil {
		t.Fatalf("acks=1 produce to the lone leader: %v", err)
	}
	b.Apply(ctx, core.CrashBroker{Broker: 1})
	b.Apply(ctx, core.Resume{Broker: 2})
	waitUntil(t, ctx, "broker 2 elected uncleanly", func() bool { return b.leader("t-0") == 2 })
	b.Apply(ctx, core.Restart{Broker: 1})
	cons, err := kgo.NewClient(kgo.SeedBrokers(addrs(addr, 2)...), kgo.ConsumeTopics("t"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	recs := consume(t, cons, 1)
	time.Sleep(300 * time.Millisecond)
	sctx, scancel := context.WithTimeout(ctx, 500*time.Millisecond)
	recs = append(recs, cons.PollRecords(sctx, 10).Records()...)
	scancel()
	for _, r := range recs {
		if string(r.Value) == "lost" {
			t.Fatal("the record the unclean election lost was read")
		}
	}
	if string(recs[0].Value) != "kept" {
		t.Fatalf("read %q first, want kept", recs[0].Value)
	}
	waitUntil(t, ctx, "the old leader truncating lost", func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		for _, r := range b.c.Snapshot().Topics[0].Partitions[0].Replicas {
			if r.Broker == 1 {
				return r.LEO == 1
			}
		}
		return false
	})
}

func waitUntil(t *testing.T, ctx context.Context, what string, ok func() bool) {
	t.Helper()
	for ctx.Err() == nil {
		if ok() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

// isr returns partition's ISR as the controller has it.
func (b *wallBackend) isr(partition string) []int {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, t := range b.c.Snapshot().Topics {
		for _, p := range t.Partitions {
			if p.Name == partition {
				return p.ISR
			}
		}
	}
	return nil
}

// addrs lists the addresses of n brokers from broker 1's.
func addrs(first string, n int) []string {
	host, p, _ := net.SplitHostPort(first)
	port, _ := strconv.Atoi(p)
	var out []string
	for i := 0; i < n; i++ {
		out = append(out, net.JoinHostPort(host, strconv.Itoa(port+i)))
	}
	return out
}
