package kafka

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/internal/kafkabench"
	"github.com/kafkasim/kafkasim/server/room"
	"github.com/twmb/franz-go/pkg/kfake"
)

// benchRecords is how many 100-byte records each run pushes
// (KAFKASIM_BENCH_RECORDS, default 1000000, as in `make bench`: at
// 200000 a run lasts about 0.2 s, of which the clients' start is a
// quarter).
func benchRecords() int {
	if n, err := strconv.Atoi(os.Getenv("KAFKASIM_BENCH_RECORDS")); err == nil && n > 0 {
		return n
	}
	return 1_000_000
}

// benchRoom starts a room as `kafkasim serve` does (its default clock
// tick, speed 1: simulated time follows the wall clock; its prelude,
// room.LocalNetwork: 1 ms hops) and waits until
// every partition of the topic has a leader and a full ISR. The
// caller closes it.
func benchRoom(b *testing.B) *room.Room {
	r, err := room.New(room.Config{Name: "bench", Script: kafkabench.Script, Prelude: room.LocalNetwork})
	if err != nil {
		b.Fatal(err)
	}
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
			r.Close()
			b.Fatal("the topic's partitions have no leaders after a minute")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// benchRounds is how many rounds BenchmarkFranzGoVsKfake runs
// (KAFKASIM_BENCH_ROUNDS, default 5).
func benchRounds() int {
	if n, err := strconv.Atoi(os.Getenv("KAFKASIM_BENCH_ROUNDS")); err == nil && n > 0 {
		return n
	}
	return 5
}

// kfakeRun is one pipeline against a fresh kfake cluster (3 brokers, the
// topic's 6 partitions; kfake's default replication is 3 but nothing
// replicates: writes are immediate).
func kfakeRun(b *testing.B, n int) kafkabench.Phases {
	fake, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(6, "b"))
	if err != nil {
		b.Fatal(err)
	}
	defer fake.Close()
	runtime.GC() // the previous run's garbage is not this run's work
	return pipeline(b, fake.ListenAddrs(), n, nil)
}

// kafkasimRun is one pipeline against a fresh room served as `kafkasim
// serve` does, and its heap in use after the run.
func kafkasimRun(b *testing.B, n int) (kafkabench.Phases, float64) {
	r := benchRoom(b)
	defer r.Close()
	srv, addr := listenFree(b, FromRoom(r), 3)
	defer srv.Close()
	runtime.GC()
	ps := pipeline(b, addrs(addr, 3), n, nil)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ps, float64(ms.HeapInuse) / (1 << 20)
}

// pipeline is kafkabench.Pipeline, failing b on error.
func pipeline(b *testing.B, seeds []string, n int, every func(produced int)) kafkabench.Phases {
	ph, err := kafkabench.Pipeline(seeds, n, every)
	if err != nil {
		b.Fatal(err)
	}
	return ph
}

// median of xs (which it sorts).
func median(xs []float64) float64 {
	slices.Sort(xs)
	if len(xs)%2 == 1 {
		return xs[len(xs)/2]
	}
	return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
}

// BenchmarkFranzGoVsKfake: franz-go's producer and consumer (100-byte
// records, 6 partitions, RF 3, acks=all) against kafkasim served from a
// room as `kafkasim serve` does (it really replicates, in simulated time
// following the wall clock, over serve's simulated local network of 1 ms
// hops, room.LocalNetwork), and
// against franz-go's kfake (writes are immediate), in the same run with
// the same client settings. A single run of each is at the mercy of
// whatever else the machine does during its second or two, so it runs
// KAFKASIM_BENCH_ROUNDS rounds (default 5) of one run each, alternating
// which goes first, and reports medians: of each rate, of each phase's
// rate, of the process CPU time per record (client and server together:
// the load-independent figure), and of the rounds' ratios (each round's
// two runs saw about the same machine), with the lowest and highest
// ratio; then kafkasim's heap after its last run and the process's RSS
// (bounded by retention, not by records ever written).
func BenchmarkFranzGoVsKfake(b *testing.B) {
	n, rounds := benchRecords(), benchRounds()
	rate := func(d time.Duration) float64 { return float64(n) / d.Seconds() }
	perRec := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(n) }
	for i := 0; i < b.N; i++ {
		var sims, fakes []kafkabench.Phases
		var ratios []float64
		heap := 0.0
		for k := 0; k < rounds; k++ {
			var ps, pf kafkabench.Phases
			// The pprof label run (kafkasim or kfake) marks every
			// goroutine a run starts, clients' and servers': a
			// -cpuprofile splits with -tagfocus run=kafkasim.
			sim := func() {
				pprof.Do(context.Background(), pprof.Labels("run", "kafkasim"), func(context.Context) { ps, heap = kafkasimRun(b, n) })
			}
			fake := func() {
				pprof.Do(context.Background(), pprof.Labels("run", "kfake"), func(context.Context) { pf = kfakeRun(b, n) })
			}
			if k%2 == 0 {
				fake()
				sim()
			} else {
				sim()
				fake()
			}
			sims, fakes = append(sims, ps), append(fakes, pf)
			ratios = append(ratios, rate(ps.Total)/rate(pf.Total))
			fmt.Fprintf(os.Stderr, "kafka bench: round %d of %d: kafkasim %.0f rec/s (%.0f ns CPU a record, %.0f of them GC), kfake %.0f rec/s (%.0f ns, %.0f GC), ratio %.2f\n",
				k+1, rounds, rate(ps.Total), perRec(ps.CPU), perRec(ps.GC), rate(pf.Total), perRec(pf.CPU), perRec(pf.GC), ratios[k])
		}
		med := func(ps []kafkabench.Phases, f func(kafkabench.Phases) float64) float64 {
			xs := make([]float64, len(ps))
			for j, p := range ps {
				xs[j] = f(p)
			}
			return median(xs)
		}
		total := func(p kafkabench.Phases) float64 { return rate(p.Total) }
		produce := func(p kafkabench.Phases) float64 { return rate(p.Produce) }
		cpu := func(p kafkabench.Phases) float64 { return perRec(p.CPU) }
		gc := func(p kafkabench.Phases) float64 { return perRec(p.GC) }
		allocB := func(p kafkabench.Phases) float64 { return float64(p.AllocBytes) / float64(n) }
		allocs := func(p kafkabench.Phases) float64 { return float64(p.Allocs) / float64(n) }
		unread := func(p kafkabench.Phases) float64 { return float64(p.Unread) }
		lo, hi := slices.Min(ratios), slices.Max(ratios)
		ratio := median(ratios)
		sim, fk := med(sims, total), med(fakes, total)
		b.ReportMetric(sim, "kafkasim-rec/s")
		b.ReportMetric(fk, "kfake-rec/s")
		b.ReportMetric(ratio, "ratio")
		b.ReportMetric(lo, "ratio-min")
		b.ReportMetric(hi, "ratio-max")
		b.ReportMetric(float64(rounds), "rounds")
		b.ReportMetric(med(sims, produce), "kafkasim-produce-rec/s")
		b.ReportMetric(med(fakes, produce), "kfake-produce-rec/s")
		b.ReportMetric(med(sims, cpu), "kafkasim-cpu-ns/rec")
		b.ReportMetric(med(fakes, cpu), "kfake-cpu-ns/rec")
		b.ReportMetric(med(sims, gc), "kafkasim-gc-ns/rec")
		b.ReportMetric(med(fakes, gc), "kfake-gc-ns/rec")
		b.ReportMetric(med(sims, allocB), "kafkasim-alloc-B/rec")
		b.ReportMetric(med(fakes, allocB), "kfake-alloc-B/rec")
		b.ReportMetric(med(sims, allocs), "kafkasim-allocs/rec")
		b.ReportMetric(med(fakes, allocs), "kfake-allocs/rec")
		b.ReportMetric(med(sims, unread), "unread")
		b.ReportMetric(heap, "heap-MiB")
		rss, peak := procMemMiB("VmRSS:"), procMemMiB("VmHWM:")
		b.ReportMetric(rss, "rss-MiB")
		b.ReportMetric(peak, "peak-rss-MiB")
		fmt.Fprintf(os.Stderr, "kafka bench: %d records, median of %d rounds: kafkasim %.0f rec/s (acked %.0f rec/s; %.0f ns CPU (%.0f GC), %.0f B and %.1f allocations a record; %.0f deleted by retention unread), kfake %.0f rec/s (acked %.0f rec/s; %.0f ns CPU (%.0f GC), %.0f B and %.1f allocations a record), ratio %.2f (rounds %.2f to %.2f), heap %.1f MiB, RSS %.0f MiB (peak %.0f, the whole test process: kfake's runs included)\n",
			n, rounds, sim, med(sims, produce), med(sims, cpu), med(sims, gc), med(sims, allocB), med(sims, allocs), med(sims, unread),
			fk, med(fakes, produce), med(fakes, cpu), med(fakes, gc), med(fakes, allocB), med(fakes, allocs), ratio, lo, hi, heap, rss, peak)
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
		defer r.Close()
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
		b.ReportMetric(float64(n)/ps.Total.Seconds(), "kafkasim-rec/s")
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
