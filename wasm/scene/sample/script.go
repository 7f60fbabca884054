package sample

import (
	"fmt"
	"strings"
)

// refTick is the reference script's virtual ms between produce calls.
const refTick = 20

// ReferenceScript is the reference scene's scenario (what canvasbench and
// canvasprof play in the page, and BenchmarkReferenceScene in wasm/app and
// BenchmarkReferencePlay in wasm/session play natively), producing for
// seconds of virtual time: p1 writes orders and p2 payments and clicks,
// RefRate records a second between them (10 every 20 ms); group g1 (c1,
// c2, c3) reads orders and payments, group g2 (c4, c5) reads clicks.
func ReferenceScript(seconds int) string {
	var b strings.Builder
	b.WriteString("# make bench's reference scene: 5 brokers, 3 topics x 8 partitions, RF 3, two groups, 500 records/s\n")
	fmt.Fprintf(&b, "cluster brokers=%d seed=11 version=3.9 metadata=zk\n", RefBrokers)
	for _, t := range []string{"orders", "payments", "clicks"} {
		fmt.Fprintf(&b, "topic create %s partitions=%d rf=%d\n", t, RefPartitions, RefRF)
	}
	b.WriteString("producer p1 acks=all\nproducer p2 acks=1\n")
	for _, c := range []string{"c1", "c2", "c3"} {
		fmt.Fprintf(&b, "consumer %s group=g1 topics=orders,payments\n", c)
	}
	for _, c := range []string{"c4", "c5"} {
		fmt.Fprintf(&b, "consumer %s group=g2 topics=clicks\n", c)
	}
	b.WriteString("wait 3s\n")
	per := RefRate * refTick / 1000 // records per tick: 4 + 3 + 3
	for i := 0; i < seconds*1000/refTick; i++ {
		fmt.Fprintf(&b, "produce p1 orders value=o%d count=%d\n", i, per-2*(per*3/10))
		fmt.Fprintf(&b, "produce p2 payments value=p%d count=%d\n", i, per*3/10)
		fmt.Fprintf(&b, "produce p2 clicks value=k%d count=%d\n", i, per*3/10)
		fmt.Fprintf(&b, "wait %dms\n", refTick)
	}
	return b.String()
}
