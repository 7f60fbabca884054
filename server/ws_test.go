package server

import (
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core/scenario"
	"github.com/kafkasim/kafkasim/server/client"
	"github.com/kafkasim/kafkasim/server/protocol"
)

// TestDriverAndWatchersSeeTheSameEvents: one driver and several watchers
// connected at once see one event sequence, identical field for field.
func TestDriverAndWatchersSeeTheSameEvents(t *testing.T) {
	_, c := start(t, Config{})
	info, err := c.CreateRoom(ctx(t), protocol.CreateRoom{Name: "orders", Scenario: lesson1})
	if err != nil {
		t.Fatal(err)
	}
	driver := dial(t, c, info.Code, info.Token)
	if driver.Welcome.Protocol != protocol.Version || driver.Welcome.Room != info.Code {
		t.Fatalf("welcome %+v", driver.Welcome)
	}
	ws := []*watcher{newWatcher(t, driver)}
	for i := 0; i < 4; i++ {
		conn := dial(t, c, strings.ToLower(info.Code), "") // codes are case-insensitive
		ws = append(ws, newWatcher(t, conn))
	}
	for _, line := range []string{
		"produce p1 orders count=20 value=v",
		"consumer c1 group=g topics=orders",
		"crash broker 2",
		"produce p1 orders value=w\nwait 200ms\nrestart broker 2",
	} {
		res, err := driver.Cmd(ctx(t), line)
		if err != nil || !res.OK {
			t.Fatalf("%q: %+v %v", line, res, err)
		}
	}
	snap, err := driver.Snapshot(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	from := uint64(0)
	for _, w := range ws {
		w.until(t, snap.Seq)
		from = max(from, w.joined)
	}
	ref := ""
	for i, w := range ws {
		var got []string
		for _, e := range w.events {
			if e.Seq > from && e.Seq <= snap.Seq {
				got = append(got, mustJSON(t, e))
			}
		}
		if len(got) < 50 {
			t.Fatalf("watcher %d saw only %d events", i, len(got))
		}
		s := strings.Join(got, "\n")
		if i == 0 {
			ref = s
		} else if s != ref {
			t.Fatalf("watcher %d saw a different sequence than the driver", i)
		}
	}
	if !strings.Contains(ref, `"type":"broker.state"`) {
		t.Fatal("the crash is not in the stream")
	}
}

// TestWatcherCannotDrive: without the token (or with a wrong one) every
// driving message is refused, and the room's history shows none of them.
func TestWatcherCannotDrive(t *testing.T) {
	_, c := start(t, Config{})
	info, err := c.CreateRoom(ctx(t), protocol.CreateRoom{Scenario: lesson1})
	if err != nil {
		t.Fatal(err)
	}
	before, _ := c.History(ctx(t), info.Code)
	w := dial(t, c, info.Code, "")
	if w.Welcome.Role != "watcher" {
		t.Fatalf("role %q", w.Welcome.Role)
	}
	if _, err := c.Dial(ctx(t), info.Code, "not-the-token"); err == nil || !strings.Contains(err.Error(), protocol.ErrForbidden) {
		t.Fatalf("wrong token: %v", err)
	}
	speed, zero := 5.0, 0
	for _, in := range []protocol.In{
		{Type: protocol.TCmd, Text: "crash broker 1"},
		{Type: protocol.TReset},
		{Type: protocol.TLoad, Ksim: "cluster brokers=1\n"},
		{Type: protocol.TSpeed, Speed: &speed},
		{Type: protocol.TAdvance, Ms: 1000},
		{Type: protocol.TLesson, Lesson: &protocol.Lesson{Lesson: "x"}},
		{Type: protocol.TPredict, Question: "q", Choices: []string{"a", "b"}, Correct: &zero},
		{Type: protocol.TReveal},
		{Type: protocol.TAuth, Token: "guess"},
	} {
		_, err := w.Request(ctx(t), in)
		re, ok := err.(*client.ReplyError)
		if !ok || re.Reply.Code != protocol.ErrForbidden || re.Reply.Of != in.Type {
			t.Fatalf("%s from a watcher: %v, want forbidden", in.Type, err)
		}
	}
	after, _ := c.History(ctx(t), info.Code)
	strip := func(s string) string { // the final wait grows with the clock
		lines := strings.Split(strings.TrimSpace(s), "\n")
		var keep []string
		for _, l := range lines {
			if !strings.HasPrefix(l, "wait") && !strings.HasPrefix(l, "#") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	if strip(before) != strip(after) || strings.Contains(after, "crash") {
		t.Fatalf("history changed:\n%s\n---\n%s", before, after)
	}
	snap, err := w.Snapshot(ctx(t))
	if err != nil || snap.Snapshot.Brokers[0].State != "up" || snap.Speed != 1 {
		t.Fatalf("snapshot %+v %v", snap, err)
	}
}

// TestForkDivergesWithoutTouchingTheRoom: a watcher takes the room's
// history, replays it locally (what the page's fork does) to exactly the
// room's state, then changes its copy; the room does not change.
func TestForkDivergesWithoutTouchingTheRoom(t *testing.T) {
	_, c := start(t, Config{})
	info, _ := c.CreateRoom(ctx(t), protocol.CreateRoom{Scenario: lesson1})
	d := dial(t, c, info.Code, info.Token)
	if res, err := d.Cmd(ctx(t), "produce p1 orders count=10 value=x\nconsumer c1 group=g topics=orders\nsettle"); err != nil || !res.OK {
		t.Fatalf("%+v %v", res, err)
	}
	w := dial(t, c, info.Code, "")
	h, err := w.History(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Parse(h.Ksim)
	if err != nil {
		t.Fatalf("%v\n%s", err, h.Ksim)
	}
	res, err := scenario.Run(sc, scenario.RunOptions{NoTrace: true})
	if err != nil || len(res.Failures) > 0 {
		t.Fatalf("replay: %v %v", err, res.Failures)
	}
	fork := res.Cluster
	if got, want := mustJSON(t, fork.Snapshot()), mustJSON(t, h.Snapshot); got != want {
		t.Fatalf("the fork does not start where the room was\nfork: %s\nroom: %s", got, want)
	}
	steps, _ := scenario.Parse("crash broker 1")
	if err := fork.Apply(steps.Steps[0].Cmd); err != nil {
		t.Fatal(err)
	}
	if _, err := fork.Advance(30_000); err != nil {
		t.Fatal(err)
	}
	if fork.Snapshot().Brokers[0].State != "crashed" {
		t.Fatal("fork did not change")
	}
	snap, err := c.Snapshot(ctx(t), info.Code)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Snapshot.Brokers[0].State != "up" || snap.Snapshot.At > h.At+10_000 {
		t.Fatalf("the room changed with the fork: %+v at %d", snap.Snapshot.Brokers, snap.Snapshot.At)
	}
	after, _ := c.History(ctx(t), info.Code)
	if strings.Contains(after, "crash") {
		t.Fatal("the fork's command reached the room")
	}
}
