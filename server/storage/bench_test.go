package storage

import (
	"testing"
)

// BenchmarkObserveIdle is the store's cost per room step when nothing
// changed, with __consumer_offsets (50 partitions) and a 6-partition
// RF 3 topic: 168 replicas to compare.
func BenchmarkObserveIdle(b *testing.B) {
	t := &testing.T{}
	_ = t
	m := newSim(&testing.T{}, `cluster brokers=3 seed=1 version=3.9 metadata=kraft
topic create __consumer_offsets partitions=50 rf=3
topic create t partitions=6 rf=3
wait 1s
`)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.s.observe(m.c, nil)
	}
}
