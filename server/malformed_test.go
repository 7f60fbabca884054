package server

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/kafkasim/kafkasim/server/protocol"
)

// TestMalformedInputGetsAnErrorReply: every kind of bad input gets an
// error reply with the right code; the connection, the cluster and the
// other clients go on as if nothing happened.
func TestMalformedInputGetsAnErrorReply(t *testing.T) {
	s, c := start(t, Config{Limits: Limits{MaxMessageBytes: 64 << 10, CommandsPerSecond: 1000, CommandBurst: 1000}})
	info, _ := c.CreateRoom(ctx(t), protocol.CreateRoom{Scenario: lesson1})
	d := dial(t, c, info.Code, info.Token)
	w := newWatcher(t, dial(t, c, info.Code, ""))
	if res, err := d.Cmd(ctx(t), "produce p1 orders value=before"); err != nil || !res.OK {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		typ   int
		frame string
		code  string
		msg   string // in the message
	}{
		{"not JSON", websocket.TextMessage, `hello`, protocol.ErrBadJSON, "malformed"},
		{"truncated JSON", websocket.TextMessage, `{"type":"cmd","text":"x`, protocol.ErrBadJSON, "malformed"},
		{"empty frame", websocket.TextMessage, ``, protocol.ErrBadJSON, ""},
		{"JSON array", websocket.TextMessage, `[1,2]`, protocol.ErrBadJSON, "object"},
		{"JSON string", websocket.TextMessage, `"cmd"`, protocol.ErrBadJSON, "object"},
		{"null", websocket.TextMessage, `null`, protocol.ErrBadJSON, "object"},
		{"two values", websocket.TextMessage, `{"type":"snapshot"} {"type":"snapshot"}`, protocol.ErrBadJSON, "more than one"},
		{"binary frame", websocket.BinaryMessage, "\x00\x01", protocol.ErrBadJSON, "binary"},
		{"invalid UTF-8", websocket.TextMessage, "{\"type\":\"cmd\",\"text\":\"\xff\"}", protocol.ErrBadJSON, "UTF-8"},
		{"no type", websocket.TextMessage, `{"id":1}`, protocol.ErrBadMessage, "no \"type\""},
		{"unknown type", websocket.TextMessage, `{"type":"explode","id":2}`, protocol.ErrUnknownType, "explode"},
		{"unknown field", websocket.TextMessage, `{"type":"cmd","txt":"crash broker 1"}`, protocol.ErrBadMessage, "txt"},
		{"wrong field type", websocket.TextMessage, `{"type":"cmd","text":42}`, protocol.ErrBadMessage, "text"},
		{"bad version", websocket.TextMessage, `{"type":"snapshot","v":2}`, protocol.ErrVersion, "version 2"},
		{"empty cmd", websocket.TextMessage, `{"type":"cmd","text":"  "}`, protocol.ErrBadMessage, "text"},
		{"bad command line", websocket.TextMessage, `{"type":"cmd","text":"produce p1 orders\ncrash broker x"}`, protocol.ErrParse, "1:"},
		{"unknown verb", websocket.TextMessage, `{"type":"cmd","text":"wait 1s\nfly away"}`, protocol.ErrParse, "2:1"},
		{"cluster line in cmd", websocket.TextMessage, `{"type":"cmd","text":"cluster brokers=1"}`, protocol.ErrParse, "load"},
		{"bad speed", websocket.TextMessage, `{"type":"speed","speed":-1}`, protocol.ErrBadMessage, "speed"},
		{"no speed", websocket.TextMessage, `{"type":"speed"}`, protocol.ErrBadMessage, "speed"},
		{"huge speed", websocket.TextMessage, `{"type":"speed","speed":1e308}`, protocol.ErrBadMessage, "speed"},
		{"bad advance", websocket.TextMessage, `{"type":"advance","ms":0}`, protocol.ErrBadMessage, "advance"},
		{"bad load", websocket.TextMessage, `{"type":"load","ksim":"topic create x partitions=1 rf=1"}`, protocol.ErrParse, "cluster"},
		{"load bad cluster", websocket.TextMessage, `{"type":"load","ksim":"cluster brokers=500"}`, protocol.ErrParse, "brokers"},
		{"empty load", websocket.TextMessage, `{"type":"load"}`, protocol.ErrBadMessage, "ksim"},
		{"lesson without id", websocket.TextMessage, `{"type":"lesson","lesson":{"step":1}}`, protocol.ErrBadMessage, "lesson"},
		{"predict one choice", websocket.TextMessage, `{"type":"predict","question":"q","choices":["a"]}`, protocol.ErrBadMessage, "choices"},
		{"predict bad correct", websocket.TextMessage, `{"type":"predict","question":"q","choices":["a","b"],"correct":5}`, protocol.ErrBadMessage, "correct"},
		{"answer nothing open", websocket.TextMessage, `{"type":"answer","prediction":1,"choice":0}`, protocol.ErrBadMessage, "no prediction"},
		{"reveal nothing open", websocket.TextMessage, `{"type":"reveal"}`, protocol.ErrBadMessage, "no prediction"},
		{"oversized frame", websocket.TextMessage, `{"type":"cmd","text":"` + strings.Repeat("x", 100<<10) + `"}`, protocol.ErrTooLarge, "limit"},
	}
	for _, tc := range cases {
		if err := d.Send(tc.typ, []byte(tc.frame)); err != nil {
			t.Fatalf("%s: send: %v", tc.name, err)
		}
		m := next(t, d)
		for m.Type != protocol.TError { // events keep flowing meanwhile
			m = next(t, d)
		}
		var e protocol.Error
		if err := m.Decode(&e); err != nil {
			t.Fatal(err)
		}
		if e.Code != tc.code || !strings.Contains(e.Message, tc.msg) {
			t.Errorf("%s: got %s %q, want %s containing %q", tc.name, e.Code, e.Message, tc.code, tc.msg)
		}
	}
	// A parse error says where.
	_, err := d.Cmd(ctx(t), "produce p1 orders value=ok\ncrash broker x")
	if re, ok := err.(interface{ Error() string }); !ok || !strings.Contains(re.Error(), "2:14") {
		t.Errorf("parse error %v, want it at 2:14", err)
	}
	// A command that fails in the core is a result with ok=false.
	res, err := d.Cmd(ctx(t), "crash broker 7")
	if err != nil || res.OK || len(res.Lines) != 1 || !strings.Contains(res.Lines[0].Error, "no broker 7") {
		t.Errorf("failed command: %+v %v", res, err)
	}
	// Nothing was lost: the connection works, the cluster kept every
	// command, the watcher's stream has no gap.
	if res, err := d.Cmd(ctx(t), "produce p1 orders value=after\nsettle\nexpect acked p1 == before,after"); err != nil || !res.OK {
		t.Fatalf("after the bad input: %+v %v", res, err)
	}
	snap, err := d.Snapshot(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	w.until(t, snap.Seq)
	if len(w.snaps) != 1 {
		t.Fatalf("the watcher was resynced")
	}
	h, _ := c.History(ctx(t), info.Code)
	for _, want := range []string{"value=before", "value=after"} {
		if !strings.Contains(h, want) {
			t.Fatalf("history lost %s:\n%s", want, h)
		}
	}
	if strings.Contains(h, "broker x") || strings.Contains(h, "broker 7") {
		t.Fatalf("refused commands in the history:\n%s", h)
	}
	if st := s.Room(info.Code).Stats(); st.Subscribers != 2 {
		t.Fatalf("%d subscribers, want 2", st.Subscribers)
	}
}

// TestFramePastTheHardLimitCloses: a frame beyond MaxFrameBytes is not
// read at all: that connection closes (1009), the others stay.
func TestFramePastTheHardLimitCloses(t *testing.T) {
	s, c := start(t, Config{Limits: Limits{MaxMessageBytes: 1 << 10, MaxFrameBytes: 8 << 10}})
	info, _ := c.CreateRoom(ctx(t), protocol.CreateRoom{Scenario: lesson1})
	other := dial(t, c, info.Code, "")
	bad := dial(t, c, info.Code, "")
	bad.Send(websocket.TextMessage, []byte(strings.Repeat(" ", 16<<10)))
	select {
	case <-bad.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the connection stayed open")
	}
	if _, err := other.Snapshot(ctx(t)); err != nil {
		t.Fatal(err)
	}
	// The server lets go of it just after the client saw the close.
	for i := 0; s.Room(info.Code).Stats().Subscribers != 1; i++ {
		if i == 200 {
			t.Fatalf("subscribers %d", s.Room(info.Code).Stats().Subscribers)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRateLimit: past the burst, messages get rate_limited replies, and
// the connection lives on.
func TestRateLimit(t *testing.T) {
	_, c := start(t, Config{Limits: Limits{CommandsPerSecond: 1, CommandBurst: 5}})
	info, _ := c.CreateRoom(ctx(t), protocol.CreateRoom{Scenario: lesson1})
	w := dial(t, c, info.Code, "")
	limited := 0
	for i := 0; i < 12; i++ {
		if _, err := w.Snapshot(ctx(t)); err != nil {
			if !strings.Contains(err.Error(), protocol.ErrRateLimited) {
				t.Fatal(err)
			}
			limited++
		}
	}
	if limited < 5 || limited > 7 {
		t.Fatalf("%d of 12 limited with a burst of 5", limited)
	}
	time.Sleep(1100 * time.Millisecond)
	if _, err := w.Snapshot(ctx(t)); err != nil {
		t.Fatalf("after a second: %v", err)
	}
}

// TestOriginCheck: a page from another origin cannot open a websocket;
// the server's own pages and programs (no Origin) can.
func TestOriginCheck(t *testing.T) {
	_, c := start(t, Config{AllowOrigins: []string{"http://lessons.example"}})
	info, _ := c.CreateRoom(ctx(t), protocol.CreateRoom{})
	url := "ws" + strings.TrimPrefix(c.Base, "http") + "/api/rooms/" + info.Code + "/ws"
	for origin, ok := range map[string]bool{"": true, c.Base: true, "http://lessons.example": true, "http://evil.example": false} {
		h := http.Header{}
		if origin != "" {
			h.Set("Origin", origin)
		}
		ws, resp, err := websocket.DefaultDialer.Dial(url, h)
		if ok != (err == nil) {
			t.Errorf("origin %q: err %v", origin, err)
		}
		if err == nil {
			ws.Close()
		} else if resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Errorf("origin %q: %v", origin, resp)
		}
	}
}

// TestRoomLimits: rooms and clients per room are bounded.
func TestRoomLimits(t *testing.T) {
	_, c := start(t, Config{Limits: Limits{MaxRooms: 2, MaxClientsPerRoom: 2}})
	info, err := c.CreateRoom(ctx(t), protocol.CreateRoom{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateRoom(ctx(t), protocol.CreateRoom{}); err == nil || !strings.Contains(err.Error(), "too many rooms") {
		t.Fatalf("third room (with the default): %v", err)
	}
	dial(t, c, info.Code, "")
	dial(t, c, info.Code, "")
	if _, err := c.Dial(ctx(t), info.Code, ""); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("third client: %v", err)
	}
	if _, err := c.Dial(ctx(t), "NOSUCH", ""); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("unknown room: %v", err)
	}
}
