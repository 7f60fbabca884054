package storage

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/server/room"
)

// TestRestoreInRoomStopsHistory: a room restored from a data dir has the
// logs, and its history says a replay cannot redo them, so pages in
// live mode say they cannot follow rather than showing an empty copy.
func TestRestoreInRoomStopsHistory(t *testing.T) {
	m := newSim(t, restoreScript)
	want := logValues(m.c)
	m.s.Close()
	s, err := Open(m.dir, Options{Now: func() time.Time { return fixedNow }, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	line, err := s.Cluster()
	if err != nil {
		t.Fatal(err)
	}
	ticks := make(chan time.Time)
	r, err := room.New(room.Config{Name: "restored", Script: line + "\n", Paused: true, Ticks: ticks})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	b := FromRoom(r)
	if err := s.Restore(ctx, b); err != nil {
		t.Fatal(err)
	}
	if err := s.Follow(ctx, b); err != nil {
		t.Fatal(err)
	}
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
	if !strings.Contains(h.Stopped, "restored from the data dir") || !strings.Contains(h.Ksim, "does not replay the room exactly") {
		t.Fatalf("history: stopped %q\n%s", h.Stopped, h.Ksim)
	}
}
