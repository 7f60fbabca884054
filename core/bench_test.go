package core

import (
	"runtime"
	"strconv"
	"testing"
)

// benchChunk is how many records BenchmarkEndToEnd hands to one Produce
// command: large enough to fill batches, small enough that the records in
// flight stay a bounded working set.
const benchChunk = 20_000

// benchCluster builds the end-to-end benchmark's cluster: 3 brokers, a
// topic of 6 partitions with RF 3 and min.insync.replicas=2, an idempotent
// acks=all producer and a consumer manually assigned every partition,
// polling in a loop from the earliest offset. It lets the setup finish,
// then turns events and history off.
func benchCluster(tb testing.TB) (*Cluster, *Consumer) {
	c, err := New(Options{Brokers: 3, Seed: 1, Version: "4.0"})
	if err != nil {
		tb.Fatal(err)
	}
	parts := make([]string, 6)
	for i := range parts {
		parts[i] = "bench-" + strconv.Itoa(i)
	}
	for _, cmd := range []Command{
		CreateTopic{Topic: "bench", Partitions: 6, RF: 3, Configs: map[string]string{"min.insync.replicas": "2"}},
		NewProducer{Name: "p1", Configs: map[string]string{"acks": "all", "enable.idempotence": "true"}},
		NewConsumer{Name: "c1", Configs: map[string]string{"auto.offset.reset": "earliest", "poll": "auto"}},
		Assign{Consumer: "c1", Partitions: parts},
		Wait{Duration: 2000},
	} {
		if err := c.Exec(cmd); err != nil {
			tb.Fatalf("%s: %v", cmd.Kind(), err)
		}
	}
	c.Quiet(true)
	return c, c.consumers["c1"]
}

// BenchmarkEndToEnd measures simulated records per wall-clock second
// through the whole pipeline: each record is sent by the producer,
// appended by its leader, replicated to both followers, acknowledged once
// the HW passes it, and returned by the consumer's poll. b.N is the number
// of records; the benchmark fails unless the consumer received all of them
// and the producer has none pending.
func BenchmarkEndToEnd(b *testing.B) {
	c, k := benchCluster(b)
	p := c.producers["p1"]
	start := k.polled
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	produceAndDrain(b, c, func() int { return k.polled - start }, 10)
	b.StopTimer()
	runtime.ReadMemStats(&after)
	if got := k.polled - start; got != b.N || p.pending != 0 {
		b.Fatalf("consumed %d of %d records, %d still pending at the producer", got, b.N, p.pending)
	}
	var hw int64
	for _, part := range c.topics["bench"].parts {
		hw += c.brokers[part.Leader()-1].replicas[part].hw
	}
	if hw != int64(b.N) {
		b.Fatalf("high watermarks add up to %d, want %d", hw, b.N)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
	// allocs/op rounds down to 0: say how many there are per 1000 records.
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)*1000/float64(b.N), "allocs/krec")
}

// produceAndDrain sends b.N records through producer p1 to topic "bench" in
// chunks of benchChunk, and after each chunk advances virtual time by step
// ms at a time until consumed() (records the consumers received since the
// start) has every record sent so far; it fails the benchmark after 60 s
// of virtual time without that.
func produceAndDrain(b *testing.B, c *Cluster, consumed func() int, step int64) {
	sent := 0
	for sent < b.N {
		n := min(benchChunk, b.N-sent)
		if err := c.Apply(Produce{Producer: "p1", Topic: "bench", Value: "v", Count: n}); err != nil {
			b.Fatal(err)
		}
		sent += n
		deadline := c.now + 60_000
		for consumed() < sent {
			if c.now >= deadline {
				b.Fatalf("consumers got %d of %d records after 60 s of virtual time", consumed(), sent)
			}
			if _, err := c.Advance(step); err != nil {
				b.Fatal(err)
			}
		}
	}
}
