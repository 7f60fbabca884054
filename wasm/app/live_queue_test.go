//go:build !js

package app

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/internal/servetest"
)

// TestLiveCatchesUpByResync: a page too slow for a franz-go storm (its
// frames handle five messages a second, its queue holds 20) is never dropped
// by the room: it skips the batches it cannot handle and catches up from
// the room's history, replayed in slices across frames, while its status
// counts the clients' requests per API. Once the storm ends it holds
// the room's exact cluster.
func TestLiveCatchesUpByResync(t *testing.T) {
	if testing.Short() {
		t.Skip("real clients against a served room")
	}
	o := startOutsideServe(t, outsideScenario)
	f := follow(t, o.c, o.base, o.srv.DefaultCode(), "")
	f.l.limQueue = 20
	frame := func(steps int) {
		n := 0
		f.l.Pump(func() bool { n++; return steps < 0 || n <= steps })
	}
	// pumpFor feeds the socket to the page's queue and runs a frame
	// every 50 ms for d.
	pumpFor := func(d time.Duration, steps int) {
		end := time.After(d)
		every := 50 * time.Millisecond
		if steps > 0 {
			every = 200 * time.Millisecond // 5 messages a second: the room sends about 20
		}
		tk := time.NewTicker(every)
		defer tk.Stop()
		for {
			select {
			case b, ok := <-f.msgs:
				if !ok {
					t.Fatalf("the socket closed (status %+v)", f.l.Status())
				}
				f.l.Enqueue(b, time.Now().UnixMilli())
			case <-tk.C:
				frame(steps)
			case <-end:
				return
			}
		}
	}
	pumpFor(time.Second, -1)
	if st := f.l.Status(); st.Phase != PhaseLive {
		t.Fatalf("not live: %+v", st)
	}
	cl := o.producer(t)
	ctx, cancel := context.WithCancel(context.Background())
	stormDone := produceStorm(ctx, cl, 20)
	var sawTraffic *Traffic
	maxBehind := int64(0)
	for i := 0; i < 8; i++ {
		pumpFor(500*time.Millisecond, 1)
		st := f.l.Status()
		maxBehind = max(maxBehind, st.Behind)
		if st.Traffic != nil && st.Traffic.PerAPI["Produce"] > 0 {
			sawTraffic = st.Traffic
		}
		if st.Phase == PhaseClosed || st.Phase == PhaseDiverged {
			t.Fatalf("during the storm: %+v", st)
		}
	}
	cancel()
	<-stormDone
	if err := cl.Flush(context.Background()); err != nil {
		t.Log(err)
	}
	cl.Close()
	mid := f.l.Status()
	if mid.Skipped == 0 || mid.CatchUps == 0 {
		t.Fatalf("a page that cannot keep up skipped nothing: %+v", mid)
	}
	if sawTraffic == nil || sawTraffic.Requests == 0 || sawTraffic.Rate <= 0 {
		t.Fatalf("no traffic counted during the storm: %+v", sawTraffic)
	}
	pumpFor(time.Second, -1)
	if err := o.srv.DefaultRoom().SetSpeed(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	h, err := o.srv.DefaultRoom().History(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; {
		pumpFor(100*time.Millisecond, -1)
		if st := f.l.Status(); st.Phase == PhaseLive && st.Now == h.At && st.Applied >= h.N {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not caught up with the room at %d: %+v", h.At, f.l.Status())
		}
	}
	if d := sameSnapshot(f.e.Snapshot(), h.Snapshot); d != "" {
		t.Fatalf("the copy differs from the room: %s", d)
	}
	if hash, _ := servetest.Replay(t, h.Ksim, h.At); hash != f.e.sess.Driver().TraceHash() {
		t.Fatalf("a replay of the room's history has hash %s, the copy %s", hash, f.e.sess.Driver().TraceHash())
	}
	st := f.l.Status()
	var apis []string
	for k, v := range sawTraffic.PerAPI {
		apis = append(apis, fmt.Sprintf("%s %.0f/s", k, v))
	}
	t.Logf("storm: at most %d ms behind, %d batches skipped, %d catch-ups, traffic %d requests (%.0f/s: %s); at the end %d commands, phase %s", maxBehind, mid.Skipped, mid.CatchUps,
		sawTraffic.Requests, sawTraffic.Rate, strings.Join(apis, ", "), st.Applied, st.Phase)
}

// TestLiveLateBatchesCatchUp: batches that reach the page long after the
// room sent them (its event loop was too busy to read the socket) make
// it skip what is queued and catch up from the history, instead of
// working through a stale backlog; a page on time does not.
func TestLiveLateBatchesCatchUp(t *testing.T) {
	if testing.Short() {
		t.Skip("a served room")
	}
	o := startOutsideServe(t, outsideScenario)
	f := follow(t, o.c, o.base, o.srv.DefaultCode(), "")
	var skew int64 // how late the page's clock says the batches come
	feed := func(d time.Duration) {
		end := time.After(d)
		for {
			select {
			case b := <-f.msgs:
				f.l.Enqueue(b, time.Now().UnixMilli()+skew)
				if !f.l.Late() {
					f.l.Pump(nil)
				}
			case <-end:
				return
			}
		}
	}
	feed(time.Second)
	if st := f.l.Status(); st.Phase != PhaseLive || st.CatchUps != 0 || f.l.Late() {
		t.Fatalf("on time: %+v", st)
	}
	skew = 2000 // the event loop 2 s behind: queue only, the frames work
	feed(300 * time.Millisecond)
	if st := f.l.Status(); !f.l.Late() || st.Queued == 0 || st.CatchUps != 0 {
		t.Fatalf("2 s late: late %v, %+v", f.l.Late(), st)
	}
	f.l.Pump(nil)
	skew = 6000 // 6 s behind: skip and catch up
	feed(300 * time.Millisecond)
	if st := f.l.Status(); st.CatchUps != 1 || st.Skipped == 0 {
		t.Fatalf("6 s late: %+v", st)
	}
	skew = 0
	for deadline := time.Now().Add(10 * time.Second); ; {
		feed(100 * time.Millisecond)
		f.l.Pump(nil)
		if st := f.l.Status(); st.Phase == PhaseLive && st.Behind < 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not caught up: %+v", f.l.Status())
		}
	}
}
