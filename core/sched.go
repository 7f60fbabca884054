package core

// timer is one scheduled action. Timers fire in (at, seq) order, so two
// timers due at the same virtual millisecond fire in the order they were
// scheduled: this is what makes a run deterministic.
type timer struct {
	at  int64
	seq uint64
	fn  func()
	msg *message // instead of fn: a message arriving (network.arrive)
}

// sched is a min-heap of timers. It never holds more than maxTimers.
type sched struct {
	h   []timer
	seq uint64
}

// maxTimers bounds the scheduler; exceeding it means a runaway model bug or
// an input that asks for too much, and is reported as an error, not a panic.
const maxTimers = 1 << 22

func (s *sched) len() int { return len(s.h) }

func (s *sched) push(at int64, fn func()) bool { return s.add(timer{at: at, fn: fn}) }

// pushMsg schedules message m's arrival at at: one timer, no closure
// (messages are most of the timers).
func (s *sched) pushMsg(at int64, m *message) bool { return s.add(timer{at: at, msg: m}) }

// initialTimers is the heap's first capacity: a small cluster keeps a few
// hundred timers pending, and growing to that from nothing costs a
// dozen copies per cluster.
const initialTimers = 256

func (s *sched) add(t timer) bool {
	if len(s.h) >= maxTimers {
		return false
	}
	if s.h == nil {
		s.h = make([]timer, 0, initialTimers)
	}
	s.seq++
	t.seq = s.seq
	s.h = append(s.h, t)
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

// The heap is 4-ary: half as deep as a binary one, so a pop (the most
// frequent operation, one per fired timer) moves a timer through fewer
// levels; any heap pops in the same (at, seq) order.
const arity = 4

func (s *sched) up(i int) {
	for i > 0 {
		p := (i - 1) / arity
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
		l := arity*i + 1
		if l >= n {
			return
		}
		m := l
		for c := l + 1; c < l+arity && c < n; c++ {
			if s.less(c, m) {
				m = c
			}
		}
		if !s.less(m, i) {
			return
		}
		s.h[i], s.h[m] = s.h[m], s.h[i]
		i = m
	}
}
