package core

import (
	"strconv"
	"testing"
)

// BenchmarkGroupEndToEnd is BenchmarkEndToEnd with a consumer group: three
// members of one group (range assignor, auto-commit every 5 s) share the
// six partitions, so offsets are committed to __consumer_offsets as
// records flow.
func BenchmarkGroupEndToEnd(b *testing.B) {
	c, err := New(Options{Brokers: 3, Seed: 1, Version: "4.0"})
	if err != nil {
		b.Fatal(err)
	}
	cmds := []Command{
		CreateTopic{Topic: "bench", Partitions: 6, RF: 3, Configs: map[string]string{"min.insync.replicas": "2"}},
		NewProducer{Name: "p1", Configs: map[string]string{"acks": "all"}},
	}
	for i := 1; i <= 3; i++ {
		cmds = append(cmds, NewConsumer{Name: "c" + strconv.Itoa(i), Group: "g", Topics: []string{"bench"},
			Configs: map[string]string{"auto.offset.reset": "earliest"}})
	}
	cmds = append(cmds, Wait{Duration: 10_000})
	for _, cmd := range cmds {
		if err := c.Exec(cmd); err != nil {
			b.Fatalf("%s: %v", cmd.Kind(), err)
		}
	}
	if st, _ := c.GroupState("g"); st != "Stable" {
		b.Fatalf("group is %s after setup, want Stable", st)
	}
	c.Quiet(true)
	polled := func() int {
		n := 0
		for i := 1; i <= 3; i++ {
			n += c.consumers["c"+strconv.Itoa(i)].polled
		}
		return n
	}
	start := polled()
	b.ReportAllocs()
	b.ResetTimer()
	produceAndDrain(b, c, func() int { return polled() - start }, 5)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkRebalance100 measures how long (wall clock) the simulator takes
// to form a group of 100 members over a 100-partition topic, from the
// first JoinGroup to Stable with every member assigned, and reports the
// virtual time the rebalance took.
func BenchmarkRebalance100(b *testing.B) {
	var virtual int64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		c, err := New(Options{Brokers: 3, Seed: uint64(i + 1), Version: "4.0"})
		if err != nil {
			b.Fatal(err)
		}
		if err := c.Apply(CreateTopic{Topic: "t", Partitions: 100, RF: 3}); err != nil {
			b.Fatal(err)
		}
		c.Quiet(true)
		b.StartTimer()
		start := c.now
		for m := 0; m < 100; m++ {
			if err := c.Apply(NewConsumer{Name: "c" + strconv.Itoa(m), Group: "g", Topics: []string{"t"}}); err != nil {
				b.Fatal(err)
			}
		}
		for {
			a, ok := c.GroupAssignment("g")
			if st, _ := c.GroupState("g"); ok && st == "Stable" && len(a) == 100 {
				break
			}
			if c.now-start > 600_000 {
				b.Fatalf("no stable 100-member group after 10 virtual minutes")
			}
			if _, err := c.Advance(10); err != nil {
				b.Fatal(err)
			}
		}
		virtual += c.now - start
	}
	b.ReportMetric(float64(virtual)/float64(b.N), "virtual-ms/rebalance")
}
