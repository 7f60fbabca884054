package room

import (
	"context"
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/log"
)

// TestOutsideCommandsReplay: an outside client's connection and request
// join the history as `outside` lines, announced replayable; the history
// replays to the room's state.
func TestOutsideCommandsReplay(t *testing.T) {
	r, fc := newRoom(t, "cluster brokers=3 seed=7 version=3.9 metadata=kraft\ntopic create orders partitions=1 rf=3 assign=1,2,3\n", 1)
	ctx := context.Background()
	sub, err := r.Subscribe(ctx, 0, "join", nil)
	if err != nil {
		t.Fatal(err)
	}
	fc.Tick(r, DefaultTick*100) // elections
	for _, cmd := range []core.Command{
		core.OpenConn{Conn: "k1", Host: "kcat", Broker: 1},
		core.BrokerRequest{Conn: "k1", Correlation: 1, Label: "Produce v9 kcat/1.7.1", Produce: &core.ProduceRequest{Acks: -1, TimeoutMs: 30000,
			Partitions: []core.ProducePartition{{Topic: "orders", ProducerID: -1, BaseSequence: -1, Records: []log.Record{{Value: `x "#" y`}}}}}},
	} {
		if err := r.Apply(ctx, cmd); err != nil {
			t.Fatal(err)
		}
		fc.Tick(r, DefaultTick)
	}
	fc.Tick(r, DefaultTick*50)
	applied := appliedOf(t, sub)
	if len(applied) != 2 || !applied[0].Replayable || !applied[1].Replayable || !strings.HasPrefix(applied[1].Line, `outside {"type":"request"`) {
		t.Fatalf("applied %+v", applied)
	}
	h, b := replayHistory(t, r)
	if h.Stopped != "" || strings.Contains(h.Ksim, "WARNING") {
		t.Fatalf("stopped %q:\n%s", h.Stopped, h.Ksim)
	}
	if !strings.Contains(b, `"role":"leader","leo":1,"hw":1`) {
		t.Fatalf("the record is not in the room's log: %s", b)
	}
}

// TestOutsidePastHistoryLimit: past the history's limit a real client's
// command is still applied (never refused for the history's sake), the
// history says it stopped and why, and the room announces it once as
// not replayable; a scenario command is refused as before.
func TestOutsidePastHistoryLimit(t *testing.T) {
	fc := newFakeClock()
	r, err := New(Config{Name: "t", Script: "cluster brokers=1 seed=1 version=3.9 metadata=kraft\n", Speed: 1, Now: fc.Now, Ticks: fc.ticks, MaxHistory: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	ctx := context.Background()
	for i, c := range []string{"a", "b", "c", "d"} {
		if err := r.Apply(ctx, core.OpenConn{Conn: c, Host: "h" + c, Broker: 1}); err != nil {
			t.Fatalf("outside command %d refused: %v", i, err)
		}
		fc.Tick(r, DefaultTick)
	}
	h, err := r.History(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if h.N != 2 || !strings.Contains(h.Stopped, "history is full") || !strings.Contains(h.Ksim, "# WARNING") {
		t.Fatalf("n %d stopped %q\n%s", h.N, h.Stopped, h.Ksim)
	}
	var snap core.Snapshot
	_ = r.Do(ctx, func(c *core.Cluster) { snap = *c.Snapshot() })
	if len(snap.Conns) != 4 {
		t.Fatalf("conns %+v", snap.Conns)
	}
	if err := r.Apply(ctx, core.CrashBroker{Broker: 1}); err == nil || !strings.Contains(err.Error(), "history is full") {
		t.Fatalf("a scenario command past the limit: %v", err)
	}
}
