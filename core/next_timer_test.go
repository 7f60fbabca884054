package core

import (
	"encoding/json"
	"testing"
)

// TestNextTimer: nothing happens before the instant NextTimer names, so a
// driver may sleep until then. Advancing to just before it fires no timer
// and emits no event; the timer is still the next one.
func TestNextTimer(t *testing.T) {
	c := driverCluster(t)
	if err := c.Apply(Produce{Producer: "p1", Topic: "t", Value: "m", Count: 3}); err != nil {
		t.Fatal(err)
	}
	c.Events()
	gaps := 0
	for c.Now() < 10_000 {
		at, ok := c.NextTimer()
		if !ok {
			t.Fatal("nothing scheduled in a running cluster (heartbeats, fetches)")
		}
		if at < c.Now() {
			t.Fatalf("next timer at %d, before now %d", at, c.Now())
		}
		if at-c.Now() > 1 {
			gaps++
			fired := c.fired
			if _, err := c.Advance(at - c.Now() - 1); err != nil {
				t.Fatal(err)
			}
			if evs := c.Events(); len(evs) > 0 || c.fired != fired {
				t.Fatalf("at %d (the next timer due at %d): %d events (%+v), %d timers fired", c.Now(), at, len(evs), evs, c.fired-fired)
			}
			if again, _ := c.NextTimer(); again != at {
				t.Fatalf("next timer moved from %d to %d with nothing applied", at, again)
			}
		}
		if _, err := c.Advance(max(at-c.Now(), 1)); err != nil {
			t.Fatal(err)
		}
		c.Events()
	}
	if gaps == 0 {
		t.Fatal("no gap between timers in 8 s: the test checked nothing")
	}
}

// TestStopCommandLog: a cluster that stops its command log keeps no
// commands (so no records through them) and runs exactly as one that
// logs.
func TestStopCommandLog(t *testing.T) {
	a, b := driverCluster(t), driverCluster(t)
	b.StopCommandLog()
	for _, c := range []*Cluster{a, b} {
		for _, cmd := range []Command{Produce{Producer: "p1", Topic: "t", Value: "m", Count: 50}, Wait{Duration: 3000}, Poll{Consumer: "c1", Max: 50}} {
			if err := c.Exec(cmd); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(b.CommandLog()) != 0 || !b.CommandLogTruncated() {
		t.Fatalf("stopped log: %d commands, truncated %v", len(b.CommandLog()), b.CommandLogTruncated())
	}
	if len(a.CommandLog()) == 0 || a.CommandLogTruncated() {
		t.Fatal("the logging cluster's log is empty")
	}
	sa, _ := json.Marshal(a.Snapshot())
	sb, _ := json.Marshal(b.Snapshot())
	if string(sa) != string(sb) {
		t.Fatal("the cluster without a command log ran differently")
	}
}
