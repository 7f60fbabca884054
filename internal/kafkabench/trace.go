package kafkabench

import (
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TraceEnv turns Pipeline's client trace on: KAFKASIM_BENCH_TRACE=1
// prints, after each run, the time to the first ack and the first record
// read, each API's requests (how many, when the first and last, their
// mean and longest round trip as the client saw it), the records per
// produced and fetched batch, and the records acked and read in each 100
// ms; KAFKASIM_BENCH_TRACE=requests also lists the run's first requests
// and connections one by one (each request's start, end and waits). The
// figures are the clients' own (kgo hooks), so kafkasim and kfake are
// traced alike. A diagnosis, not a figure of `make bench`.
const TraceEnv = "KAFKASIM_BENCH_TRACE"

// traceRequests is how many requests and connections the requests mode
// lists.
const traceRequests = 80

// tracer is the kgo hook behind TraceEnv. Its times are since the run's
// start (Pipeline's timed window, which begins before the clients
// connect).
type tracer struct {
	mu    sync.Mutex
	start time.Time
	list  bool // TraceEnv=requests
	apis  map[int16]*apiStat
	prod  []stamp // produced batches: when written, records
	fetch []stamp // fetched batches: when read, records
	acks  []time.Duration
	reads []time.Duration
	early []string // the first requests and connections, in the requests mode
}

// stamp is a batch: when, and how many records.
type stamp struct {
	at time.Duration
	n  int
}

// apiStat is one API's requests.
type apiStat struct {
	n           int
	first, last time.Duration // when the first and last response were read
	total, most time.Duration // round trips (kgo's DurationE2E): sum, longest
}

// newTracer is TraceEnv's tracer, nil when it is not set.
func newTracer() *tracer {
	mode := os.Getenv(TraceEnv)
	if mode == "" {
		return nil
	}
	return &tracer{list: mode == "requests", apis: map[int16]*apiStat{}, start: time.Now()}
}

func (t *tracer) since() time.Duration { return time.Since(t.start) }

func (t *tracer) OnBrokerE2E(m kgo.BrokerMetadata, key int16, e kgo.BrokerE2E) {
	at, d := t.since(), e.DurationE2E()
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.apis[key]
	if s == nil {
		s = &apiStat{first: at}
		t.apis[key] = s
	}
	s.n++
	s.last, s.total, s.most = at, s.total+d, max(s.most, d)
	if t.list && len(t.early) < traceRequests {
		r := func(d time.Duration) time.Duration { return d.Round(100 * time.Microsecond) }
		t.early = append(t.early, fmt.Sprintf("  %8v..%8v node %d %s (waited %v to be written, %v for the response, %v reading it) %d B",
			r(at-d-e.WriteWait), r(at), m.NodeID, kmsg.NameForKey(key), r(e.WriteWait), r(e.ReadWait), r(e.TimeToRead), e.BytesRead))
	}
}

func (t *tracer) OnBrokerConnect(m kgo.BrokerMetadata, dial time.Duration, _ net.Conn, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.list && len(t.early) < traceRequests {
		t.early = append(t.early, fmt.Sprintf("  %8v connected to node %d (dial and handshake %v, err %v)",
			t.since().Round(100*time.Microsecond), m.NodeID, dial.Round(100*time.Microsecond), err))
	}
}

func (t *tracer) OnProduceBatchWritten(_ kgo.BrokerMetadata, _ string, _ int32, m kgo.ProduceBatchMetrics) {
	t.mu.Lock()
	t.prod = append(t.prod, stamp{t.since(), m.NumRecords})
	t.mu.Unlock()
}

func (t *tracer) OnFetchBatchRead(_ kgo.BrokerMetadata, _ string, _ int32, m kgo.FetchBatchMetrics) {
	t.mu.Lock()
	t.fetch = append(t.fetch, stamp{t.since(), m.NumRecords})
	t.mu.Unlock()
}

// ack notes a record acknowledged.
func (t *tracer) ack() {
	at := t.since()
	t.mu.Lock()
	t.acks = append(t.acks, at)
	t.mu.Unlock()
}

// read notes n records returned by a poll.
func (t *tracer) read(n int) {
	at := t.since()
	t.mu.Lock()
	for range n {
		t.reads = append(t.reads, at)
	}
	t.mu.Unlock()
}

// print writes the run's trace.
func (t *tracer) print(w io.Writer, seed string, ph Phases) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ms := func(d time.Duration) time.Duration { return d.Round(100 * time.Microsecond) }
	var b strings.Builder
	fmt.Fprintf(&b, "kafkabench trace (%s): produced in %v, total %v", seed, ms(ph.Produce), ms(ph.Total))
	slices.Sort(t.acks)
	slices.Sort(t.reads)
	if len(t.acks) > 0 {
		fmt.Fprintf(&b, "; first ack at %v, last %v", ms(t.acks[0]), ms(t.acks[len(t.acks)-1]))
	}
	if len(t.reads) > 0 {
		fmt.Fprintf(&b, "; first record read at %v, last %v", ms(t.reads[0]), ms(t.reads[len(t.reads)-1]))
	}
	b.WriteString("\n")
	for _, l := range t.early {
		b.WriteString(l + "\n")
	}
	for _, k := range slices.Sorted(maps.Keys(t.apis)) {
		s := t.apis[k]
		fmt.Fprintf(&b, "  %-26s %6d, first at %8v, last %8v, round trip mean %8v, longest %8v\n",
			kmsg.NameForKey(k), s.n, ms(s.first), ms(s.last), ms(s.total/time.Duration(s.n)), ms(s.most))
	}
	batches := func(what string, ss []stamp) {
		if len(ss) == 0 {
			return
		}
		n := 0
		for _, s := range ss {
			n += s.n
		}
		fmt.Fprintf(&b, "  %s batches %d, %.0f records a batch, the first at %v\n", what, len(ss), float64(n)/float64(len(ss)), ms(ss[0].at))
	}
	batches("produced", t.prod)
	batches("fetched", t.fetch)
	per100 := func(ts []time.Duration) []int {
		var out []int
		for _, at := range ts {
			i := int(at / (100 * time.Millisecond))
			for len(out) <= i {
				out = append(out, 0)
			}
			out[i]++
		}
		return out
	}
	fmt.Fprintf(&b, "  acked in each 100 ms %v\n  read in each 100 ms  %v\n", per100(t.acks), per100(t.reads))
	io.WriteString(w, b.String())
}
