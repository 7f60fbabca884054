package session

import "github.com/kafkasim/kafkasim/core"

// StoreOptions bounds a Store.
type StoreOptions struct {
	// MaxTrace bounds the trace events kept (0: DefaultMaxTrace); past it
	// the oldest are forgotten and Forgotten counts them.
	MaxTrace int
	// MaxWire bounds the wire events (messages, flushes, ZooKeeper writes,
	// connections) kept for animation (0: DefaultMaxWire).
	MaxWire int
}

// Default bounds of a Store.
const (
	DefaultMaxTrace = 200_000
	DefaultMaxWire  = 50_000
)

// Store keeps a driver's events in two bounded lists: the trace (what a
// learner reads: appends, elections, acks, ...) and the wire (messages on
// their way, and other verbose detail). Seq numbers are the core's.
type Store struct {
	opts       StoreOptions
	trace      []core.Event
	wire       []core.Event
	outside    []core.Event // another cluster's outside observer events, for drawing (AddOutside)
	traceCount int          // trace events ever added
	wireCount  int
	forgotten  int
}

// NewStore returns an empty store.
func NewStore(opts StoreOptions) *Store {
	if opts.MaxTrace <= 0 {
		opts.MaxTrace = DefaultMaxTrace
	}
	if opts.MaxWire <= 0 {
		opts.MaxWire = DefaultMaxWire
	}
	return &Store{opts: opts}
}

// Add keeps a copy of *e.
func (s *Store) Add(e *core.Event) {
	if e.Verbose() {
		s.wireCount++
		s.wire = appendBounded(s.wire, e, s.opts.MaxWire, nil)
		return
	}
	s.traceCount++
	s.trace = appendBounded(s.trace, e, s.opts.MaxTrace, &s.forgotten)
}

// appendBounded appends e, dropping the oldest quarter when full (so the
// amortised cost stays O(1)). A full list grows to twice its capacity
// (at most limit), not by append's quarter: events are 632 bytes and a
// list holds up to limit of them, so append's growth copied each event
// about four times on its way to the bound, three quarters of what the
// page's simulation allocated (and its collector scanned) on the
// reference scene.
func appendBounded(list []core.Event, e *core.Event, limit int, dropped *int) []core.Event {
	if len(list) >= limit {
		n := limit / 4
		if n < 1 {
			n = 1
		}
		if dropped != nil {
			*dropped += n
		}
		list = append(list[:0], list[n:]...)
	}
	if len(list) == cap(list) {
		grown := make([]core.Event, len(list), min(limit, max(2*cap(list), 256)))
		copy(grown, list)
		list = grown
	}
	return append(list, *e)
}

// Trace returns the trace events kept, oldest first. Callers must not
// modify them.
func (s *Store) Trace() []core.Event { return s.trace }

// Wire returns the wire events kept, oldest first.
func (s *Store) Wire() []core.Event { return s.wire }

// TraceCount is how many trace events were ever added.
func (s *Store) TraceCount() int { return s.traceCount }

// WireCount is how many wire events were ever added.
func (s *Store) WireCount() int { return s.wireCount }

// Forgotten is how many old trace events were dropped past the bound.
func (s *Store) Forgotten() int { return s.forgotten }

// WireSince returns the kept wire events with At >= from (binary search:
// they are in time order).
func (s *Store) WireSince(from int64) []core.Event {
	lo, hi := 0, len(s.wire)
	for lo < hi {
		m := (lo + hi) / 2
		if s.wire[m].At < from {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return s.wire[lo:]
}

// trimWire forgets the wire events before from (a parked checkpoint
// keeps only the recent ones the canvas animates; checkpoint.go).
func (s *Store) trimWire(from int64) {
	keep := s.WireSince(from)
	if len(keep) < len(s.wire) {
		s.wire = append([]core.Event(nil), keep...)
	}
}

// AddOutside keeps e, an outside observer's event (core.Event.Outside:
// an outside ZooKeeper client's reads, watches and session) that another
// cluster emitted (a page following a room: the room's), for drawing. It
// is kept apart from the driver's own events (Outside, OutsideSince),
// bounded like the wire, and changes nothing a trace, its hash or a
// lookup by Seq depends on. An event that is not an outside one is
// refused (false): the simulation's own events come from the driver's
// cluster alone.
func (s *Store) AddOutside(e core.Event) bool {
	if !e.Outside {
		return false
	}
	s.outside = appendBounded(s.outside, &e, s.opts.MaxWire, nil)
	// In time order: it came after those at its time.
	for i := len(s.outside) - 1; i > 0 && s.outside[i-1].At > s.outside[i].At; i-- {
		s.outside[i-1], s.outside[i] = s.outside[i], s.outside[i-1]
	}
	return true
}

// OutsideSince returns the outside events kept (AddOutside) with At >=
// from, in time order.
func (s *Store) OutsideSince(from int64) []core.Event {
	lo, hi := 0, len(s.outside)
	for lo < hi {
		m := (lo + hi) / 2
		if s.outside[m].At < from {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return s.outside[lo:]
}

// MergeByAt merges two lists of events in time order into one (a's
// first among equal times); it returns a itself when b is empty.
func MergeByAt(a, b []core.Event) []core.Event {
	if len(b) == 0 {
		return a
	}
	out := make([]core.Event, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if b[0].At < a[0].At {
			out, b = append(out, b[0]), b[1:]
		} else {
			out, a = append(out, a[0]), a[1:]
		}
	}
	return append(append(out, a...), b...)
}
