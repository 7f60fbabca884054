package room

import (
	"context"
	"sync"
)

// Subscriber buffer bounds.
const (
	DefaultBuffer = 256
	MinBuffer     = 8
	MaxBuffer     = 4096
	// reserve is kept free of broadcast frames for replies and classroom
	// messages, so a subscriber that lags on events still gets them.
	reserveDiv = 8
)

// Sub is one subscription to a room's stream. Its first frame is a
// snapshot; then events, clock changes and the frames sent to everyone,
// in order, plus the replies Deliver adds. When the subscriber falls so
// far behind that its buffer is full, the room stops streaming to it and,
// once it has read most of its buffer, sends it a fresh snapshot
// (reason "resync") and streams on from there.
type Sub struct {
	C    <-chan *Frame // frames to send, in order
	Data any           // the subscriber's own; the room does not look at it

	c      chan *Frame
	done   chan struct{} // closed when the subscription ends
	once   sync.Once
	lagged bool // loop: dropped from the stream, waiting to resync
	resyns int  // loop: times resynced
}

// Done is closed when the subscription ends (Unsubscribe, the room's
// Close, or a Deliver that found the buffer full).
func (s *Sub) Done() <-chan struct{} { return s.done }

func (s *Sub) end() { s.once.Do(func() { close(s.done) }) }

// Subscribe adds a subscriber with a buffer of buf frames (clamped to
// MinBuffer..MaxBuffer; 0: DefaultBuffer) whose first frame is a snapshot
// with the given reason. data is kept in Sub.Data.
func (r *Room) Subscribe(ctx context.Context, buf int, reason string, data any) (*Sub, error) {
	if buf == 0 {
		buf = DefaultBuffer
	}
	buf = max(MinBuffer, min(buf, MaxBuffer))
	c := make(chan *Frame, buf)
	s := &Sub{C: c, c: c, done: make(chan struct{}), Data: data}
	err := r.run(ctx, func() {
		r.st.flush() // the snapshot then includes every event sent so far
		c <- r.st.snapshot(reason, 0)
		r.st.subs[s] = struct{}{}
		r.nsubs.Store(int64(len(r.st.subs)))
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Unsubscribe ends s. It is safe to call more than once.
func (r *Room) Unsubscribe(s *Sub) {
	s.end()
	_ = r.run(nil, func() { r.st.remove(s) })
}

// Deliver adds a frame for s alone (a reply), from any goroutine. It
// returns false, and ends s, when s's buffer is full: a subscriber that
// cannot take its own replies is gone.
func (r *Room) Deliver(s *Sub, f *Frame) bool {
	select {
	case s.c <- f:
		return true
	default:
		s.end()
		return false
	}
}

// Broadcast sends f to every subscriber, including those waiting for a
// resync (classroom messages: a lesson step, a prediction), and waits
// until it is queued.
func (r *Room) Broadcast(ctx context.Context, f *Frame) error {
	return r.run(ctx, func() { r.st.broadcastAll(f) })
}

// ForEach calls fn on the loop goroutine for every subscriber (to count
// roles kept in Data, or to deliver to some).
func (r *Room) ForEach(ctx context.Context, fn func(s *Sub)) error {
	return r.run(ctx, func() {
		for s := range r.st.subs {
			fn(s)
		}
	})
}

// broadcast streams f to every subscriber that keeps up; one whose buffer
// has no room beyond the reserve is dropped from the stream until resync.
func (s *loopState) broadcast(f *Frame) {
	s.r.frames.Add(1)
	for sub := range s.subs {
		if sub.lagged {
			continue
		}
		if len(sub.c) >= cap(sub.c)-cap(sub.c)/reserveDiv {
			s.setLagged(sub, true)
			continue
		}
		select {
		case sub.c <- f:
		default:
			s.setLagged(sub, true)
		}
	}
}

// broadcastAll queues f for every subscriber, lagging or not; one with a
// full buffer is ended.
func (s *loopState) broadcastAll(f *Frame) {
	for sub := range s.subs {
		select {
		case sub.c <- f:
		default:
			sub.end()
			s.remove(sub)
		}
	}
}

// setLagged marks sub as dropped from the stream (or back in it).
func (s *loopState) setLagged(sub *Sub, lagged bool) {
	if sub.lagged == lagged {
		return
	}
	sub.lagged = lagged
	if lagged {
		s.r.lagging.Add(1)
	} else {
		s.r.lagging.Add(-1)
	}
}

// remove forgets sub.
func (s *loopState) remove(sub *Sub) {
	if _, ok := s.subs[sub]; !ok {
		return
	}
	s.setLagged(sub, false)
	delete(s.subs, sub)
	s.r.nsubs.Store(int64(len(s.subs)))
}

// resync sends a fresh snapshot to every lagging subscriber that has read
// most of its buffer. One snapshot (one encoding) serves all of them.
func (s *loopState) resync() {
	var snap *Frame
	for sub := range s.subs {
		if !sub.lagged || len(sub.c) > cap(sub.c)/4 {
			continue
		}
		if snap == nil {
			snap = s.snapshot("resync", 0)
		}
		select {
		case sub.c <- snap:
			s.setLagged(sub, false)
			sub.resyns++
			s.r.resyncs.Add(1)
		default:
		}
	}
}

// snapshotAll sends every subscriber a fresh snapshot: after a reset or
// load, or a tick with more events than a stream should carry. A
// subscriber with no room for it is marked lagging (resync follows).
func (s *loopState) snapshotAll(reason string) {
	snap := s.snapshot(reason, 0)
	for sub := range s.subs {
		select {
		case sub.c <- snap:
			s.setLagged(sub, false)
		default:
			s.setLagged(sub, true)
		}
	}
}

// closeAll ends every subscription and job (the room is closing).
func (s *loopState) closeAll() {
	for sub := range s.subs {
		sub.end()
	}
	s.subs = map[*Sub]struct{}{}
	s.r.nsubs.Store(0)
	s.r.lagging.Store(0)
	for _, j := range s.jobs {
		j.cancel("the room closed")
	}
	s.jobs = nil
}
