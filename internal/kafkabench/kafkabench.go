// Package kafkabench is the client side of the Kafka benchmarks (make
// bench): franz-go producing 100-byte records with acks=all to a served
// cluster while a consumer reads them, against kafkasim's listeners (in
// the benchmark's process, server/kafka, or in a `kafkasim serve` of its
// own, cmd/kafkasim) and against franz-go's kfake, with the same client
// settings for both.
package kafkabench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Script is the served cluster: what `kafkasim serve --scenario` runs
// for the benchmarks. The topic's logs are bounded by retention (10 MB a
// partition, in 1 MB segments), checked every second from the start
// instead of Kafka's 5 minutes after a first check at 30 s
// (log.initial.task.delay.ms) so that a run of a few seconds shows the
// bound.
const Script = `cluster brokers=3 seed=1 version=3.9 metadata=kraft
set log.retention.check.interval.ms=1000 log.initial.task.delay.ms=0
topic create b partitions=6 rf=3 retention.bytes=10000000 segment.bytes=1000000
`

// Topic is the topic Script makes and Pipeline writes.
const Topic = "b"

// Phases is one pipeline run: the wall time until every record was
// acknowledged (Produce) and until the consumer had read up to the end
// of every partition (Total), this process's CPU time over the run (CPU,
// client and any server in the process) and the garbage collector's
// share of it (GC: runtime/metrics' estimate, which counts the
// collector's workers by wall time and so runs high on a machine whose
// cores are busy with other processes), how many records the consumer
// never saw because retention deleted them first (0 unless the consumer
// fell a whole retention.bytes behind), and the bytes and objects this
// process allocated over the run.
type Phases struct {
	Produce, Total, CPU, GC time.Duration
	Unread                  int
	AllocBytes, Allocs      uint64
}

// Pipeline produces n records with acks=all (idempotent, franz-go's
// defaults otherwise) to Topic while a consumer reads it from the start,
// and ends when the consumer has read up to the last acknowledged offset
// of every partition, or after ten minutes (an error). every, if set, is
// called from the producing goroutine after each fifth of the records.
func Pipeline(seeds []string, n int, every func(produced int)) (Phases, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var hooks []kgo.Opt // TraceEnv's, or none
	tr := newTracer()
	if tr != nil {
		hooks = append(hooks, kgo.WithHooks(tr))
	}
	prod, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(seeds...), kgo.DefaultProduceTopic(Topic), kgo.RequiredAcks(kgo.AllISRAcks())}, hooks...)...)
	if err != nil {
		return Phases{}, err
	}
	defer prod.Close()
	cons, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(seeds...), kgo.ConsumeTopics(Topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart())}, hooks...)...)
	if err != nil {
		return Phases{}, err
	}
	defer cons.Close()
	val := bytes.Repeat([]byte("x"), 100)
	var ph Phases
	start, cpu0, gc0 := time.Now(), cpuTime(), gcTime()
	if tr != nil {
		tr.start = start
	}
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
				if tr != nil {
					tr.ack()
				}
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
		ph.Produce = time.Since(start)
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
	// Until the producer is done, a poll also returns when it finishes,
	// so a consumer that has already read everything is not left
	// waiting for records that will never come (a fixed 100 ms poll
	// timeout added up to 100 ms to either side's time at random).
	// After it, every poll has records to return until done.
	untilProduced, stopPolls := context.WithCancel(ctx)
	defer stopPolls()
	go func() {
		<-produced
		stopPolls()
	}()
	for !done() && ctx.Err() == nil {
		pctx := ctx
		select {
		case <-produced:
		default:
			pctx = untilProduced
		}
		fs := cons.PollFetches(pctx)
		if tr != nil {
			tr.read(fs.NumRecords())
		}
		fs.EachRecord(func(r *kgo.Record) {
			got++
			seen[r.Partition] = max(seen[r.Partition], r.Offset)
		})
	}
	<-produced
	if perr != nil {
		return ph, fmt.Errorf("produce: %v", perr)
	}
	if ctx.Err() != nil {
		return ph, fmt.Errorf("consumed %d of %d records in 10 minutes", got, n)
	}
	ph.Total, ph.CPU, ph.GC, ph.Unread = time.Since(start), cpuTime()-cpu0, gcTime()-gc0, n-got
	bytes1, objs1 := allocated()
	ph.AllocBytes, ph.Allocs = bytes1-bytes0, objs1-objs0
	if tr != nil {
		tr.print(os.Stderr, seeds[0], ph)
	}
	return ph, nil
}

// allocated is the process's bytes and objects allocated so far.
func allocated() (bytes, objects uint64) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc, ms.Mallocs
}

// gcTime is the CPU time the garbage collector has used so far (marking,
// assists and pauses; runtime/metrics' estimate).
func gcTime() time.Duration {
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64 {
		return 0
	}
	return time.Duration(s[0].Value.Float64() * float64(time.Second))
}
