package app

import (
	"testing"

	"github.com/kafkasim/kafkasim/wasm/layout"
	"github.com/kafkasim/kafkasim/wasm/scene/sample"
)

// BenchmarkReferenceScene builds the canvas's scene of the reference
// scene while it plays at 1x, 90 ms of virtual time apart (a frame at
// about 11 fps), from its 10th second, with the options the page sets
// (assets/app.js postScene: the cluster view, 12 cells, the space-time
// span of 2 s; without them the span was 100 ms, and the scene held a
// twentieth of the page's messages): what the canvas pays per scene.
func BenchmarkReferenceScene(b *testing.B) {
	e := New()
	if ei := e.Load(sample.ReferenceScript(60)); ei != nil {
		b.Fatal(ei.Msg)
	}
	if err := e.SetSceneOptionsJSON(`{"view":"cluster","hide":[],"cells":12,"span":2000}`); err != nil {
		b.Fatal(err)
	}
	if err := e.Advance(10_000); err != nil {
		b.Fatal(err)
	}
	e.Play()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if _, err := e.Tick(90); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := e.CurrentScene(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReferenceFrame is the page's main-thread work per drawn frame
// outside Ebiten and WebGL, on the reference scene at 1x and about 15
// frames a second (66 virtual ms a frame): the simulation's tick, the
// scene the canvas takes (one a frame, as it does at that rate), its
// layout, and the messages drawn at the frame's moment. The canvas's CPU
// per frame beyond the empty Ebiten program's is mostly this, the
// garbage collector's share of what it allocates, and the GPU's.
func BenchmarkReferenceFrame(b *testing.B) {
	e := New()
	if ei := e.Load(sample.ReferenceScript(b.N/15 + 20)); ei != nil {
		b.Fatal(ei.Msg)
	}
	if err := e.SetSceneOptionsJSON(`{"view":"cluster","hide":[],"cells":12,"span":2000}`); err != nil {
		b.Fatal(err)
	}
	if err := e.Advance(5_000); err != nil {
		b.Fatal(err)
	}
	e.Play()
	b.ReportAllocs()
	b.ResetTimer()
	drawn := 0
	for i := 0; i < b.N; i++ {
		if _, err := e.Tick(66); err != nil {
			b.Fatal(err)
		}
		s, err := e.CurrentScene()
		if err != nil {
			b.Fatal(err)
		}
		l := layout.Build(s, 818, 292)
		ss, _ := l.Sprites(float64(s.Now))
		drawn += len(ss)
	}
	b.ReportMetric(float64(drawn)/float64(b.N), "sprites/frame")
}
