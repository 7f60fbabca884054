package app

import (
	"testing"

	"github.com/kafkasim/kafkasim/wasm/layout"
	"github.com/kafkasim/kafkasim/wasm/scene"
	"github.com/kafkasim/kafkasim/wasm/scene/sample"
)

// TestClusterSceneMessages: the cluster view's scene leaves out only
// unlabelled messages delivered before now (less the longest a dropped
// one lingers), which that view never draws at now or later; the other
// views keep the whole span.
func TestClusterSceneMessages(t *testing.T) {
	if inFlightMargin < layout.DropLinger {
		t.Fatalf("inFlightMargin %d < layout.DropLinger %v", inFlightMargin, layout.DropLinger)
	}
	e := New()
	if ei := e.Load(sample.ReferenceScript(20)); ei != nil {
		t.Fatal(ei.Msg)
	}
	if err := e.Advance(6000); err != nil {
		t.Fatal(err)
	}
	build := func(view scene.View) *scene.Scene {
		s, err := e.Scene(SceneOptions{View: view, Span: 2000})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	cl, both := build(scene.ViewCluster), build(scene.ViewBoth)
	if len(cl.Messages) == 0 || len(cl.Messages)*3 > len(both.Messages) {
		t.Fatalf("cluster view %d messages, both views %d: want some, and far fewer", len(cl.Messages), len(both.Messages))
	}
	in := map[uint64]bool{}
	for _, m := range cl.Messages {
		in[m.ID] = true
	}
	now := both.Now
	for _, m := range both.Messages {
		needed := float64(m.DeliverAt)+layout.DropLinger >= float64(now) || m.Label != ""
		if needed && !in[m.ID] {
			t.Errorf("message %d (%s -> %s %s, delivered at %d, now %d, label %q) left out of the cluster view", m.ID, m.From, m.To, m.Kind, m.DeliverAt, now, m.Label)
		}
		delete(in, m.ID)
	}
	if len(in) > 0 {
		t.Errorf("%d messages in the cluster view's scene and not in the whole span's", len(in))
	}
}
