package room

import (
	"context"

	"github.com/kafkasim/kafkasim/core"
)

// Recorder is what DoRecorded's function gets: commands it applies
// through it join the room's history as Apply's do.
type Recorder interface {
	// Apply applies cmd now and records it in the history (the core's
	// error as is).
	Apply(cmd core.Command) error
	// Fits reports whether n more commands of bytes bytes in all fit in
	// the history.
	Fits(n, bytes int) bool
	// Stop records that the function changed the cluster in a way no
	// command describes: the history stops there with why, and pages
	// following the room say they cannot follow instead of diverging in
	// silence.
	Stop(why string)
}

// DoRecorded runs fn on the room's goroutine with the cluster and a
// Recorder, for a change made of several commands at one instant that
// nothing else may come between (a cluster restored from a --data-dir:
// its settings, then its topics as core.RestoreChunk parts). fn may read
// the cluster; it must change it only through the Recorder (or call Stop
// after changing it itself). fn must not keep c or the Recorder.
func (r *Room) DoRecorded(ctx context.Context, fn func(c *core.Cluster, rec Recorder) error) error {
	var err error
	if rerr := r.run(ctx, func() { err = fn(r.st.c, recorder{&r.st}) }); rerr != nil {
		return rerr
	}
	return err
}

type recorder struct{ s *loopState }

func (x recorder) Apply(cmd core.Command) error { return x.s.applyCmd(cmd) }

func (x recorder) Fits(n, bytes int) bool {
	h := &x.s.hist
	return len(h.entries)+n <= h.max && h.bytes+bytes <= h.maxBytes
}

func (x recorder) Stop(why string) { x.s.record(x.s.c.Now(), "", why) }
