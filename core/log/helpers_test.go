package log

import (
	"strings"
	"testing"
)

// mk builds a batch of n records with null keys and values of vlen bytes.
func mk(base int64, n, vlen int, ts int64) *Batch {
	recs := make([]Record, n)
	v := strings.Repeat("x", vlen)
	for i := range recs {
		recs[i] = Record{Value: v}
	}
	return &Batch{BaseOffset: base, Epoch: 0, ProducerID: -1, BaseSequence: -1, Timestamp: ts, Records: recs}
}

// fill appends count batches of n records (vlen-byte values) at time now+i*step
// with timestamp = that time, failing the test on error.
func fill(t testing.TB, l *Log, count, n, vlen int, now, step int64) []*Batch {
	t.Helper()
	var out []*Batch
	for i := 0; i < count; i++ {
		at := now + int64(i)*step
		b := mk(l.LEO(), n, vlen, at)
		if err := l.Append(b, at); err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
		out = append(out, b)
	}
	return out
}

func cfgWith(f func(*Config)) Config {
	c := DefaultConfig()
	f(&c)
	return c
}

func offsets(bs []*Batch) []int64 {
	out := make([]int64, len(bs))
	for i, b := range bs {
		out[i] = b.BaseOffset
	}
	return out
}

func eqInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
