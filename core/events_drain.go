package core

// maxKeptEventBuf bounds the event buffer DrainEvents keeps for reuse
// (in events; 616 bytes each): a burst past it is let go.
const maxKeptEventBuf = 1 << 14

// DrainEvents calls fn with each event recorded since the last drain (or
// Events call), oldest first, then forgets them, as Events does, but
// keeps the buffer for the events to come: a caller that drains after
// every step (the browser's driver, a frame at a time; the scenario
// runner, after every command) does not make the cluster grow a new
// slice of 616-byte events each time. fn must not keep e past its call
// (the buffer is reused) nor act on the cluster; events recorded while fn
// runs (there should be none) are kept for the next drain.
func (c *Cluster) DrainEvents(fn func(e *Event)) {
	evs := c.events
	c.events = nil
	for i := range evs {
		fn(&evs[i])
	}
	if c.events != nil || cap(evs) > maxKeptEventBuf {
		return
	}
	clear(evs) // the old events' strings and records are garbage now
	c.events = evs[:0]
}
