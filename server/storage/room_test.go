package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/scenario"
	"github.com/kafkasim/kafkasim/server/room"
)

// restoredRoom is a room made from a data dir written by restoreScript
// and restored from it, and what the cluster that wrote it had.
func restoredRoom(t *testing.T, cfg room.Config) (*room.Room, Backend, map[string]string) {
	t.Helper()
	m := newSim(t, restoreScript)
	want := logValues(m.c)
	m.s.Close()
	s, err := Open(m.dir, Options{Now: func() time.Time { return fixedNow }, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	line, err := s.Cluster()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Name, cfg.Script, cfg.Paused, cfg.Ticks = "restored", line+"\n", true, make(chan time.Time)
	r, err := room.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	ctx := context.Background()
	b := FromRoom(r)
	if err := s.Restore(ctx, b); err != nil {
		t.Fatal(err)
	}
	if err := s.Follow(ctx, b); err != nil {
		t.Fatal(err)
	}
	return r, b, want
}

// TestRestoreInRoomReplays: a room restored from a data dir has the
// logs, and its history holds the restore as `set` and `restore` lines:
// a replay of it (what a page in live mode and `kafkasim run` of the
// exported .ksim do) has the room's state and the room's events, during
// the restore and after it, as the room goes on.
func TestRestoreInRoomReplays(t *testing.T) {
	r, b, want := restoredRoom(t, room.Config{})
	ctx := context.Background()
	var evs []core.Event
	remove, err := r.AddHook(func(_ *core.Cluster, bt room.Batch) { evs = append(evs, bt.Events...) })
	if err != nil {
		t.Fatal(err)
	}
	defer remove()
	var got map[string]string
	if err := b.Do(ctx, func(c *core.Cluster) { got = logValues(c) }); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the room's logs after the restore:\n%v\nwant\n%v", got, want)
	}
	steps, err := scenario.Parse("producer q acks=all\nproduce q t value=after\ncrash broker 2")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Exec(ctx, "t", steps.Steps, nil); err != nil {
		t.Fatal(err)
	}
	if err := r.AdvanceNow(ctx, 4000); err != nil {
		t.Fatal(err)
	}
	h, err := r.History(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if h.Stopped != "" || strings.Contains(h.Ksim, "WARNING") || !strings.Contains(h.Ksim, "\nrestore 1/") || !strings.Contains(h.Ksim, "\nset ") {
		t.Fatalf("history: stopped %q\n%.2000s", h.Stopped, h.Ksim)
	}
	sc, err := scenario.Parse(h.Ksim)
	if err != nil {
		t.Fatal(err)
	}
	var replayed []core.Event
	res, err := scenario.Run(sc, scenario.RunOptions{NoTrace: true, OnEvent: func(e *core.Event) { replayed = append(replayed, *e) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) > 0 {
		t.Fatalf("the replay failed: %+v", res.Failures)
	}
	ja, _ := json.Marshal(res.Cluster.Snapshot())
	jb, _ := json.Marshal(h.Snapshot)
	if string(ja) != string(jb) {
		t.Fatalf("the replay's snapshot differs from the room's:\n%s\n%s", ja, jb)
	}
	text := func(es []core.Event) string {
		var b strings.Builder
		for _, e := range es {
			fmt.Fprintf(&b, "%d %s %s\n", e.At, e.Type, e.Text())
		}
		return b.String()
	}
	if a, b := text(replayed), text(evs); !strings.HasSuffix(a, b) || !strings.Contains(a, "restored t from disk") || len(evs) == 0 {
		t.Fatalf("the replay's events:\n%s\nthe room's since the restore:\n%s", a, b)
	}
}

// TestRestoreTooLargeForHistory: when the restored logs do not fit in
// the room's history, the room still has them, and the history stops
// there saying why, so pages say they cannot follow.
func TestRestoreTooLargeForHistory(t *testing.T) {
	r, b, want := restoredRoom(t, room.Config{MaxHistoryBytes: 200})
	ctx := context.Background()
	var got map[string]string
	if err := b.Do(ctx, func(c *core.Cluster) { got = logValues(c) }); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the room's logs after the restore:\n%v\nwant\n%v", got, want)
	}
	h, err := r.History(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h.Stopped, "restored from the data dir") || !strings.Contains(h.Stopped, "more than the room's history holds") || !strings.Contains(h.Ksim, "does not replay the room exactly") {
		t.Fatalf("history: stopped %q\n%s", h.Stopped, h.Ksim)
	}
}
