package log

import "fmt"

// RestoredSegment is one segment file as a recovery read it back from a
// disk: its base offset (the file name) and its valid batches in order.
type RestoredSegment struct {
	Base    int64
	Batches []*Batch
}

// Restore builds a log from segments read back from disk, as LogLoader
// loads a log directory at broker start after an unclean shutdown: every
// segment is recovered (LogSegment.recover rebuilds both indexes with the
// append rule and closes the time index with the largest timestamp), the
// log end offset is the end of the last batch (the last segment's base
// when it is empty), everything read is on disk (recovery point and
// durable offset at LEO), and the log start offset is startOffset (the
// log-start-offset-checkpoint) clamped into [first base, LEO].
//
// segs must be non-empty with strictly increasing bases; any may have no
// batches (a cleaned segment can be empty); batches must be non-empty
// (but for a cleaned batch, OffsetDeltas set and valid), in increasing offset order
// without overlap, and lie in [base, next base). Anything else is an error,
// never a panic. now is the virtual time the segments are opened.
func Restore(cfg Config, segs []RestoredSegment, startOffset, now int64) (*Log, error) {
	if len(segs) == 0 {
		return nil, fmt.Errorf("restore: no segments")
	}
	l := New(cfg, now)
	l.segs = l.segs[:0]
	next := int64(-1) // end of the previous batch
	for i, rs := range segs {
		if rs.Base < 0 || rs.Base < next || i > 0 && rs.Base <= segs[i-1].Base {
			return nil, fmt.Errorf("restore: segment %d: base offset %d not after the previous segment's data (%d)", i, rs.Base, next)
		}
		last := i == len(segs)-1
		limit := int64(1<<63 - 1)
		if !last {
			limit = segs[i+1].Base
		}
		s := newSegment(rs.Base, now, len(rs.Batches))
		for j, b := range rs.Batches {
			if b == nil || b.Len() == 0 && b.OffsetDeltas == nil {
				return nil, fmt.Errorf("restore: segment %d batch %d is empty", i, j)
			}
			if err := b.checkDeltas(); err != nil {
				return nil, fmt.Errorf("restore: segment %d batch %d: %v", i, j, err)
			}
			if b.BaseOffset < max(next, rs.Base) || b.LastOffset() >= limit || b.LastOffset()-rs.Base > maxInt32 {
				return nil, fmt.Errorf("restore: segment %d (base %d): batch at offsets %d-%d out of place", i, rs.Base, b.BaseOffset, b.LastOffset())
			}
			if int64(s.size)+int64(b.Size()) > maxInt32 {
				return nil, fmt.Errorf("restore: segment %d (base %d) over 2 GiB", i, rs.Base)
			}
			s.append(b, now, l.cfg.IndexIntervalBytes, l.cfg.IndexLastOffset)
			next = b.LastOffset() + 1
		}
		s.recover(l.cfg.IndexIntervalBytes, l.cfg.IndexLastOffset)
		l.segs = append(l.segs, s)
	}
	l.leo = max(next, l.active().base)
	l.startOffset = min(max(startOffset, l.segs[0].base), l.leo)
	l.recoveryPt, l.durable = l.leo, l.leo
	return l, nil
}
