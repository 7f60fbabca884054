package server

import (
	"encoding/json"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/kafkasim/kafkasim/server/protocol"
)

// dialSlow opens a raw websocket with a tiny receive buffer, so that when
// the test does not read, the server's writes soon block.
func dialSlow(t *testing.T, base, code string) *websocket.Conn {
	t.Helper()
	nd := &net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		var serr error
		err := rc.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 64<<10) })
		if err != nil {
			return err
		}
		return serr
	}}
	d := websocket.Dialer{NetDialContext: nd.DialContext, ReadBufferSize: 1024}
	ws, _, err := d.Dial("ws"+strings.TrimPrefix(base, "http")+"/api/rooms/"+code+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

// TestSlowReaderResyncedBySnapshot: a client that stops reading while the
// room streams megabytes of events is dropped from the stream (its queue
// stays bounded), then sent a fresh snapshot when it reads again; a
// client reading normally at the same time sees every event, in order,
// with no resync, and the driver's commands all complete.
func TestSlowReaderResyncedBySnapshot(t *testing.T) {
	s, c := start(t, Config{Limits: Limits{SendBuffer: 64, SocketBuffer: 64 << 10, WriteWait: 30 * time.Second, CommandsPerSecond: 1000, CommandBurst: 1000}})
	info, _ := c.CreateRoom(ctx(t), protocol.CreateRoom{Scenario: lesson1})
	driver := dial(t, c, info.Code, info.Token)
	driver.IgnoreStream() // it only drives: its stream would fill and stall its replies
	fast := newWatcher(t, dial(t, c, info.Code, ""))
	slow := dialSlow(t, c.Base, info.Code)
	var welcome protocol.Welcome
	if err := slow.ReadJSON(&welcome); err != nil || welcome.Type != protocol.TWelcome {
		t.Fatalf("slow welcome: %v", err)
	}
	// Keep the fast watcher reading while the driver floods the room,
	// until it has seen the events up to the seq sent on target.
	big := strings.Repeat("x", 2000)
	target := make(chan uint64, 1)
	fastDone := make(chan struct{})
	go func() {
		defer close(fastDone)
		want := uint64(1 << 63)
		for fast.last() < want {
			select {
			case want = <-target:
			case m, ok := <-fast.conn.Stream():
				if !ok {
					return
				}
				fast.take(t, m)
			}
		}
	}()
	// Flood until the room has dropped the slow reader from its stream
	// (how much that takes depends on the kernel's socket buffers).
	for i := 0; s.Room(info.Code).Stats().Lagging == 0; i++ {
		if i == 300 {
			t.Fatal("300 floods and the slow reader is still in the stream")
		}
		res, err := driver.Cmd(ctx(t), "produce p1 orders count=20 value="+big)
		if err != nil || !res.OK {
			t.Fatalf("flood %d: %+v %v", i, res, err)
		}
	}
	if st := s.Room(info.Code).Stats(); st.Lagging != 1 {
		t.Fatalf("%d subscribers lagging, want only the slow one", st.Lagging)
	}
	snap, err := driver.Snapshot(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	target <- snap.Seq
	select {
	case <-fastDone:
	case <-time.After(20 * time.Second):
		t.Fatal("the fast watcher did not see the flood")
	}
	if fast.last() < snap.Seq {
		t.Fatalf("the fast watcher's stream ended at %d: %v", fast.last(), fast.conn.Err())
	}
	if len(fast.snaps) != 1 {
		t.Fatalf("the fast watcher was resynced %d times", len(fast.snaps)-1)
	}
	if st := s.Room(info.Code).Stats(); st.Resyncs != 0 {
		t.Fatalf("resyncs before the slow reader read: %d", st.Resyncs)
	}
	// The slow reader reads again: first what was queued, then a resync
	// snapshot, then events continuing from it.
	deadline := time.Now().Add(20 * time.Second)
	var resync *protocol.Snapshot
	var lastSeq uint64
	frames := 0
	for resync == nil && time.Now().Before(deadline) {
		slow.SetReadDeadline(deadline)
		_, data, err := slow.ReadMessage()
		if err != nil {
			t.Fatalf("slow read after %d frames: %v; stats %+v", frames, err, s.Room(info.Code).Stats())
		}
		frames++
		typ, _, _ := protocol.Peek(data)
		if typ == protocol.TSnapshot {
			var sn protocol.Snapshot
			json.Unmarshal(data, &sn)
			if sn.Reason == "resync" {
				resync = &sn
			}
		}
		if typ == protocol.TEvents {
			var ev protocol.Events
			json.Unmarshal(data, &ev)
			if n := len(ev.Events); n > 0 {
				lastSeq = ev.Events[n-1].Seq
			}
		}
	}
	if resync == nil {
		t.Fatalf("no resync snapshot after %d frames", frames)
	}
	if lastSeq >= snap.Seq {
		t.Fatalf("the slow reader got every event (up to %d): it was never dropped from the stream", lastSeq)
	}
	if resync.Seq < snap.Seq {
		t.Fatalf("resync snapshot at seq %d, older than the room's %d", resync.Seq, snap.Seq)
	}
	// After the resync it follows the stream again.
	if res, err := driver.Cmd(ctx(t), "crash broker 3"); err != nil || !res.OK {
		t.Fatal(err)
	}
	for {
		slow.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, data, err := slow.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), `"broker.state"`) {
			break
		}
	}
	if st := s.Room(info.Code).Stats(); st.Resyncs != 1 {
		t.Fatalf("resyncs %d, want 1", st.Resyncs)
	}
}
