package kafka

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// benchRecords is how many 100-byte records each run pushes
// (KAFKASIM_BENCH_RECORDS, default 200000).
func benchRecords() int {
	if n, err := strconv.Atoi(os.Getenv("KAFKASIM_BENCH_RECORDS")); err == nil && n > 0 {
		return n
	}
	return 200_000
}

// pipeline produces n records with acks=all (idempotent, franz-go's
// defaults) to topic "b" and consumes them all, returning the wall time.
func pipeline(b *testing.B, seeds []string, n int) time.Duration {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	prod, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.DefaultProduceTopic("b"), kgo.RequiredAcks(kgo.AllISRAcks()))
	if err != nil {
		b.Fatal(err)
	}
	defer prod.Close()
	cons, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.ConsumeTopics("b"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		b.Fatal(err)
	}
	defer cons.Close()
	val := bytes.Repeat([]byte("x"), 100)
	start := time.Now()
	errs := make(chan error, 1)
	for i := 0; i < n; i++ {
		prod.Produce(ctx, &kgo.Record{Key: []byte(strconv.Itoa(i)), Value: val}, func(_ *kgo.Record, err error) {
			if err != nil {
				select {
				case errs <- err:
				default:
				}
			}
		})
	}
	if err := prod.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	select {
	case err := <-errs:
		b.Fatalf("produce: %v", err)
	default:
	}
	got := 0
	for got < n && ctx.Err() == nil {
		got += cons.PollFetches(ctx).NumRecords()
	}
	if got < n {
		b.Fatalf("consumed %d of %d", got, n)
	}
	return time.Since(start)
}

// BenchmarkFranzGoVsKfake: franz-go's producer and consumer (100-byte
// records, 6 partitions, RF 3, acks=all) against kafkasim, which really
// replicates in simulated time, and against franz-go's kfake, whose
// writes are immediate, in the same run. It reports both rates, their
// ratio, and kafkasim's heap after the run (bounded by retention, not by
// records ever written).
func BenchmarkFranzGoVsKfake(b *testing.B) {
	n := benchRecords()
	for i := 0; i < b.N; i++ {
		fake, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(6, "b"))
		if err != nil {
			b.Fatal(err)
		}
		tf := pipeline(b, fake.ListenAddrs(), n)
		fake.Close()

		be := newWallBackend(b, core.Options{Brokers: 3, Seed: 1, Version: "3.9", Metadata: "kraft"},
			core.CreateTopic{Topic: "b", Partitions: 6, RF: 3, Configs: map[string]string{"retention.bytes": "10000000", "segment.bytes": "1000000"}})
		srv, addr := startServer(b, be, 3)
		ts := pipeline(b, addrs(addr, 3), n)
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		srv.Close()

		sim, fk := float64(n)/ts.Seconds(), float64(n)/tf.Seconds()
		b.ReportMetric(sim, "kafkasim-rec/s")
		b.ReportMetric(fk, "kfake-rec/s")
		b.ReportMetric(sim/fk, "ratio")
		b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MiB")
		rss, peak := procMemMiB("VmRSS:"), procMemMiB("VmHWM:")
		b.ReportMetric(rss, "rss-MiB")
		b.ReportMetric(peak, "peak-rss-MiB")
		fmt.Fprintf(os.Stderr, "kafka bench: %d records: kafkasim %.0f rec/s, kfake %.0f rec/s, ratio %.2f, heap %.1f MiB, RSS %.0f MiB (peak %.0f, the whole test process: kfake's run included)\n",
			n, sim, fk, sim/fk, float64(ms.HeapInuse)/(1<<20), rss, peak)
	}
}

// procMemMiB reads one of /proc/self/status's kB fields (VmRSS, VmHWM)
// in MiB; 0 where there is no /proc.
func procMemMiB(field string) float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}
