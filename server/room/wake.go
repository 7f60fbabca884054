package room

import "time"

// Between ticks a room on the wall clock sleeps until the cluster's next
// timer is due and wakes then, and an op (a command, a real client's
// request) first brings virtual time up to the wall clock's present. So
// simulated time still follows the wall clock, in whole virtual
// milliseconds, but nothing waits for the next tick: a request that
// crosses the simulated network in 2 ms hops is answered in those hops'
// wall time, not in multiples of Config.Tick. A run is the same however
// finely it is advanced (core.Cluster.Advance), so this changes when
// things happen in wall time only, never what happens. Rooms driven by
// Config.Ticks (tests) advance on their ticks alone.

// wakeSlack is added to a wake-up so that the wall time elapsed covers
// the whole virtual millisecond due despite rounding.
const wakeSlack = 50 * time.Microsecond

// minWake bounds how often a room wakes between ticks: at most once a
// millisecond of wall time, whatever the speed.
const minWake = time.Millisecond

// follows reports whether the room runs on the wall clock (not on ticks
// a test hands it).
func (r *Room) follows() bool { return r.cfg.Ticks == nil }

// catchUp advances the cluster to the wall clock's present before an op,
// so the op happens at the virtual instant it arrived.
func (s *loopState) catchUp() {
	if s.c != nil && s.speed > 0 && !s.faulted {
		s.tick(s.r.cfg.Now())
	}
}

// wakeIn is how long from now the loop may sleep before the cluster has
// something to do (its next timer, or a script's wait ending); false when
// nothing is scheduled or the clock is stopped.
func (s *loopState) wakeIn() (time.Duration, bool) {
	if s.c == nil || s.speed <= 0 || s.faulted {
		return 0, false
	}
	at, ok := s.c.NextTimer()
	if j, jok := s.nextWake(); jok && (!ok || j < at) {
		at, ok = j, true
	}
	if !ok {
		return 0, false
	}
	// Virtual ms still to go: the carry is the part of the next one the
	// wall clock has already covered. A timer due now needs one more ms
	// (every advance is at least 1 ms).
	togo := float64(max(at-s.c.Now(), 1)) - s.carry
	d := time.Duration(togo/s.speed*float64(time.Millisecond)) - s.r.cfg.Now().Sub(s.lastWall) + wakeSlack
	return max(d, minWake), true
}
