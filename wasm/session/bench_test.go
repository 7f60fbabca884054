package session

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// referenceScript is make bench's reference scene (internal/canvasdev
// ReferenceScript, repeated here so this package's tests need no
// browser): 5 brokers, 3 topics x 8 partitions, RF 3, two groups, 500
// records/s for seconds of virtual time.
func referenceScript(seconds int) string {
	var b strings.Builder
	b.WriteString("cluster brokers=5 seed=11 version=3.9 metadata=zk\n")
	for _, t := range []string{"orders", "payments", "clicks"} {
		fmt.Fprintf(&b, "topic create %s partitions=8 rf=3\n", t)
	}
	b.WriteString("producer p1 acks=all\nproducer p2 acks=1\n")
	for _, c := range []string{"c1", "c2", "c3"} {
		fmt.Fprintf(&b, "consumer %s group=g1 topics=orders,payments\n", c)
	}
	for _, c := range []string{"c4", "c5"} {
		fmt.Fprintf(&b, "consumer %s group=g2 topics=clicks\n", c)
	}
	b.WriteString("wait 3s\n")
	for i := 0; i < seconds*50; i++ {
		fmt.Fprintf(&b, "produce p1 orders value=o%d count=4\nproduce p2 payments value=p%d count=3\nproduce p2 clicks value=k%d count=3\nwait 20ms\n", i, i, i)
	}
	return b.String()
}

// BenchmarkReferencePlay plays the reference scene as the page does at
// 1x, in 90 ms frames (about 11 a second), after its first 3 s: one op
// is one virtual second. The page's simulation cost per frame is this
// over 11.
func BenchmarkReferencePlay(b *testing.B) {
	s := New(StoreOptions{})
	if err := s.Load(referenceScript(b.N + 10)); err != nil {
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
