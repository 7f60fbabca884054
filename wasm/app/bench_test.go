package app

import (
	"fmt"
	"strings"
	"testing"
)

// referenceScript is make bench's reference scene (internal/canvasdev
// ReferenceScript): 5 brokers, 3 topics x 8 partitions, RF 3, two
// groups, 500 records/s for seconds of virtual time.
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

// BenchmarkReferenceScene builds the canvas's scene of the reference
// scene while it plays at 1x, 90 ms of virtual time apart (a frame at
// about 11 fps), from its 10th second: what the canvas pays per scene.
func BenchmarkReferenceScene(b *testing.B) {
	e := New()
	if ei := e.Load(referenceScript(60)); ei != nil {
		b.Fatal(ei.Msg)
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
