package core

// NextTimer returns the virtual time (ms) of the earliest thing scheduled
// (a message arriving, a timer firing), and false when nothing is. It
// may be Now() itself: work scheduled with no delay since the last
// Advance runs in the next one. A driver that follows the wall clock can
// sleep until then instead of polling: nothing happens in the cluster
// before that instant unless a command is applied. Reading it changes
// nothing.
func (c *Cluster) NextTimer() (int64, bool) { return c.sched.peek() }
