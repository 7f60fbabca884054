package kafka

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/server/room"
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

// benchScript is the served cluster: what `kafkasim serve` runs for a
// scenario with these lines. The topic's logs are bounded by retention
// (10 MB a partition, in 1 MB segments), checked every second instead of
// Kafka's 5 minutes so that a run of a few seconds shows the bound.
const benchScript = `cluster brokers=3 seed=1 version=3.9 metadata=kraft
set log.retention.check.interval.ms=1000
topic create b partitions=6 rf=3 retention.bytes=10000000 segment.bytes=1000000
`

// phases is one pipeline run: the wall time until every record was
// acknowledged (produce) and until the consumer had read up to the end
// of every partition (total), the process's CPU time (client and server)
// over the run, and how many records the consumer never saw because
// retention deleted them first (0 unless the consumer fell a whole
// retention.bytes behind).
type phases struct {
	produce, total time.Duration
	cpu            time.Duration
	unread         int
	allocBytes     uint64 // allocated over the run, client and server
	allocs         uint64
}

// allocated is the process's bytes and objects allocated so far.
func allocated() (bytes, objects uint64) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc, ms.Mallocs
}

// cpuTime is the process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// pipeline produces n records with acks=all (idempotent, franz-go's
// defaults otherwise) to topic "b" while a consumer reads the topic from
// the start, and ends when the consumer has read up to the last
// acknowledged offset of every partition. every, if set, is called from
// the producing goroutine after each fifth of the records.
func pipeline(b *testing.B, seeds []string, n int, every func(produced int)) phases {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
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
	var ph phases
	start, cpu0 := time.Now(), cpuTime()
	bytes0, objs0 := allocated()

	var mu sync.Mutex
	last := map[int32]int64{} // partition -> highest offset acknowledged
	var perr error
	produced := make(chan struct{})
	go func() {
		defer close(produced)
		for i := 0; i < n; i++ {
			if every != nil && i > 0 && i%max(n/5, 1) == 0 {
				every(i)
			}
			prod.Produce(ctx, &kgo.Record{Key: []byte(strconv.Itoa(i)), Value: val}, func(r *kgo.Record, err error) {
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					perr = err
				} else if o, ok := last[r.Partition]; !ok || r.Offset > o {
					last[r.Partition] = r.Offset
				}
			})
		}
		if err := prod.Flush(ctx); err != nil {
			mu.Lock()
			perr = err
			mu.Unlock()
		}
		ph.produce = time.Since(start)
	}()

	seen := map[int32]int64{} // partition -> highest offset read
	got := 0
	done := func() bool {
		select {
		case <-produced:
		default:
			return false
		}
		mu.Lock()
		defer mu.Unlock()
		for p, off := range last {
			if o, ok := seen[p]; !ok || o < off {
				return false
			}
		}
		return true
	}
	for !done() && ctx.Err() == nil {
		pctx, pcancel := context.WithTimeout(ctx, 100*time.Millisecond)
		fs := cons.PollFetches(pctx)
		pcancel()
		fs.EachRecord(func(r *kgo.Record) {
			got++
			seen[r.Partition] = max(seen[r.Partition], r.Offset)
		})
	}
	<-produced
	if perr != nil {
		b.Fatalf("produce: %v", perr)
	}
	if ctx.Err() != nil {
		b.Fatalf("consumed %d of %d records in 10 minutes", got, n)
	}
	ph.total, ph.cpu, ph.unread = time.Since(start), cpuTime()-cpu0, n-got
	bytes1, objs1 := allocated()
	ph.allocBytes, ph.allocs = bytes1-bytes0, objs1-objs0
	return ph
}

// benchRoom starts a room as `kafkasim serve` does (its default clock
// tick, speed 1: simulated time follows the wall clock) and waits until
// every partition of the topic has a leader and a full ISR.
func benchRoom(b *testing.B) *room.Room {
	r, err := room.New(room.Config{Name: "bench", Script: benchScript})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(r.Close)
	deadline := time.Now().Add(time.Minute)
	for {
		ready := false
		_ = r.Do(context.Background(), func(c *core.Cluster) {
			if t := c.Topic("b"); t != nil {
				ready = true
				for _, p := range c.Snapshot().Topics {
					for _, pt := range p.Partitions {
						if p.Name == "b" && (pt.Leader <= 0 || len(pt.ISR) != 3) {
							ready = false
						}
					}
				}
			}
		})
		if ready {
			return r
		}
		if time.Now().After(deadline) {
			b.Fatal("the topic's partitions have no leaders after a minute")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// BenchmarkFranzGoVsKfake: franz-go's producer and consumer (100-byte
// records, 6 partitions, RF 3, acks=all) against kafkasim served from a
// room as `kafkasim serve` does (it really replicates, in simulated time
// following the wall clock, with the default 2 ms network hops), and
// against franz-go's kfake (writes are immediate), in the same run with
// the same client settings. It reports both rates, their ratio, each
// phase's rate, the process CPU time per record of each run (client and
// server together: the load-independent figure), and kafkasim's heap and
// the process's RSS after the run (bounded by retention, not by records
// ever written).
func BenchmarkFranzGoVsKfake(b *testing.B) {
	n := benchRecords()
	for i := 0; i < b.N; i++ {
		fake, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(6, "b"))
		if err != nil {
			b.Fatal(err)
		}
		pf := pipeline(b, fake.ListenAddrs(), n, nil)
		fake.Close()

		r := benchRoom(b)
		srv, addr := startServer(b, FromRoom(r), 3)
		ps := pipeline(b, addrs(addr, 3), n, nil)
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		srv.Close()
		r.Close()

		rate := func(d time.Duration) float64 { return float64(n) / d.Seconds() }
		perRec := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(n) }
		sim, fk := rate(ps.total), rate(pf.total)
		b.ReportMetric(sim, "kafkasim-rec/s")
		b.ReportMetric(fk, "kfake-rec/s")
		b.ReportMetric(sim/fk, "ratio")
		b.ReportMetric(rate(ps.produce), "kafkasim-produce-rec/s")
		b.ReportMetric(rate(pf.produce), "kfake-produce-rec/s")
		b.ReportMetric(perRec(ps.cpu), "kafkasim-cpu-ns/rec")
		b.ReportMetric(perRec(pf.cpu), "kfake-cpu-ns/rec")
		b.ReportMetric(float64(ps.allocBytes)/float64(n), "kafkasim-alloc-B/rec")
		b.ReportMetric(float64(pf.allocBytes)/float64(n), "kfake-alloc-B/rec")
		b.ReportMetric(float64(ps.allocs)/float64(n), "kafkasim-allocs/rec")
		b.ReportMetric(float64(pf.allocs)/float64(n), "kfake-allocs/rec")
		b.ReportMetric(float64(ps.unread), "unread")
		b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MiB")
		rss, peak := procMemMiB("VmRSS:"), procMemMiB("VmHWM:")
		b.ReportMetric(rss, "rss-MiB")
		b.ReportMetric(peak, "peak-rss-MiB")
		fmt.Fprintf(os.Stderr, "kafka bench: %d records: kafkasim %.0f rec/s (acked %.0f rec/s; %.0f ns CPU, %.0f B and %.1f allocations a record; %d deleted by retention unread), kfake %.0f rec/s (acked %.0f rec/s; %.0f ns CPU, %.0f B and %.1f allocations a record), ratio %.2f, heap %.1f MiB, RSS %.0f MiB (peak %.0f, the whole test process: kfake's run included)\n",
			n, sim, rate(ps.produce), perRec(ps.cpu), float64(ps.allocBytes)/float64(n), float64(ps.allocs)/float64(n), ps.unread,
			fk, rate(pf.produce), perRec(pf.cpu), float64(pf.allocBytes)/float64(n), float64(pf.allocs)/float64(n), sim/fk, float64(ms.HeapInuse)/(1<<20), rss, peak)
	}
}

// BenchmarkServeMemory: the same pipeline against kafkasim alone
// (KAFKASIM_BENCH_RECORDS, 5 million in `make bench`), reporting the
// live heap after a fifth of the records and after all of them, and the
// process's RSS: memory is bounded by the topic's retention (6
// partitions of at most 10 MB plus a 1 MB segment each; replicas share
// their batches), not by the records ever written.
func BenchmarkServeMemory(b *testing.B) {
	n := benchRecords()
	for i := 0; i < b.N; i++ {
		r := benchRoom(b)
		srv, addr := startServer(b, FromRoom(r), 3)
		var early float64
		ps := pipeline(b, addrs(addr, 3), n, func(produced int) {
			if produced == max(n/5, 1) {
				early = liveHeapMiB()
			}
		})
		late := liveHeapMiB()
		if path := os.Getenv("KAFKASIM_BENCH_HEAPPROFILE"); path != "" {
			writeHeapProfile(b, path) // what the live heap holds, served cluster still up
		}
		var kept int64
		_ = r.Do(context.Background(), func(c *core.Cluster) {
			for _, t := range c.Snapshot().Topics {
				for _, p := range t.Partitions {
					for _, rv := range p.Replicas {
						if t.Name == "b" && rv.Broker == p.Leader {
							kept += rv.LEO - rv.LogStart
						}
					}
				}
			}
		})
		srv.Close()
		r.Close()
		rss, peak := procMemMiB("VmRSS:"), procMemMiB("VmHWM:")
		b.ReportMetric(float64(n)/ps.total.Seconds(), "kafkasim-rec/s")
		b.ReportMetric(early, "heap-fifth-MiB")
		b.ReportMetric(late, "heap-MiB")
		b.ReportMetric(rss, "rss-MiB")
		b.ReportMetric(peak, "peak-rss-MiB")
		b.ReportMetric(float64(kept), "records-kept")
		fmt.Fprintf(os.Stderr, "kafka memory: %d records (%d kept by retention): live heap %.1f MiB after %d, %.1f MiB after all; RSS %.0f MiB (peak %.0f: server and client in one process)\n",
			n, kept, early, max(n/5, 1), late, rss, peak)
	}
}

// writeHeapProfile writes the heap profile to path.
func writeHeapProfile(b *testing.B, path string) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.WriteHeapProfile(f); err != nil {
		b.Fatal(err)
	}
}

// liveHeapMiB is the heap in use after a full collection, in MiB.
func liveHeapMiB() float64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapInuse) / (1 << 20)
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
