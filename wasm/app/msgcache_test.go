package app

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/kafkasim/kafkasim/wasm/scene"
	"github.com/kafkasim/kafkasim/wasm/scene/sample"
)

// TestMessagesCachedMatchesScan: frame after frame, in the cluster view
// and in both views (switching between them), through the reference
// scene and the acks=1 story (a split drops messages), the scene's
// messages and marks kept from scene to scene are what messages and
// marks give from the wire and the trace; a seek back starts afresh.
func TestMessagesCachedMatchesScan(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "core", "scenario", "testdata", "acks1-leader-death.ksim"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, script string }{{"reference", sample.ReferenceScript(12)}, {"acks1", string(b)}} {
		t.Run(c.name, func(t *testing.T) {
			e := New()
			if ei := e.Load(c.script); ei != nil {
				t.Fatal(ei.Msg)
			}
			e.Play()
			drops, nmarks := 0, 0
			check := func(when string, view scene.View, span int64) {
				t.Helper()
				s, err := e.Scene(SceneOptions{View: view, Span: span})
				if err != nil {
					t.Fatal(err)
				}
				st := e.sess.Driver().Events()
				want, wantOmit := messages(st.WireSince(s.Now-max(s.Span, msgLookback)), s.Now, s.Span, view == scene.ViewCluster)
				if len(want) == 0 {
					want = nil
				}
				got := s.Messages
				if len(got) == 0 {
					got = nil
				}
				if !reflect.DeepEqual(got, want) || s.Counters.Omitted != wantOmit {
					t.Fatalf("%s (%s, span %d, now %d): %d messages (%d omitted), a scan %d (%d)", when, view, span, s.Now, len(got), s.Counters.Omitted, len(want), wantOmit)
				}
				for _, m := range got {
					if m.Dropped {
						drops++
					}
				}
				if wm := marks(st.Trace(), s.Now); !reflect.DeepEqual(s.Marks, wm) {
					t.Fatalf("%s (now %d): marks %v, a scan %v", when, s.Now, s.Marks, wm)
				}
				nmarks += len(s.Marks)
			}
			for i := 0; i < 120; i++ {
				if _, err := e.Tick(float64(37 + i%5*40)); err != nil {
					t.Fatal(err)
				}
				view, span := scene.ViewCluster, int64(2000)
				if i/30%2 == 1 {
					view, span = scene.ViewBoth, 1500
				}
				check("playing", view, span)
			}
			if err := e.SeekTo(1500); err != nil {
				t.Fatal(err)
			}
			check("after a seek back", scene.ViewCluster, 2000)
			t.Logf("%d dropped messages seen, %d marks", drops, nmarks)
		})
	}
}
