package room

import (
	"context"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
)

// TestWakeIn: between ticks the loop sleeps exactly until the wall time
// at which virtual time reaches the cluster's next timer (or a script's
// wait), at the room's speed, less the wall time already gone by.
func TestWakeIn(t *testing.T) {
	woke := 0
	for _, speed := range []float64{1, 2, 0.5} {
		r, fc := newRoom(t, script, speed)
		fc.Tick(r, 100*time.Millisecond)
		var at, now int64
		var d time.Duration
		var ok bool
		check := func(gone time.Duration) {
			t.Helper()
			_ = r.run(context.Background(), func() {
				at, _ = r.st.c.NextTimer()
				if j, jok := r.st.nextWake(); jok && j < at {
					at = j
				}
				now = r.st.c.Now()
				d, ok = r.st.wakeIn()
			})
			togo := float64(max(at-now, 1)) - r.st.carry
			want := max(time.Duration(togo/speed*float64(time.Millisecond))-gone+wakeSlack, minWake)
			if !ok || d != want {
				t.Fatalf("speed %g: next timer at %d, now %d, %v gone: wake in %v (%v), want %v", speed, at, now, gone, d, ok, want)
			}
		}
		for i := 0; i < 20; i++ {
			// A record on its way: 2 ms hops keep timers close.
			if err := r.Apply(context.Background(), core.Produce{Producer: "p1", Topic: "orders", Value: "v"}); err != nil {
				t.Fatal(err)
			}
			check(0)
			fc.mu.Lock()
			fc.t = fc.t.Add(300 * time.Microsecond) // wall time passes, no tick yet
			fc.mu.Unlock()
			check(300 * time.Microsecond)
			if d >= DefaultTick {
				fc.Tick(r, DefaultTick) // the loop waits for its ticker, not a wake-up
				continue
			}
			// Sleeping that long is enough: the tick then reaches the timer.
			fc.Tick(r, d)
			var reached int64
			_ = r.run(context.Background(), func() { reached = r.st.c.Now() })
			woke++
			if reached < at {
				t.Fatalf("speed %g: woke after %v at virtual %d, before the timer at %d", speed, d, reached, at)
			}
			fc.Tick(r, time.Duration(1+i%7)*time.Millisecond)
		}
	}
	if woke < 10 {
		t.Fatalf("only %d wake-ups before a tick: the test checked little", woke)
	}
}

// TestCatchUp: an op first brings virtual time up to the wall clock, in
// whole milliseconds (the rest carried), so it happens at the instant it
// arrived rather than at the last tick's.
func TestCatchUp(t *testing.T) {
	r, fc := newRoom(t, script, 1)
	fc.Tick(r, 100*time.Millisecond)
	var before, after int64
	_ = r.run(context.Background(), func() { before = r.st.c.Now() })
	fc.mu.Lock()
	fc.t = fc.t.Add(7*time.Millisecond + 400*time.Microsecond)
	fc.mu.Unlock()
	_ = r.run(context.Background(), func() { r.st.catchUp(); after = r.st.c.Now() })
	if after-before != 7 {
		t.Fatalf("caught up %d ms for 7.4 ms of wall time", after-before)
	}
	// Paused: the clock stays.
	if err := r.SetSpeed(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	fc.mu.Lock()
	fc.t = fc.t.Add(50 * time.Millisecond)
	fc.mu.Unlock()
	_ = r.run(context.Background(), func() { before = r.st.c.Now(); r.st.catchUp(); after = r.st.c.Now() })
	if after != before {
		t.Fatalf("a paused room moved %d ms", after-before)
	}
	var ok bool
	_ = r.run(context.Background(), func() { _, ok = r.st.wakeIn() })
	if ok {
		t.Fatal("a paused room wants to wake")
	}
}
