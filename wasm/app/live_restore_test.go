//go:build !js

package app

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafkasim/kafkasim/internal/servetest"
	"github.com/kafkasim/kafkasim/server/storage"
)

// TestLiveFollowsRestoredRoom: a room restarted from a --data-dir is
// followed by a page in live mode: its history holds the restore as
// `restore` lines, so the page's copy has the restored logs (a real
// client's bytes, not UTF-8, byte for byte), follows the clients that
// come after, and has the room's state and a replay's trace hash.
func TestLiveFollowsRestoredRoom(t *testing.T) {
	if testing.Short() {
		t.Skip("real clients against a served room")
	}
	ctx := testCtx(t)
	dir := t.TempDir()
	value := func(i int) []byte { return []byte(fmt.Sprintf("\xff\x00bin-%d\x80", i)) }
	const n = 40

	// The first run: franz-go produces, the data dir keeps the logs.
	o1 := startOutsideServe(t, outsideScenario)
	st1 := openStore(t, dir, o1)
	cl := o1.producer(t)
	for i := 0; i < n; i++ {
		if err := cl.ProduceSync(ctx, &kgo.Record{Key: []byte{byte(i), 0xfe}, Value: value(i)}).FirstErr(); err != nil {
			t.Fatalf("produce %d: %v", i, err)
		}
	}
	cl.Close()
	st1.Sync()
	if err := st1.Close(); err != nil {
		t.Fatal(err)
	}

	// The restart: the room is made from the data dir; a page follows.
	st2, line := openDir(t, dir)
	o2 := startOutsideServe(t, line+"\n")
	if err := st2.Restore(ctx, storage.FromRoom(o2.srv.DefaultRoom())); err != nil {
		t.Fatal(err)
	}
	if err := st2.Follow(ctx, storage.FromRoom(o2.srv.DefaultRoom())); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st2.Close() })
	f := follow(t, o2.c, o2.base, o2.srv.DefaultCode(), "")
	st := f.until("live", func(s LiveStatus) bool { return s.Phase != PhaseConnecting && s.Phase != PhaseSyncing })
	if st.Phase != PhaseLive {
		t.Fatalf("the page does not follow the restored room: %+v", st)
	}

	// A consumer reads the restored records back; another record joins.
	cl2, err := kgo.NewClient(kgo.SeedBrokers(o2.kafka), kgo.ConsumeTopics("orders"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.DefaultProduceTopic("orders"), kgo.FetchMaxWait(300*time.Millisecond), kgo.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	var got [][]byte
	f.while("franz-go reads the restored records and produces", func() error {
		for len(got) < n {
			fs := cl2.PollFetches(ctx)
			if ctx.Err() != nil {
				return fmt.Errorf("consumed %d of %d: %v", len(got), n, fs.Errors())
			}
			fs.EachRecord(func(r *kgo.Record) { got = append(got, r.Value) })
		}
		return cl2.ProduceSync(ctx, &kgo.Record{Value: []byte("after the restart")}).FirstErr()
	})
	f.while("the client closes", func() error { cl2.Close(); return nil })
	f.pump(300 * time.Millisecond)
	seen := map[string]bool{}
	for _, v := range got {
		seen[string(v)] = true
	}
	for i := 0; i < n; i++ {
		if !seen[string(value(i))] {
			t.Fatalf("record %d (%q) not read back after the restart (read %d)", i, value(i), len(got))
		}
	}

	if err := o2.srv.DefaultRoom().SetSpeed(ctx, 0); err != nil {
		t.Fatal(err)
	}
	h, err := o2.srv.DefaultRoom().History(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if h.Stopped != "" || !strings.Contains(h.Ksim, "\nrestore 1/") {
		t.Fatalf("the history stopped (%q) or holds no restore:\n%.1500s", h.Stopped, h.Ksim)
	}
	f.until("the copy at the room's moment", func(s LiveStatus) bool { return s.Now == h.At && s.Applied >= h.N })
	if d := sameSnapshot(f.e.Snapshot(), h.Snapshot); d != "" {
		t.Fatalf("the copy differs from the room: %s", d)
	}
	hash, snap := servetest.Replay(t, h.Ksim, h.At)
	if hash != f.e.sess.Driver().TraceHash() {
		t.Errorf("a replay of the room's history has hash %s, the copy %s", hash, f.e.sess.Driver().TraceHash())
	}
	if d := sameSnapshot(snap, h.Snapshot); d != "" {
		t.Errorf("a replay of the room's history differs from the room: %s", d)
	}
	restored := false
	for _, e := range f.e.sess.Driver().Events().Trace() {
		restored = restored || strings.Contains(e.Text(), "restored orders from disk")
	}
	if !restored {
		t.Errorf("the copy's trace has no restore")
	}
	if st := f.l.Status(); st.Phase != PhaseLive || st.Resyncs != 0 {
		t.Fatalf("at the end: %+v", st)
	}
	t.Logf("history: %d commands, %d bytes; the copy: %+v", h.N, len(h.Ksim), f.l.Status())
}

// openDir opens a data dir and reads its cluster line.
func openDir(t *testing.T, dir string) (*storage.Store, string) {
	t.Helper()
	st, err := storage.Open(dir, storage.Options{Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	line, err := st.Cluster()
	if err != nil {
		t.Fatal(err)
	}
	return st, line
}

// openStore keeps o's room's logs in dir from now on.
func openStore(t *testing.T, dir string, o *outsideServe) *storage.Store {
	t.Helper()
	st, _ := openDir(t, dir)
	if err := st.Follow(context.Background(), storage.FromRoom(o.srv.DefaultRoom())); err != nil {
		t.Fatal(err)
	}
	return st
}
