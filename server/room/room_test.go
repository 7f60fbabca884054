package room

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/server/protocol"
)

// fakeClock is a wall clock the test moves by hand; each Tick sends the
// new time to the room and waits until the room has taken it.
type fakeClock struct {
	mu    sync.Mutex
	t     time.Time
	ticks chan time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Unix(1_700_000_000, 0), ticks: make(chan time.Time)}
}

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.t
}

// Tick moves the clock by d and lets the room advance.
func (f *fakeClock) Tick(r *Room, d time.Duration) {
	f.mu.Lock()
	f.t = f.t.Add(d)
	t := f.t
	f.mu.Unlock()
	f.ticks <- t
	_ = r.Do(context.Background(), func(*core.Cluster) {}) // the tick has been handled
}

func newRoom(t *testing.T, script string, speed float64) (*Room, *fakeClock) {
	t.Helper()
	fc := newFakeClock()
	r, err := New(Config{Name: "test", Script: script, Speed: speed, Now: fc.Now, Ticks: fc.ticks, Paused: speed == 0})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r, fc
}

const script = `cluster brokers=3 seed=7 version=3.9 metadata=zk
topic create orders partitions=2 rf=3
producer p1 acks=all
wait 2s
produce p1 orders value=a
produce p1 orders value=b
wait 1s
crash broker 2
`

// TestScriptWaitsFollowTheClock: a loaded script's waits end when the
// room's clock reaches them, not at once.
func TestScriptWaitsFollowTheClock(t *testing.T) {
	r, fc := newRoom(t, script, 1)
	ctx := context.Background()
	sent := func() int {
		var n int
		_ = r.Do(ctx, func(c *core.Cluster) { n = len(c.History().Sent) })
		return n
	}
	for i := 0; i < 19; i++ { // 1.9 s of wall time at speed 1
		fc.Tick(r, 100*time.Millisecond)
	}
	if n := sent(); n != 0 {
		t.Fatalf("after 1.9s, %d records sent: the 2s wait did not hold", n)
	}
	fc.Tick(r, 100*time.Millisecond)
	if n := sent(); n != 2 {
		t.Fatalf("after 2s, %d records sent, want 2", n)
	}
	if now := r.Now(); now != 2000 {
		t.Fatalf("virtual now %d, want 2000", now)
	}
}

// TestHistoryReplaysToTheSameState: the exported history, run as a
// scenario, gives the snapshot the room had at the same moment, after
// scripted commands, interactive ones, speed changes and an advance.
func TestHistoryReplaysToTheSameState(t *testing.T) {
	r, fc := newRoom(t, script, 2.5)
	ctx := context.Background()
	for i := 0; i < 30; i++ {
		fc.Tick(r, 37*time.Millisecond)
	}
	steps, err := ParseCommands("consumer c1 group=g topics=orders\nproduce p1 orders count=5 value=x\nsettle")
	if err != nil {
		t.Fatal(err)
	}
	// Results in the order the room finished them.
	order := make(chan string, 2)
	var sres, cres protocol.Result
	if err := r.Exec(ctx, "cmd", steps, func(res protocol.Result) { sres = res; order <- "settle" }); err != nil {
		t.Fatal(err)
	}
	// A command sent while the settle is in progress waits for it.
	crash, _ := ParseCommands("crash broker 3")
	if err := r.Exec(ctx, "cmd", crash, func(res protocol.Result) { cres = res; order <- "crash" }); err != nil {
		t.Fatal(err)
	}
	// The settle runs on the room's clock: it completes as time passes.
	for i := 0; len(order) < 2; i++ {
		if i == 1000 {
			t.Fatal("settle did not complete in 1000 ticks")
		}
		fc.Tick(r, 10*time.Millisecond)
	}
	if first := <-order; first != "settle" {
		t.Fatal("a command ran while another's settle was in progress")
	}
	if !sres.OK || !cres.OK || cres.At < sres.At {
		t.Fatalf("settle %+v, crash %+v", sres, cres)
	}
	for i := 0; i < 20; i++ {
		fc.Tick(r, 51*time.Millisecond)
	}
	if err := r.SetSpeed(ctx, 0.3); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 7; i++ {
		fc.Tick(r, 100*time.Millisecond)
	}
	if err := r.AdvanceNow(ctx, 1234); err != nil {
		t.Fatal(err)
	}
	h, _ := replayHistory(t, r)
	if !strings.Contains(h.Ksim, "crash broker 2") || !strings.Contains(h.Ksim, "settle") {
		t.Fatalf("history misses commands:\n%s", h.Ksim)
	}
}

// TestSlowSubscriberResynced: a subscriber that does not read is dropped
// from the stream without blocking the room or another subscriber, and
// gets a snapshot once it reads again.
func TestSlowSubscriberResynced(t *testing.T) {
	r, fc := newRoom(t, "cluster brokers=3 seed=1\ntopic create t partitions=3 rf=3\nproducer p acks=all\n", 1)
	ctx := context.Background()
	slow, err := r.Subscribe(ctx, MinBuffer, "join", nil)
	if err != nil {
		t.Fatal(err)
	}
	fast, err := r.Subscribe(ctx, MaxBuffer, "join", nil)
	if err != nil {
		t.Fatal(err)
	}
	var fastFrames []*Frame
	drain := func() {
		for {
			select {
			case f := <-fast.C:
				fastFrames = append(fastFrames, f)
			default:
				return
			}
		}
	}
	steps, _ := ParseCommands("produce p t value=v")
	for i := 0; i < 40; i++ {
		if err := r.Exec(ctx, "cmd", steps, func(protocol.Result) {}); err != nil {
			t.Fatal(err)
		}
		fc.Tick(r, 20*time.Millisecond)
		drain()
	}
	if len(slow.C) != cap(slow.C)-cap(slow.C)/reserveDiv {
		t.Fatalf("slow subscriber holds %d frames, want the stream to stop at %d", len(slow.C), cap(slow.C)-cap(slow.C)/reserveDiv)
	}
	// The fast one saw every batch, in order, without a resync.
	var last uint64
	for _, f := range fastFrames {
		if f.Kind == protocol.TSnapshot && last != 0 {
			t.Fatal("fast subscriber was resynced")
		}
		if f.Kind != protocol.TEvents {
			continue
		}
		var ev protocol.Events
		if err := json.Unmarshal(f.Data, &ev); err != nil {
			t.Fatal(err)
		}
		for _, e := range ev.Events {
			if e.Seq != last+1 && last != 0 {
				t.Fatalf("fast subscriber: seq %d after %d", e.Seq, last)
			}
			last = e.Seq
		}
	}
	// The slow one reads everything it has, then the next tick resyncs it.
	for len(slow.C) > 0 {
		<-slow.C
	}
	fc.Tick(r, 20*time.Millisecond)
	f := <-slow.C
	var snap protocol.Snapshot
	if err := json.Unmarshal(f.Data, &snap); err != nil || snap.Reason != "resync" {
		t.Fatalf("after catching up: %s (%v), want a resync snapshot", f.Data, err)
	}
	if r.Stats().Resyncs != 1 {
		t.Fatalf("resyncs = %d", r.Stats().Resyncs)
	}
	n := len(fastFrames)
	drain() // the events sent with the resync (coalesced ticks go out before any snapshot)
	for _, f := range fastFrames[n:] {
		var ev protocol.Events
		if f.Kind == protocol.TEvents && json.Unmarshal(f.Data, &ev) == nil && len(ev.Events) > 0 {
			last = ev.Events[len(ev.Events)-1].Seq
		}
	}
	if snap.Seq != last {
		t.Fatalf("resync snapshot at seq %d, the stream is at %d", snap.Seq, last)
	}
	if !reflect.DeepEqual(snap.Snapshot.Brokers, []core.BrokerView{{ID: 1, State: "up"}, {ID: 2, State: "up"}, {ID: 3, State: "up"}}) {
		t.Fatalf("snapshot brokers %+v", snap.Snapshot.Brokers)
	}
}

// TestBadInputChangesNothing: a script that does not parse and a command
// that fails leave the room as it was, and the history records neither.
func TestBadInputChangesNothing(t *testing.T) {
	r, _ := newRoom(t, "", 0)
	ctx := context.Background()
	if _, err := ParseCommands("topic create"); err == nil {
		t.Fatal("no parse error")
	}
	if _, err := ParseCommands("cluster brokers=1"); err == nil {
		t.Fatal("a cluster line in a command was accepted")
	}
	if err := r.Load(ctx, "bad", "cluster brokers=99\n"); err == nil {
		t.Fatal("bad cluster line loaded")
	}
	steps, _ := ParseCommands("crash broker 9")
	got := make(chan protocol.Result, 1)
	if err := r.Exec(ctx, "cmd", steps, func(res protocol.Result) { got <- res }); err != nil {
		t.Fatal(err)
	}
	res := <-got
	if res.OK || len(res.Lines) != 1 || !strings.Contains(res.Lines[0].Error, "no broker 9") {
		t.Fatalf("result %+v", res)
	}
	h, _ := r.History(ctx)
	if strings.Contains(h.Ksim, "crash") {
		t.Fatalf("failed command in history:\n%s", h.Ksim)
	}
	if !strings.Contains(h.Ksim, "cluster brokers=3") || !strings.Contains(h.Ksim, "version=4.0") {
		t.Fatalf("default cluster is not 3 brokers of the newest preset:\n%s", h.Ksim)
	}
}
