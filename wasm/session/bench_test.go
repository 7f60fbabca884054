package session

import (
	"os"
	"testing"

	"github.com/kafkasim/kafkasim/wasm/scene/sample"
)

// BenchmarkReferencePlay plays the reference scene as the page does at
// 1x, in 90 ms frames (about 11 a second), after its first 3 s: one op
// is one virtual second. The page's simulation cost per frame is this
// over 11.
func BenchmarkReferencePlay(b *testing.B) {
	s := New(StoreOptions{})
	if err := s.Load(sample.ReferenceScript(b.N + 10)); err != nil {
		b.Fatal(err)
	}
	if err := s.RunTo(3000); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for t := int64(3000); t < 3000+int64(b.N)*1000; t += 90 {
		if err := s.RunTo(t); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	d := s.Driver()
	b.ReportMetric(float64(d.Events().TraceCount()+d.Events().WireCount())/(3+float64(b.N)), "events/vs")
}

// BenchmarkLoadWelcome loads the page's first session (assets/welcome.ksim).
func BenchmarkLoadWelcome(b *testing.B) {
	text, err := os.ReadFile("../../assets/welcome.ksim")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s := New(StoreOptions{})
		if err := s.Load(string(text)); err != nil {
			b.Fatal(err)
		}
	}
}
