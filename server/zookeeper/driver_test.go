package zookeeper

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/scenario"
)

// fakeDriver owns a cluster on one goroutine and advances it by the wall
// clock (1 virtual ms per wall ms, in 2 ms ticks), like the server's room.
type fakeDriver struct {
	ops  chan func()
	quit chan struct{}
	done chan struct{}
	mu   sync.Mutex
	c    *core.Cluster
}

func newFakeDriver(t *testing.T, c *core.Cluster) *fakeDriver {
	d := &fakeDriver{ops: make(chan func()), quit: make(chan struct{}), done: make(chan struct{}), c: c}
	go d.loop()
	t.Cleanup(d.stop)
	return d
}

func (d *fakeDriver) loop() {
	defer close(d.done)
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	last := time.Now()
	for {
		select {
		case fn := <-d.ops:
			fn()
		case now := <-tick.C:
			ms := now.Sub(last).Milliseconds()
			if ms > 0 {
				last = last.Add(time.Duration(ms) * time.Millisecond)
				_, _ = d.c.Advance(min(ms, 50))
				d.c.Events()
			}
		case <-d.quit:
			return
		}
	}
}

func (d *fakeDriver) stop() {
	select {
	case <-d.quit:
	default:
		close(d.quit)
	}
	<-d.done
}

var errStopped = errors.New("driver stopped")

func (d *fakeDriver) Do(ctx context.Context, fn func(c *core.Cluster)) error {
	fin := make(chan struct{})
	select {
	case d.ops <- func() { fn(d.c); close(fin) }:
	case <-d.done:
		return errStopped
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-fin:
		return nil
	case <-d.done:
		return errStopped
	}
}

// apply runs a command on the cluster.
func (d *fakeDriver) apply(t *testing.T, cmd core.Command) {
	t.Helper()
	var err error
	if derr := d.Do(context.Background(), func(c *core.Cluster) { err = c.Apply(cmd) }); derr != nil || err != nil {
		t.Fatalf("%v: %v %v", cmd, derr, err)
	}
}

// jump advances virtual time by ms at once.
func (d *fakeDriver) jump(t *testing.T, ms int64) {
	t.Helper()
	var err error
	if derr := d.Do(context.Background(), func(c *core.Cluster) { _, err = c.Advance(ms) }); derr != nil || err != nil {
		t.Fatalf("advance %d ms: %v %v", ms, derr, err)
	}
}

// replace swaps the driver's cluster, as a room's reset does.
func (d *fakeDriver) replace(c *core.Cluster) {
	_ = d.Do(context.Background(), func(*core.Cluster) { d.c = c })
}

// runScript builds a cluster by running a scenario to its end.
func runScript(t *testing.T, src string) *core.Cluster {
	t.Helper()
	s, err := scenario.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	r := scenario.NewRunner(scenario.RunOptions{})
	for i := range s.Steps {
		if err := r.Step(&s.Steps[i]); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	if f := r.Failures(); len(f) > 0 {
		t.Fatalf("scenario failures: %v", f)
	}
	r.Cluster().Events()
	return r.Cluster()
}

// serveCluster serves c's ZooKeeper on a free loopback port.
func serveCluster(t *testing.T, c *core.Cluster, cfg Config) (*fakeDriver, *Server) {
	t.Helper()
	d := newFakeDriver(t, c)
	var mu sync.Mutex
	var logs []string
	if cfg.Logf == nil {
		cfg.Logf = func(f string, a ...any) {
			mu.Lock()
			logs = append(logs, fmt.Sprintf(f, a...))
			mu.Unlock()
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := Serve(ln, d, cfg)
	t.Cleanup(func() {
		s.Close()
		if t.Failed() {
			mu.Lock()
			t.Logf("listener log:\n%s", strings.Join(logs, "\n"))
			mu.Unlock()
		}
	})
	return d, s
}
