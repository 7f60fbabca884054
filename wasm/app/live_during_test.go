//go:build !js

package app

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafkasim/kafkasim/internal/servetest"
	"github.com/kafkasim/kafkasim/server/protocol"
)

// TestLiveFollowsOutsideDuringPoll: a real client that produces while the
// room's script polls (a blocking operation the script waits for) is
// applied at once, and a page in live mode keeps following: the
// requests come as `during` lines, the copy applies them at the same
// instant of the same poll and holds the room's state and hash.
func TestLiveFollowsOutsideDuringPoll(t *testing.T) {
	if testing.Short() {
		t.Skip("real clients against a served room")
	}
	o := startOutsideServe(t, outsideScenario+"consumer c1 group=g topics=orders poll=manual\nwait 2s\n")
	ctx := testCtx(t)
	f := follow(t, o.c, o.base, o.srv.DefaultCode(), "")
	room := o.srv.DefaultRoom()
	f.until("live", func(s LiveStatus) bool { return s.Phase == PhaseLive })
	if err := room.AdvanceNow(ctx, 5500); err != nil { // to the scenario's consumer
		t.Fatal(err)
	}
	f.until("the scenario's consumer", func(s LiveStatus) bool { return s.RoomNow > 5500 })
	done := make(chan protocol.Result, 1)
	if err := room.Exec(ctx, "t", servetest.Steps(t, "poll c1 max=100 timeout=4s"), func(r protocol.Result) { done <- r }); err != nil {
		t.Fatal(err)
	}
	cl := o.producer(t)
	defer cl.Close()
	f.while("franz-go produces during the poll", func() error {
		for i := 0; i < 5; i++ {
			if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte(fmt.Sprint("during-", i))}).FirstErr(); err != nil {
				return err
			}
		}
		return nil
	})
	f.while("the poll ends", func() error {
		if r := <-done; !r.OK {
			return fmt.Errorf("poll: %+v", r)
		}
		return nil
	})
	f.while("the client closes", func() error { cl.Close(); return nil })
	f.pump(300 * time.Millisecond)
	if err := room.SetSpeed(ctx, 0); err != nil {
		t.Fatal(err)
	}
	h, err := room.History(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if h.Stopped != "" || !strings.Contains(h.Ksim, "\nduring +") {
		t.Fatalf("the history stopped (%q) or has no during line:\n%.3000s", h.Stopped, h.Ksim)
	}
	f.until("the copy at the room's moment", func(s LiveStatus) bool { return s.Now == h.At && s.Applied >= h.N })
	if st := f.l.Status(); st.Phase != PhaseLive || st.Resyncs != 0 {
		t.Fatalf("the page stopped following: %+v", st)
	}
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
	t.Logf("%d during lines; copy %+v", strings.Count(h.Ksim, "\nduring +"), f.l.Status())
}
