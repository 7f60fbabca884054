package app

import (
	"testing"

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
