package kafka

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/log"
	"github.com/kafkasim/kafkasim/server/room"
)

// manualRoom is a served room whose clock the test moves by hand.
type manualRoom struct {
	r     *room.Room
	ticks chan time.Time
	mu    sync.Mutex
	now   time.Time
}

func newManualRoom(t *testing.T, script string) *manualRoom {
	t.Helper()
	m := &manualRoom{ticks: make(chan time.Time), now: time.Unix(1_700_000_000, 0)}
	r, err := room.New(room.Config{Name: "mem", Script: script, Ticks: m.ticks,
		Now: func() time.Time { m.mu.Lock(); defer m.mu.Unlock(); return m.now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	m.r = r
	return m
}

// tick moves the clock by d and waits until the room has advanced.
func (m *manualRoom) tick(d time.Duration) {
	m.mu.Lock()
	m.now = m.now.Add(d)
	now := m.now
	m.mu.Unlock()
	m.ticks <- now
	_ = m.r.Do(context.Background(), func(*core.Cluster) {})
}

// liveHeap is the heap in use after a full collection.
func liveHeap() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestMemoryBoundedByRetention: a real client's records, produced with
// acks=all through a served room, are held only as long as the topic's
// retention keeps them. 40 MB go through a partition that keeps 300 KB;
// the live heap after 30 MB more is within a few MB of the heap after
// the first 10 MB. (The core's command log, which a room stops, kept
// every record: 31 MB more; so did each request's request.timeout.ms
// timer, 30 s of virtual time after its answer: 32 MB more.) Sizes only,
// no timing: the room's clock is moved by hand.
func TestMemoryBoundedByRetention(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 40 MB")
	}
	m := newManualRoom(t, `cluster brokers=3 seed=1 version=3.9 metadata=kraft
set log.retention.check.interval.ms=100 log.initial.task.delay.ms=0
topic create m partitions=1 rf=3 retention.bytes=300000 segment.bytes=100000
`)
	leader := 0
	for i := 0; i < 200 && leader <= 0; i++ {
		m.tick(50 * time.Millisecond)
		_ = m.r.Do(context.Background(), func(c *core.Cluster) {
			for _, tv := range c.Snapshot().Topics {
				for _, p := range tv.Partitions {
					if tv.Name == "m" && len(p.ISR) == 3 {
						leader = p.Leader
					}
				}
			}
		})
	}
	if leader <= 0 {
		t.Fatal("no leader with a full ISR after 10 s")
	}
	be := FromRoom(m.r)
	ctx := context.Background()
	if err := be.Apply(ctx, core.OpenConn{Conn: "k1", Host: "client", Broker: leader}); err != nil {
		t.Fatal(err)
	}
	m.tick(20 * time.Millisecond)
	const requests, perRequest, recordBytes = 1000, 40, 1000
	var before uint64
	for i := 0; i < requests; i++ {
		recs := make([]log.Record, perRequest)
		for j := range recs {
			recs[j] = log.Record{Value: fmt.Sprintf("%08d-%08d-%s", i, j, strings.Repeat("x", recordBytes-18))}
		}
		err := be.Apply(ctx, core.BrokerRequest{Conn: "k1", Correlation: int32(i), Produce: &core.ProduceRequest{Acks: -1, TimeoutMs: 30000,
			Partitions: []core.ProducePartition{{Topic: "m", ProducerID: -1, BaseSequence: -1, Records: recs}}}})
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		m.tick(10 * time.Millisecond)
		if i == requests/4-1 {
			before = liveHeap()
		}
	}
	m.tick(time.Second) // a retention check
	after := liveHeap()
	var logStart, leo int64
	var truncated bool
	_ = m.r.Do(ctx, func(c *core.Cluster) {
		truncated = c.CommandLogTruncated()
		for _, tv := range c.Snapshot().Topics {
			for _, p := range tv.Partitions {
				for _, rv := range p.Replicas {
					if tv.Name == "m" && rv.Broker == leader {
						logStart, leo = rv.LogStart, rv.LEO
					}
				}
			}
		}
	})
	if leo != requests*perRequest {
		t.Fatalf("leader's LEO %d, want %d: the requests were not all appended", leo, requests*perRequest)
	}
	if kept := leo - logStart; kept*recordBytes > 2*300_000 {
		t.Errorf("the leader keeps %d records (%d KB): retention did not run", kept, kept*recordBytes/1000)
	}
	if !truncated {
		t.Error("the room's cluster keeps a command log")
	}
	if grow := int64(after) - int64(before); grow > 8<<20 {
		t.Errorf("live heap grew %d MB while 30 MB went through a partition that keeps 300 KB", grow>>20)
	}
	t.Logf("live heap after 10 MB: %d MB, after 40 MB: %d MB; the leader keeps offsets %d-%d", before>>20, after>>20, logStart, leo)
}
