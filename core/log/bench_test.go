package log

import (
	"strconv"
	"testing"
)

const benchPool = 1 << 15

// benchBatches pre-builds batches of n records (100-byte values, 8-byte keys)
// at consecutive offsets, with sizes cached.
func benchBatches(n int) []*Batch {
	recs := make([]Record, n)
	for i := range recs {
		recs[i] = Record{Key: "key-" + strconv.Itoa(i%10000), HasKey: true, Value: string(make([]byte, 100))}
	}
	out := make([]*Batch, benchPool)
	for i := range out {
		out[i] = &Batch{BaseOffset: int64(i * n), ProducerID: -1, BaseSequence: -1, Timestamp: int64(i), Records: recs}
		out[i].Size()
	}
	return out
}

func BenchmarkAppend(b *testing.B) {
	for _, n := range []int{1, 10, 100} {
		b.Run("records="+strconv.Itoa(n), func(b *testing.B) {
			pool := benchBatches(n)
			l := New(DefaultConfig(), 0)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				k := i % benchPool
				if k == 0 {
					l.TruncateFullyAndStartAt(0)
				}
				if err := l.Append(pool[k], int64(k)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)*float64(n)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

// BenchmarkReadConsumer reads the whole log sequentially with 1 MiB fetches
// bounded by the high watermark, as a consumer does.
func BenchmarkReadConsumer(b *testing.B) {
	for _, n := range []int{1, 10} {
		b.Run("records="+strconv.Itoa(n), func(b *testing.B) {
			pool := benchBatches(n)
			l := New(cfgWith(func(c *Config) { c.SegmentBytes = 64 << 20 }), 0)
			for k, bt := range pool {
				if err := l.Append(bt, int64(k)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			records, off := 0, int64(0)
			for i := 0; i < b.N; i++ {
				r, err := l.Read(off, 1<<20, l.LEO())
				if err != nil {
					b.Fatal(err)
				}
				last := r.Batches[len(r.Batches)-1]
				records += int(last.LastOffset() + 1 - off)
				off = last.LastOffset() + 1
				if off == l.LEO() {
					off = 0
				}
			}
			b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

// BenchmarkReadFollowerTail appends one batch and reads it back from the
// previous LEO, as a follower fetching the leader's tail does.
func BenchmarkReadFollowerTail(b *testing.B) {
	const n = 10
	pool := benchBatches(n)
	l := New(DefaultConfig(), 0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := i % benchPool
		if k == 0 {
			l.TruncateFullyAndStartAt(0)
		}
		from := l.LEO()
		if err := l.Append(pool[k], int64(k)); err != nil {
			b.Fatal(err)
		}
		if r, err := l.Read(from, 1<<20, l.LEO()); err != nil || len(r.Batches) != 1 {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*n/b.Elapsed().Seconds(), "records/s")
}
