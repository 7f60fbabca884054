package session

import "sort"

// Checkpoints make seeking on a long history fast. The core has no way to
// copy a cluster, so a checkpoint is a whole Driver parked at a moment of
// a branch: resuming it (it becomes the session's driver and plays on to
// the target) consumes it. Checkpoints come from two places:
//   - the driver a seek or a branch switch leaves: seeking back parks the
//     live driver at the moment it was at, so going forward again (to the
//     live end, say) resumes it instead of replaying;
//   - Prepare, which the page calls on idle frames: a builder driver
//     replays the branch from its seed, a slice of virtual time per call,
//     and parks itself at the middle of the widest stretch of the branch
//     without a checkpoint, until MaxCheckpoints cover it.
//
// A seek backwards resumes the latest checkpoint at or before the target
// (else replays from the seed), so it costs the distance from that
// checkpoint, not from t=0. The core is deterministic, so a resumed
// driver is the same run as a replay from the seed: same events, same
// snapshot, same trace hash (TestCheckpoint*).
//
// Invariant: a checkpoint of branch B at time T played exactly B's steps
// as they are now up to T. Changing a branch's steps (a command inserted
// at its end, or a queued one when it runs) changes them only from the
// moment the insertion splits (Driver.takeEdit); checkpoints of that
// branch at or after it, and the builder, are dropped.

// Checkpoint limits.
const (
	// MaxCheckpoints bounds the parked drivers of a session (each holds a
	// cluster and its event log).
	MaxCheckpoints = 6
	// MinCheckpointGap is the least virtual time between two checkpoints
	// Prepare builds: below it, replaying is fast anyway.
	MinCheckpointGap = 10_000
	// ParkedWireMs is how much of its wire log (the messages the canvas
	// animates) a parked driver keeps: the trace is kept whole (stories
	// read it), the wire only this far back from the parking moment.
	ParkedWireMs = 10_000
)

// checkpoint is a driver parked at a moment of a branch.
type checkpoint struct {
	branch int
	at     int64
	drv    *Driver
}

// park keeps d (playing branch) as a checkpoint at its current time,
// evicting the checkpoint closest to a neighbour when over the limit.
func (s *Session) park(branch int, d *Driver) {
	if d == nil || d.Fault() != nil {
		return
	}
	at := d.Now()
	d.events.trimWire(at - ParkedWireMs)
	for i, c := range s.cps {
		if c.branch == branch && c.at == at { // the same moment: keep the newer
			s.cps[i].drv = d
			return
		}
	}
	s.cps = append(s.cps, checkpoint{branch: branch, at: at, drv: d})
	for len(s.cps) > MaxCheckpoints {
		s.evict()
	}
}

// evict drops the checkpoint whose loss leaves the smallest hole: other
// branches' first, then the one nearest its predecessor.
func (s *Session) evict() {
	cur := -1
	if s.cur != nil {
		cur = s.cur.ID
	}
	victim := -1
	for i, c := range s.cps {
		if c.branch != cur {
			victim = i
			break
		}
	}
	if victim < 0 {
		s.sortCheckpoints()
		best := int64(-1)
		prev := int64(0)
		for i, c := range s.cps {
			if gap := c.at - prev; best < 0 || gap < best {
				best, victim = gap, i
			}
			prev = c.at
		}
	}
	s.cps = append(s.cps[:victim], s.cps[victim+1:]...)
}

func (s *Session) sortCheckpoints() {
	sort.SliceStable(s.cps, func(i, j int) bool {
		if s.cps[i].branch != s.cps[j].branch {
			return s.cps[i].branch < s.cps[j].branch
		}
		return s.cps[i].at < s.cps[j].at
	})
}

// resume takes out the checkpoint of branch b with the latest time in
// [from, to] (nil when there is none); its driver plays b's steps as
// they are now.
func (s *Session) resume(b *Branch, from, to int64) *Driver {
	best := -1
	for i, c := range s.cps {
		if c.branch == b.ID && c.at >= from && c.at <= to && (best < 0 || c.at > s.cps[best].at) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	d := s.cps[best].drv
	s.cps = append(s.cps[:best], s.cps[best+1:]...)
	d.steps = b.steps
	return d
}

// edited drops what an edit of branch b from virtual time from made
// stale: its checkpoints at or after from, and the builder.
func (s *Session) edited(b *Branch, from int64) {
	keep := s.cps[:0]
	for _, c := range s.cps {
		if c.branch != b.ID || c.at < from {
			keep = append(keep, c)
		}
	}
	for i := len(keep); i < len(s.cps); i++ {
		s.cps[i] = checkpoint{}
	}
	s.cps = keep
	s.builder = nil
}

// noteEdits applies the live driver's edits since the last call.
func (s *Session) noteEdits() {
	if s.drv == nil {
		return
	}
	if from, ok := s.drv.takeEdit(); ok {
		s.edited(s.cur, from)
	}
}

// dropCheckpoints forgets every checkpoint of branch id (-1: all) and the
// builder.
func (s *Session) dropCheckpoints(id int) {
	keep := s.cps[:0]
	for _, c := range s.cps {
		if id >= 0 && c.branch != id {
			keep = append(keep, c)
		}
	}
	s.cps = keep
	if id < 0 || s.builderBranch == id {
		s.builder = nil
	}
}

// Checkpoints lists the current branch's checkpoint times, ascending.
func (s *Session) Checkpoints() []int64 {
	var out []int64
	if s.cur == nil {
		return out
	}
	for _, c := range s.cps {
		if c.branch == s.cur.ID {
			out = append(out, c.at)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// goal is where the next checkpoint should be: the middle of the widest
// stretch of [0, horizon] of the current branch without one (the live
// driver's moment counts as covered), or -1 when every stretch is under
// twice MinCheckpointGap or the checkpoints are all taken.
func (s *Session) goal() int64 {
	if s.cur == nil || s.drv == nil || len(s.Checkpoints()) >= MaxCheckpoints-1 {
		return -1
	}
	pts := append([]int64{0}, s.Checkpoints()...)
	pts = append(pts, s.drv.Now(), s.cur.Horizon)
	sort.Slice(pts, func(i, j int) bool { return pts[i] < pts[j] })
	best, at := int64(0), int64(-1)
	for i := 1; i < len(pts); i++ {
		if gap := pts[i] - pts[i-1]; gap > best {
			best, at = gap, pts[i-1]+gap/2
		}
	}
	if best < 2*MinCheckpointGap {
		return -1
	}
	return at
}

// Prepare spends at most budget virtual ms of replay building a
// checkpoint of the current branch (see the top of this file); the page
// calls it on frames while paused. It reports whether more is to do.
func (s *Session) Prepare(budget int64) bool {
	if s.drv == nil || budget <= 0 {
		return false
	}
	s.noteEdits()
	if s.builder != nil && s.builderBranch != s.cur.ID {
		s.builder = nil
	}
	if s.builder == nil {
		g := s.goal()
		if g < 0 {
			return false
		}
		d, err := NewDriver(s.cur.steps, s.opts)
		if err != nil {
			return false
		}
		s.builder, s.builderBranch, s.builderGoal = d, s.cur.ID, g
	}
	d := s.builder
	to := min(s.builderGoal, d.Now()+budget)
	if err := d.RunTo(to); err != nil {
		s.builder = nil
		return false
	}
	if d.Now() >= s.builderGoal {
		s.builder = nil
		s.park(s.builderBranch, d)
	}
	return true
}
