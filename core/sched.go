package core

// timer is one scheduled action. Timers fire in (at, seq) order, so two
// timers due at the same virtual millisecond fire in the order they were
// scheduled: this is what makes a run deterministic.
type timer struct {
	at  int64
	seq uint64
	fn  func()
}

// sched is a binary min-heap of timers. It never holds more than maxTimers.
type sched struct {
	h   []timer
	seq uint64
}

// maxTimers bounds the scheduler; exceeding it means a runaway model bug or
// an input that asks for too much, and is reported as an error, not a panic.
const maxTimers = 1 << 22

func (s *sched) len() int { return len(s.h) }

func (s *sched) push(at int64, fn func()) bool {
	if len(s.h) >= maxTimers {
		return false
	}
	s.seq++
	s.h = append(s.h, timer{at: at, seq: s.seq, fn: fn})
	s.up(len(s.h) - 1)
	return true
}

func (s *sched) peek() (int64, bool) {
	if len(s.h) == 0 {
		return 0, false
	}
	return s.h[0].at, true
}

func (s *sched) pop() timer {
	t := s.h[0]
	n := len(s.h) - 1
	s.h[0] = s.h[n]
	s.h[n] = timer{}
	s.h = s.h[:n]
	if n > 0 {
		s.down(0)
	}
	return t
}

func (s *sched) less(i, j int) bool {
	a, b := &s.h[i], &s.h[j]
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

func (s *sched) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !s.less(i, p) {
			return
		}
		s.h[i], s.h[p] = s.h[p], s.h[i]
		i = p
	}
}

func (s *sched) down(i int) {
	n := len(s.h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && s.less(r, l) {
			m = r
		}
		if !s.less(m, i) {
			return
		}
		s.h[i], s.h[m] = s.h[m], s.h[i]
		i = m
	}
}
