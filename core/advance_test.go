package core

import (
	"reflect"
	"strings"
	"testing"
)

// driverCluster is a started 3-broker cluster with topic t (1 partition,
// RF 3), producer p1 and a manual-poll consumer c1 assigned to t-0.
func driverCluster(t *testing.T) *Cluster {
	t.Helper()
	c, err := New(Options{Brokers: 3, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []Command{
		CreateTopic{Topic: "t", Partitions: 1, RF: 3},
		NewProducer{Name: "p1"},
		NewConsumer{Name: "c1", Configs: map[string]string{"poll": "manual", "auto.offset.reset": "earliest"}},
		Assign{Consumer: "c1", Partitions: []string{"t-0"}},
		Wait{Duration: 2000},
	} {
		if err := c.Exec(cmd); err != nil {
			t.Fatalf("%s: %v", cmd.Kind(), err)
		}
	}
	return c
}

// TestApplyNeverAdvancesTime: Wait, Settle, Poll and Commit only start an
// operation; the clock and the scheduler move in Advance alone.
func TestApplyNeverAdvancesTime(t *testing.T) {
	c := driverCluster(t)
	for _, cmd := range []Command{Wait{Duration: 0}, Wait{Duration: 500}, Settle{}, Poll{Consumer: "c1", Timeout: 300}} {
		now, fired := c.Now(), c.fired
		if err := c.Apply(cmd); err != nil {
			t.Fatalf("%s: %v", cmd.Kind(), err)
		}
		if c.Now() != now || c.fired != fired {
			t.Fatalf("%s: Apply moved the clock from %d to %d (%d timers)", cmd.Kind(), now, c.Now(), c.fired-fired)
		}
		op := c.Pending()
		if op == nil {
			if _, ok := cmd.(Settle); ok {
				continue // already settled: completes at once
			}
			t.Fatalf("%s: nothing in progress", cmd.Kind())
		}
		if op.Cmd != cmd || op.Since != now {
			t.Fatalf("%s: pending %+v", cmd.Kind(), op)
		}
		if err := c.Apply(Wait{Duration: 1}); err == nil || !strings.Contains(err.Error(), "in progress") {
			t.Fatalf("a second blocking command while %s runs: %v", cmd.Kind(), err)
		}
		for c.Pending() != nil {
			before := c.Now()
			done, err := c.Advance(7)
			if err != nil {
				t.Fatal(err)
			}
			if c.Now() > op.Deadline || c.Now()-before > 7 {
				t.Fatalf("%s: Advance(7) went from %d to %d (deadline %d)", cmd.Kind(), before, c.Now(), op.Deadline)
			}
			if done != nil && (done.Cmd != cmd || done.At != c.Now() || done.Err != nil) {
				t.Fatalf("%s: done %+v at %d", cmd.Kind(), done, c.Now())
			}
		}
	}
}

// TestPollCompletesAtOnce: a poll that already has records returns them
// inside Apply, leaving nothing in progress; one that waits completes the
// instant the records arrive, not at its timeout.
func TestPollCompletesAtOnce(t *testing.T) {
	c := driverCluster(t)
	if err := c.Exec(Produce{Producer: "p1", Topic: "t", Value: "m", Count: 3}); err != nil {
		t.Fatal(err)
	}
	if err := c.Apply(Poll{Consumer: "c1", Max: 1, Timeout: 5000}); err != nil {
		t.Fatal(err)
	}
	var done *Done
	for done == nil {
		var err error
		if done, err = c.Advance(1); err != nil {
			t.Fatal(err)
		}
	}
	if done.At >= done.Deadline {
		t.Fatalf("poll ran to its timeout (%d): the records were there", done.At)
	}
	if got := c.History().ConsumedBy("c1"); len(got) != 1 {
		t.Fatalf("consumed %v", got)
	}
	// The other two were fetched with the first: the next poll returns at once.
	now := c.Now()
	if err := c.Apply(Poll{Consumer: "c1"}); err != nil {
		t.Fatal(err)
	}
	if c.Pending() != nil || c.Now() != now {
		t.Fatalf("poll with buffered records: pending %+v, clock %d -> %d", c.Pending(), now, c.Now())
	}
	if got := c.History().ConsumedBy("c1"); len(got) != 3 {
		t.Fatalf("consumed %v", got)
	}
}

// TestSettleTimeoutIsDoneErr: a settle that cannot finish ends at its
// deadline with an error naming what is busy, however it is advanced.
func TestSettleTimeoutIsDoneErr(t *testing.T) {
	c := driverCluster(t)
	for _, cmd := range []Command{
		NetSplit{Groups: [][]string{{"1", "p1"}, {"2", "3", "controller"}}},
		Produce{Producer: "p1", Topic: "t", Value: "x"},
	} {
		if err := c.Exec(cmd); err != nil {
			t.Fatal(err)
		}
	}
	start := c.Now()
	if err := c.Apply(Settle{Max: 1000}); err != nil {
		t.Fatal(err)
	}
	var done *Done
	for i := 0; done == nil && i < 10_000; i++ {
		var err error
		if done, err = c.Advance(333); err != nil {
			t.Fatal(err)
		}
	}
	if done == nil || done.At != start+1000 || done.Err == nil || !strings.Contains(done.Err.Error(), "did not settle") {
		t.Fatalf("settle: %+v", done)
	}
	if err := c.Exec(Settle{Max: 1000}); err == nil || !strings.Contains(err.Error(), "did not settle") {
		t.Fatalf("Exec(settle): %v", err)
	}
}

// TestPointerCommands: &Command is the same command as Command, for every
// kind; a nil pointer is an error.
func TestPointerCommands(t *testing.T) {
	for _, cmd := range commandKinds {
		a, b := driverCluster(t), driverCluster(t)
		ea := a.Apply(cmd)
		eb := b.Apply(pointerTo(cmd))
		if (ea == nil) != (eb == nil) || ea != nil && ea.Error() != eb.Error() {
			t.Errorf("%s: value %v, pointer %v", cmd.Kind(), ea, eb)
		}
		if ea == nil && (a.Pending() == nil) != (b.Pending() == nil) {
			t.Errorf("%s: pending differs", cmd.Kind())
		}
	}
	c := driverCluster(t)
	var p *Produce
	if err := c.Apply(p); err == nil {
		t.Error("nil *Produce accepted")
	}
	if err := c.Apply(nil); err == nil {
		t.Error("nil command accepted")
	}
}

// pointerTo returns a pointer to a copy of cmd.
func pointerTo(cmd Command) Command {
	v := reflect.New(reflect.TypeOf(cmd))
	v.Elem().Set(reflect.ValueOf(cmd))
	return v.Interface().(Command)
}

// TestCommandLogCopies: the log keeps its own copy of a command's maps and
// slices, and records failed commands too (a replay fails them again).
func TestCommandLogCopies(t *testing.T) {
	c := driverCluster(t)
	n := len(c.CommandLog())
	cfg := map[string]string{"acks": "1"}
	if err := c.Apply(&NewProducer{Name: "p2", Configs: cfg}); err != nil {
		t.Fatal(err)
	}
	cfg["acks"] = "0"
	if err := c.Apply(NewProducer{Name: "p2"}); err == nil {
		t.Fatal("second p2 accepted")
	}
	log := c.CommandLog()
	if len(log) != n+2 {
		t.Fatalf("log has %d entries, want %d", len(log), n+2)
	}
	if np, ok := log[n].Cmd.(NewProducer); !ok || np.Configs["acks"] != "1" {
		t.Fatalf("logged %#v", log[n].Cmd)
	}
	if log[n].At != c.Now() {
		t.Fatalf("logged at %d, now %d", log[n].At, c.Now())
	}
}

// TestAdvanceBounds: one Advance covers 0..MaxAdvance; outside, nothing
// happens and the error says why.
func TestAdvanceBounds(t *testing.T) {
	c := driverCluster(t)
	now := c.Now()
	for _, d := range []int64{-1, MaxAdvance + 1, 1 << 62} {
		if _, err := c.Advance(d); err == nil || c.Now() != now {
			t.Errorf("Advance(%d): %v, clock %d -> %d", d, err, now, c.Now())
		}
	}
}
