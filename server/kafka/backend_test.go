package kafka

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
)

// wallBackend drives a cluster by the wall clock for tests: a ticker
// advances virtual time by the wall time that passed (speed 1), and
// every watcher sees the events after each step.
type wallBackend struct {
	mu       sync.Mutex
	c        *core.Cluster
	watchers map[int]func(*core.Cluster, []core.Event, bool)
	next     int
	last     time.Time
	speed    int64 // virtual ms per wall ms
	done     chan struct{}
}

func newWallBackend(t testing.TB, opts core.Options, setup ...core.Command) *wallBackend {
	t.Helper()
	c, err := core.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range setup {
		if err := c.Apply(cmd); err != nil {
			t.Fatal(err)
		}
	}
	c.Advance(5000) // elections done before clients come
	c.Events()
	b := &wallBackend{c: c, watchers: map[int]func(*core.Cluster, []core.Event, bool){}, last: time.Now(), speed: 1, done: make(chan struct{})}
	go b.loop()
	t.Cleanup(func() { close(b.done) })
	return b
}

func (b *wallBackend) loop() {
	tk := time.NewTicker(2 * time.Millisecond)
	defer tk.Stop()
	for {
		select {
		case <-b.done:
			return
		case now := <-tk.C:
			b.mu.Lock()
			if d := now.Sub(b.last).Milliseconds(); d > 0 {
				b.last = b.last.Add(time.Duration(d) * time.Millisecond)
				b.c.Advance(d * b.speed)
				b.flush()
			}
			b.mu.Unlock()
		}
	}
}

func (b *wallBackend) flush() {
	evs := b.c.Events()
	if len(evs) == 0 {
		return
	}
	for _, w := range b.watchers {
		w(b.c, evs, false)
	}
}

func (b *wallBackend) Apply(ctx context.Context, cmd core.Command) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	err := b.c.Apply(cmd)
	b.flush()
	return err
}

func (b *wallBackend) Do(ctx context.Context, fn func(*core.Cluster)) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	fn(b.c)
	b.flush()
	return nil
}

func (b *wallBackend) Watch(fn func(*core.Cluster, []core.Event, bool)) (func(), error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	id := b.next
	b.next++
	b.watchers[id] = fn
	return func() { b.mu.Lock(); delete(b.watchers, id); b.mu.Unlock() }, nil
}

// startServer starts listeners for the backend's brokers on free ports
// and returns the bootstrap address of broker 1; the test's end closes
// them.
func startServer(t testing.TB, b Backend, brokers int) (*Server, string) {
	t.Helper()
	s, addr := listenFree(t, b, brokers)
	t.Cleanup(func() { s.Close() })
	return s, addr
}

// listenFree is startServer without the cleanup: the caller closes the
// server (so that a benchmark's closed server and its backend are not
// kept until the benchmark ends).
func listenFree(t testing.TB, b Backend, brokers int) (*Server, string) {
	t.Helper()
	return listenFreeWith(t, b, brokers, Config{Logf: t.Logf})
}

// listenFreeWith is listenFree with cfg (its BasePort chosen here).
func listenFreeWith(t testing.TB, b Backend, brokers int, cfg Config) (*Server, string) {
	t.Helper()
	for try := 0; try < 20; try++ {
		base := 20000 + rand.IntN(30000)
		free := true
		for id := 0; id < brokers; id++ {
			ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(base+id)))
			if err != nil {
				free = false
				break
			}
			ln.Close()
		}
		if !free {
			continue
		}
		cfg.BasePort = base
		s := NewServer(b, cfg)
		if err := s.Start(context.Background()); err != nil {
			s.Close()
			continue
		}
		return s, fmt.Sprintf("127.0.0.1:%d", base)
	}
	t.Fatal("no free ports")
	return nil, ""
}

// leader returns partition's leader as the cluster has it.
func (b *wallBackend) leader(partition string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, t := range b.c.Snapshot().Topics {
		for _, p := range t.Partitions {
			if p.Name == partition {
				return p.Leader
			}
		}
	}
	return -1
}

// highWatermark returns partition's high watermark at its leader, -1 if
// it has none.
func (b *wallBackend) highWatermark(partition string) int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, t := range b.c.Snapshot().Topics {
		for _, p := range t.Partitions {
			if p.Name != partition {
				continue
			}
			for _, r := range p.Replicas {
				if r.Broker == p.Leader {
					return r.HW
				}
			}
		}
	}
	return -1
}
