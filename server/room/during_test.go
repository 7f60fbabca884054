package room

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/log"
	"github.com/kafkasim/kafkasim/core/scenario"
	"github.com/kafkasim/kafkasim/server/protocol"
)

// TestOutsideDuringSettleReplays: a real client's connection and request
// that come while a script's settle is in progress (and a poll's) are
// applied at once and join the history as `during` lines, announced
// replayable; the history replays to the room's state.
func TestOutsideDuringSettleReplays(t *testing.T) {
	r, fc := newRoom(t, "cluster brokers=3 seed=7 version=3.9 metadata=kraft\ntopic create orders partitions=1 rf=3 assign=1,2,3\nconsumer c1 group=g topics=orders poll=manual\n", 1)
	ctx := context.Background()
	sub, err := r.Subscribe(ctx, 0, "join", nil)
	if err != nil {
		t.Fatal(err)
	}
	fc.Tick(r, DefaultTick*100) // elections
	done := make(chan protocol.Result, 2)
	for _, script := range []string{"poll c1 timeout=2s", "crash broker 1\npoll c1 max=5 timeout=3s"} {
		steps, err := scenario.Parse(script)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Exec(ctx, "t", steps.Steps, func(res protocol.Result) { done <- res }); err != nil {
			t.Fatal(err)
		}
		fc.Tick(r, DefaultTick)
		var pending bool
		r.Do(ctx, func(c *core.Cluster) { pending = c.Pending() != nil })
		if !pending {
			t.Fatalf("%q: no operation in progress", script)
		}
		for i, cmd := range []core.Command{
			core.OpenConn{Conn: "k" + script[len(script)-2:len(script)-1], Host: "kcat", Broker: 3},
			core.BrokerRequest{Conn: "k" + script[len(script)-2:len(script)-1], Correlation: 1, Label: "Produce v9 kcat/1.7.1", Produce: &core.ProduceRequest{Acks: -1, TimeoutMs: 30000,
				Partitions: []core.ProducePartition{{Topic: "orders", ProducerID: -1, BaseSequence: -1, Records: []log.Record{{Value: "during " + script}}}}}},
		} {
			if err := r.Apply(ctx, cmd); err != nil {
				t.Fatal(err)
			}
			fc.Tick(r, DefaultTick*time.Duration(i+1))
		}
		for len(done) == 0 {
			fc.Tick(r, DefaultTick*10)
		}
		if res := <-done; !res.OK {
			t.Fatalf("%q: %+v", script, res)
		}
	}
	fc.Tick(r, DefaultTick*50)
	var during int
	for _, a := range appliedOf(t, sub) {
		if !a.Replayable {
			t.Fatalf("not replayable: %+v", a)
		}
		if strings.HasPrefix(a.Line, "during +") {
			during++
		}
	}
	if during != 4 {
		t.Fatalf("%d during lines announced, want 4", during)
	}
	h, _ := replayHistory(t, r)
	if h.Stopped != "" || strings.Count(h.Ksim, "\nduring +") != 4 {
		t.Fatalf("stopped %q:\n%s", h.Stopped, h.Ksim)
	}
}
