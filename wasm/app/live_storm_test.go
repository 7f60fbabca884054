//go:build !js

package app

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafkasim/kafkasim/wasm/scene"
)

// TestLiveStormCost measures what a page in live mode spends following a
// room under a franz-go storm (KAFKASIM_STORM=1; a measurement, not a
// check).
func TestLiveStormCost(t *testing.T) {
	if os.Getenv("KAFKASIM_STORM") == "" {
		t.Skip("set KAFKASIM_STORM=1")
	}
	o := startOutsideServe(t, outsideScenario)
	f := follow(t, o.c, o.base, o.srv.DefaultCode(), "")
	f.until("live", func(s LiveStatus) bool { return s.Phase == PhaseLive })
	cl, err := kgo.NewClient(kgo.SeedBrokers(o.kafka), kgo.DefaultProduceTopic("orders"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	produceStorm(ctx, cl, 30)
	var recv, scn time.Duration
	var bytes, msgs, scenes int
	end := time.Now().Add(8 * time.Second)
	lastScene := time.Now()
	for time.Now().Before(end) {
		select {
		case b := <-f.msgs:
			t0 := time.Now()
			f.l.Receive(b)
			recv += time.Since(t0)
			bytes += len(b)
			msgs++
		case <-time.After(10 * time.Millisecond):
		}
		if time.Since(lastScene) > 50*time.Millisecond {
			lastScene = time.Now()
			t0 := time.Now()
			if _, err := f.e.Scene(SceneOptions{View: scene.ViewBoth, Span: 100}); err != nil {
				t.Fatal(err)
			}
			scn += time.Since(t0)
			scenes++
		}
	}
	st := f.l.Status()
	t.Logf("8 s: %d messages, %d KB; Receive %v; %d scenes %v (%v each); status %+v", msgs, bytes>>10, recv, scenes, scn, scn/time.Duration(max(scenes, 1)), st)
}
