package core

import "testing"

// TestSchedOrder: timers pop in (at, seq) order, pushes interleaved with
// pops, same-millisecond timers in push order.
func TestSchedOrder(t *testing.T) {
	var s sched
	x := uint64(12345)
	next := func(n int64) int64 { // xorshift: deterministic, no math/rand
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return int64(x % uint64(n))
	}
	var lastAt int64
	var lastSeq uint64
	popped, pushed := 0, 0
	check := func() {
		tm := s.pop()
		if tm.at < lastAt || tm.at == lastAt && tm.seq <= lastSeq {
			t.Fatalf("popped (%d, %d) after (%d, %d)", tm.at, tm.seq, lastAt, lastSeq)
		}
		lastAt, lastSeq = tm.at, tm.seq
		popped++
	}
	now := int64(0)
	for i := 0; i < 20000; i++ {
		if s.len() > 0 && next(3) == 0 {
			check()
			now = lastAt
			continue
		}
		if !s.push(now+next(40), nil) {
			t.Fatal("push refused")
		}
		pushed++
	}
	for s.len() > 0 {
		check()
	}
	if popped != pushed {
		t.Fatalf("popped %d of %d", popped, pushed)
	}
}
