//go:build !js

package app

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/kafkasim/kafkasim/internal/servetest"
	"github.com/kafkasim/kafkasim/server"
	"github.com/kafkasim/kafkasim/server/client"
	"github.com/kafkasim/kafkasim/server/protocol"
)

const liveScenario = `cluster brokers=3 seed=5 version=3.9 metadata=kraft
topic create orders partitions=2 rf=3
producer p1 acks=1 idempotence=false
consumer c1 group=g topics=orders
produce p1 orders value=a
wait 300ms
produce p1 orders value=b
`

// follower is a Live fed by a real websocket to a room, pumped on the
// test's goroutine (Live is not safe for concurrent use).
type follower struct {
	t    *testing.T
	e    *Engine
	l    *Live
	ws   *websocket.Conn
	msgs chan []byte
}

func follow(t *testing.T, c *client.Client, base, code, token string) *follower {
	t.Helper()
	url := "ws" + strings.TrimPrefix(base, "http") + "/api/rooms/" + code + "/ws"
	ws, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	f := &follower{t: t, e: New(), ws: ws, msgs: make(chan []byte, 1024)}
	f.l = NewLive(f.e, func(b []byte) error { return ws.WriteMessage(websocket.TextMessage, b) }, token)
	go func() {
		defer close(f.msgs)
		for {
			_, b, err := ws.ReadMessage()
			if err != nil {
				return
			}
			f.msgs <- b
		}
	}()
	return f
}

// until pumps messages into the Live until cond holds (bounded).
func (f *follower) until(what string, cond func(LiveStatus) bool) LiveStatus {
	f.t.Helper()
	deadline := time.After(15 * time.Second)
	for {
		st := f.l.Status()
		if cond(st) {
			return st
		}
		select {
		case b, ok := <-f.msgs:
			if !ok {
				f.t.Fatalf("%s: the socket closed (status %+v)", what, st)
			}
			f.l.Receive(b)
		case <-deadline:
			f.t.Fatalf("%s: not within 15s (status %+v)", what, st)
		}
	}
}

func startServer(t *testing.T, script string) (*client.Client, string) {
	t.Helper()
	s, err := server.New(server.Config{Scenario: script, ScenarioName: "live", Speed: 20, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() { s.Close(); hs.Close() })
	c, err := client.New(hs.URL)
	if err != nil {
		t.Fatal(err)
	}
	return c, hs.URL
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestLiveFollowsRoom: a page in live mode keeps an exact copy of a
// running room while its teacher drives it (commands, a blocking settle,
// a crash, a script with waits), a watcher's page cannot drive, a reset
// is followed, and leaving live mode keeps the copy as the page's own
// fork, which diverges without touching the room.
func TestLiveFollowsRoom(t *testing.T) {
	c, base := startServer(t, liveScenario)
	ctx := testCtx(t)
	info, err := c.CreateRoom(ctx, protocol.CreateRoom{Name: "class", Scenario: liveScenario, Speed: ptr(20.0)})
	if err != nil {
		t.Fatal(err)
	}
	teacher, err := c.Dial(ctx, info.Code, info.Token)
	if err != nil {
		t.Fatal(err)
	}
	defer teacher.Close()
	teacher.IgnoreStream()

	student := follow(t, c, base, info.Code, "")
	st := student.until("live", func(s LiveStatus) bool { return s.Phase == PhaseLive })
	if st.Role != "watcher" || st.Room != info.Code {
		t.Fatalf("student status %+v", st)
	}
	// A page of the teacher's, with the token, drives through its Live.
	teach := follow(t, c, base, info.Code, info.Token)
	teach.until("teacher live and driver", func(s LiveStatus) bool { return s.Phase == PhaseLive && s.Role == "driver" })

	if res := student.l.Command("crash broker 1"); res.Error == nil || !strings.Contains(res.Error.Msg, "watching room "+info.Code) {
		t.Fatalf("a watcher's command: %+v", res)
	}
	var we *ErrWatching
	if _, err := student.l.Send(protocol.In{Type: protocol.TSpeed, Speed: ptr(1.0)}); !errors.As(err, &we) {
		t.Fatalf("a watcher's speed: %v", err)
	}
	if res := student.l.Command("print orders-0"); res.Error != nil || !strings.Contains(res.Output, "orders-0") {
		t.Fatalf("print answers from the copy: %+v", res)
	}
	if res := teach.l.Command("produce p1 orders value=c"); res.Error != nil {
		t.Fatalf("teacher's command: %+v", res)
	}
	for _, text := range []string{
		"crash broker 2\nproduce p1 orders value=d\nwait 500ms\nrestart broker 2",
		"settle",
		"net split 1 | 2,3\nwait 200ms\nproduce p1 orders value=e\nwait 2s\nnet heal\nwait 1s\npoll c1",
	} {
		if res, err := teacher.Cmd(ctx, text); err != nil || !res.OK {
			t.Fatalf("%q: %+v %v", text, res, err)
		}
	}
	if _, err := teacher.Speed(ctx, 0); err != nil {
		t.Fatal(err)
	}
	h, err := teacher.History(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantHash, wantSnap := servetest.Replay(t, h.Ksim, h.At)
	for _, f := range []*follower{student, teach} {
		st := f.until("caught up", func(s LiveStatus) bool {
			return s.Applied == h.N && s.Now == h.At && s.Checked == h.Seq && s.Speed == 0
		})
		if st.Phase != PhaseLive || st.Resyncs != 0 {
			t.Fatalf("status after following: %+v", st)
		}
		if got := f.e.State(false).Hash; got != wantHash {
			t.Errorf("the copy's trace hash %s, a replay of the room's history %s", got, wantHash)
		}
		if d := sameSnapshot(f.e.Snapshot(), wantSnap); d != "" {
			t.Errorf("the copy's snapshot differs from a replay of the history: %s", d)
		}
		if d := sameSnapshot(f.e.Snapshot(), h.Snapshot); d != "" {
			t.Errorf("the copy's snapshot differs from the room's: %s", d)
		}
	}
	if n := strings.Count(h.Ksim, "\nproduce p1 orders value="); n != 5 || h.N < 8 {
		t.Fatalf("history has %d produces, %d commands:\n%s", n, h.N, h.Ksim)
	}

	// A reset is a new generation: the pages reload its history.
	if _, err := teacher.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	st = student.until("reset followed", func(s LiveStatus) bool { return s.Phase == PhaseLive && s.Gen == h.Gen+1 })
	if st.Resyncs != 1 {
		t.Fatalf("after the reset: %+v", st)
	}

	// Leaving live mode keeps the copy as the page's own: it diverges and
	// the room does not see it.
	student.l.Stop()
	before, err := c.Snapshot(ctx, info.Code)
	if err != nil {
		t.Fatal(err)
	}
	if res := student.e.Command("crash broker 3"); res.Error != nil {
		t.Fatalf("the fork's own command: %+v", res.Error)
	}
	if err := student.e.Advance(5000); err != nil {
		t.Fatal(err)
	}
	after, err := c.Snapshot(ctx, info.Code)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range after.Snapshot.Brokers {
		if b.State != "up" {
			t.Fatalf("the fork's crash reached the room: %+v", after.Snapshot.Brokers)
		}
	}
	if before.Gen != after.Gen {
		t.Fatalf("the room changed generation: %d -> %d", before.Gen, after.Gen)
	}
	forked := false
	for _, b := range student.e.Snapshot().Brokers {
		forked = forked || (b.ID == 3 && b.State != "up")
	}
	if !forked {
		t.Fatalf("the fork did not crash broker 3: %+v", student.e.Snapshot().Brokers)
	}
}

// TestLiveBadInput: nonsense from the socket is a notice, never a panic,
// and a copy that cannot match the room gives up with a clear phase.
func TestLiveBadInput(t *testing.T) {
	e := New()
	var sent []string
	l := NewLive(e, func(b []byte) error { sent = append(sent, string(b)); return nil }, "")
	for _, m := range []string{``, `{`, `[]`, `{"type":"events","gen":"x"}`, `{"type":"applied"}`, `{"type":"history","id":99}`, `{"type":"welcome","protocol":7}`} {
		l.Receive([]byte(m))
	}
	if st := l.Status(); st.Phase != PhaseClosed || !strings.Contains(st.Note, "protocol 7") {
		t.Fatalf("after a welcome of another protocol: %+v", st)
	}
	l = NewLive(e, func(b []byte) error { sent = append(sent, string(b)); return nil }, "")
	l.Receive([]byte(`{"type":"welcome","protocol":1,"room":"ABC","role":"watcher","speed":1}`))
	if len(sent) == 0 || !strings.Contains(sent[len(sent)-1], `"history"`) {
		t.Fatalf("no history request: %v", sent)
	}
	// A history whose snapshot is not what it replays to: resynced, then
	// given up on.
	for i := 0; i <= maxResyncs; i++ {
		id := l.histID
		l.Receive(mustJSON(protocol.History{Type: protocol.THistory, ID: id, Gen: 1, At: 0, Ksim: "cluster brokers=1 seed=1", Snapshot: nil}))
		if l.Status().Phase != PhaseLive {
			t.Fatalf("a good history: %+v", l.Status())
		}
		l.Receive([]byte(`{"type":"events","gen":1,"now":0,"events":[{"seq":999,"type":"append","at":0}]}`))
	}
	if st := l.Status(); st.Phase != PhaseDiverged || !strings.Contains(st.Note, "keeps differing") {
		t.Fatalf("after repeated divergence: %+v", st)
	}
}

func ptr[T any](v T) *T { return &v }
