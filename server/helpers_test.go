package server

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/server/client"
	"github.com/kafkasim/kafkasim/server/protocol"
)

// start runs a server on a free 127.0.0.1 port for the test.
func start(t *testing.T, cfg Config) (*Server, *client.Client) {
	t.Helper()
	if cfg.Logf == nil {
		cfg.Logf = t.Logf
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		s.Close()
		hs.Close()
	})
	c, err := client.New(hs.URL)
	if err != nil {
		t.Fatal(err)
	}
	return s, c
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

func dial(t *testing.T, c *client.Client, code, token string) *client.Conn {
	t.Helper()
	conn, err := c.Dial(ctx(t), code, token)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// watcher collects what one connection's stream carries.
type watcher struct {
	conn   *client.Conn
	joined uint64       // seq of the join snapshot
	events []core.Event // every event after it, in order
	snaps  []protocol.Snapshot
	other  []client.Message
}

// next reads one stream message (failing after a while).
func next(t *testing.T, conn *client.Conn) client.Message {
	t.Helper()
	select {
	case m, ok := <-conn.Stream():
		if !ok {
			t.Fatalf("stream closed: %v", conn.Err())
		}
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("nothing on the stream for 10s")
	}
	return client.Message{}
}

func newWatcher(t *testing.T, conn *client.Conn) *watcher {
	t.Helper()
	m := next(t, conn)
	var s protocol.Snapshot
	if m.Type != protocol.TSnapshot || m.Decode(&s) != nil || s.Reason != "join" {
		t.Fatalf("first stream message %s, want the join snapshot", m.Raw)
	}
	return &watcher{conn: conn, joined: s.Seq, snaps: []protocol.Snapshot{s}}
}

// until reads the stream until the last event has seq >= seq.
func (w *watcher) until(t *testing.T, seq uint64) {
	t.Helper()
	for w.last() < seq {
		w.take(t, next(t, w.conn))
	}
}

func (w *watcher) last() uint64 {
	if n := len(w.events); n > 0 {
		return w.events[n-1].Seq
	}
	return w.snaps[len(w.snaps)-1].Seq
}

func (w *watcher) take(t *testing.T, m client.Message) {
	t.Helper()
	switch m.Type {
	case protocol.TEvents:
		var ev protocol.Events
		if err := m.Decode(&ev); err != nil {
			t.Fatal(err)
		}
		for _, e := range ev.Events {
			if e.Seq != w.last()+1 {
				t.Fatalf("event seq %d after %d: a gap without a resync", e.Seq, w.last())
			}
			w.events = append(w.events, e)
		}
	case protocol.TSnapshot:
		var s protocol.Snapshot
		if err := m.Decode(&s); err != nil {
			t.Fatal(err)
		}
		w.snaps = append(w.snaps, s)
		w.events = nil // the stream goes on from the snapshot
	default:
		w.other = append(w.other, m)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const lesson1 = `cluster brokers=3 seed=11 version=3.9 metadata=kraft
topic create orders partitions=3 rf=3
producer p1 acks=all
`
