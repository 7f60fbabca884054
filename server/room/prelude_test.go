package room

import (
	"context"
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core"
)

// TestPreludeRunsBeforeEveryScenario: a room's prelude applies after the
// cluster line of the scenario it starts with and of each one it loads
// or resets to, shows in the exported history (so a replay does the
// same), and a scenario's own setting of the same knob wins.
func TestPreludeRunsBeforeEveryScenario(t *testing.T) {
	fc := newFakeClock()
	r, err := New(Config{Name: "test", Script: script, Prelude: LocalNetwork, Speed: 1, Now: fc.Now, Ticks: fc.ticks})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	latency := func() string {
		var v string
		_ = r.Do(ctx, func(c *core.Cluster) { v = c.Settings()["net.latency.ms"] })
		return v
	}
	if v := latency(); v != "1" {
		t.Fatalf("after New, net.latency.ms=%q, want the prelude's 1", v)
	}
	h, err := r.History(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h.Ksim, "set net.latency.ms=1 net.client.latency.ms=0") {
		t.Fatalf("the exported history does not carry the prelude:\n%s", h.Ksim)
	}
	if err := r.Load(ctx, "own", "cluster brokers=3 seed=2\nset net.latency.ms=5\n"); err != nil {
		t.Fatal(err)
	}
	if v := latency(); v != "5" {
		t.Fatalf("a scenario setting net.latency.ms=5 got %q: the prelude must not override it", v)
	}
	if err := r.Load(ctx, "plain", "cluster brokers=3 seed=2\n"); err != nil {
		t.Fatal(err)
	}
	if v := latency(); v != "1" {
		t.Fatalf("after loading a scenario that sets nothing, net.latency.ms=%q, want 1", v)
	}
	if err := r.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	if v := latency(); v != "1" {
		t.Fatalf("after a reset, net.latency.ms=%q, want 1", v)
	}
	if _, err := New(Config{Name: "bad", Prelude: "cluster brokers=3\n", Now: fc.Now, Ticks: fc.ticks}); err == nil {
		t.Fatal("a prelude with a cluster line was accepted")
	}
	if _, err := New(Config{Name: "bad", Prelude: "set net.latency.ms=\n", Now: fc.Now, Ticks: fc.ticks}); err == nil {
		t.Fatal("a prelude that does not parse was accepted")
	}
}
