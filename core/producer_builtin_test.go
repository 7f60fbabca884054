package core

import (
	"testing"

	"github.com/kafkasim/kafkasim/core/log"
)

// TestNextUniformWeights checks BuiltInPartitioner.nextPartition's choice:
// uniform (the current partition included) until every partition has a
// batch queue, then weighted maxQueue+1-queue over the partitions with a
// leader (updatePartitionLoadStats), uniform again when the queues are
// equal.
func TestNextUniformWeights(t *testing.T) {
	c, err := New(Options{Brokers: 3, Seed: 1, Version: "3.9"})
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []Command{
		CreateTopic{Topic: "t", Partitions: 3, RF: 1},
		NewProducer{Name: "p", Configs: map[string]string{"linger.ms": "60000"}},
	} {
		if err := c.Apply(cmd); err != nil {
			t.Fatal(err)
		}
	}
	p, tp := c.producers["p"], c.topics["t"]
	for _, part := range tp.parts {
		p.meta.leaders[part] = 1
	}
	p.meta.counts["t"] = 3
	d := p.dest("t")
	count := func() [3]int {
		var n [3]int
		for range 3000 {
			n[p.nextUniform(&d)]++
		}
		return n
	}
	if n := count(); n[0] < 800 || n[1] < 800 || n[2] < 800 {
		t.Errorf("no queues yet: want uniform picks, got %v", n)
	}
	// Queues of 3, 1 and 0 unsent batches: weights 1, 3, 4 (of 8).
	for i, batches := range []int{3, 1, 0} {
		q := p.queue(tp.parts[i])
		for range batches {
			q.batches = append(q.batches, &pbatch{q: q, recs: []log.Record{{Value: "x"}}})
		}
	}
	if n := count(); n[0] > 550 || n[1] < 950 || n[1] > 1300 || n[2] < 1300 {
		t.Errorf("queues 3,1,0: want about 375, 1125, 1500 picks, got %v", n)
	}
	// Partition 2 loses its leader: only 0 and 1, weights 1 and 3.
	p.meta.leaders[tp.parts[2]] = -1
	if n := count(); n[2] != 0 || n[0] > 950 || n[1] < 2050 {
		t.Errorf("partition 2 leaderless: want about 750, 2250, 0 picks, got %v", n)
	}
}

// TestRetryBackoff checks KIP-580's ExponentialBackoff(100, 2, 1000, 0.2)
// for attempts 1..6, a constant max when retry.backoff.max.ms is below
// retry.backoff.ms, and retry.backoff.ms unchanged before 3.7.
func TestRetryBackoff(t *testing.T) {
	for _, v := range []string{"3.9", "2.8"} {
		c, err := New(Options{Brokers: 1, Seed: 3, Version: v})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Apply(NewProducer{Name: "p"}); err != nil {
			t.Fatal(err)
		}
		p := c.producers["p"]
		b := &pbatch{}
		for attempts, want := range []int64{0, 100, 200, 400, 800, 1000, 1000} {
			if attempts == 0 {
				continue
			}
			b.attempts = attempts
			for range 200 {
				got := p.retryBackoff(b)
				switch {
				case v == "2.8" && got != 100:
					t.Fatalf("2.8 attempt %d: backoff %d, want 100", attempts, got)
				case v == "3.9" && (got < want*8/10 || got >= want*12/10 || got > 1000):
					t.Fatalf("3.9 attempt %d: backoff %d, want [%d, %d) and <= 1000", attempts, got, want*8/10, want*12/10)
				}
			}
		}
		p.conf.backoff, p.conf.backoffMax = 500, 300
		if got := p.retryBackoff(b); v == "3.9" && got != 300 {
			t.Errorf("max below initial: backoff %d, want 300", got)
		}
	}
}
