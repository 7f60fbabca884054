package log

import (
	"errors"
	"fmt"
)

// ErrOffsetOutOfRange is returned by Read for an offset below the log start
// offset or above the log end offset (Kafka's OFFSET_OUT_OF_RANGE).
var ErrOffsetOutOfRange = errors.New("offset out of range")

// Read is the result of Log.Read: the batches returned plus how Kafka's read
// path found them, for teaching. When no segment was read (offset at LEO or
// at/after maxOffset) Segment is "" and Batches is empty.
type Read struct {
	Segment        string   // file name of the segment read, e.g. "00000000000000000000.log"
	SegmentBase    int64    // its base offset
	IndexFound     bool     // OffsetIndex.lookup found an entry <= the offset
	IndexRelOffset int32    // that entry's relative offset (absolute - SegmentBase)
	IndexPosition  int32    // that entry's file position
	ScanFrom       int32    // position the forward scan started from (IndexPosition, or 0)
	BytesScanned   int      // bytes of batches stepped over before the first returned one
	Position       int32    // file position of the first returned batch
	Bytes          int      // total size of Batches
	Batches        []*Batch // whole batches, in order; read-only, may alias the log
}

// Read is Kafka's fetch read path (LocalLog.read, LogSegment.read,
// OffsetIndex.lookup, FileRecords.searchForOffsetWithSize; fact sheet §2
// "Fetch at N"). offset > LEO or < StartOffset gives ErrOffsetOutOfRange. The
// floor segment by base offset is searched: the largest index entry <= offset
// gives the scan start (none: position 0), the scan stops at the first batch
// with LastOffset >= offset. Whole batches are returned (the client drops
// records < offset); the first one even if larger than maxBytes
// (minOneMessage), the rest while the total stays <= maxBytes. Like Kafka, one
// read never crosses into the next segment unless the floor segment holds
// nothing at or after offset. maxOffset (the HW for consumers, LEO for
// followers) bounds the read at the file position of the batch containing
// maxOffset, so only batches with LastOffset < maxOffset are returned; at
// batch boundaries that is "BaseOffset < maxOffset".
func (l *Log) Read(offset int64, maxBytes int, maxOffset int64) (Read, error) {
	if offset > l.leo || offset < l.startOffset {
		return Read{}, fmt.Errorf("%w: offset %d, log start offset %d, log end offset %d",
			ErrOffsetOutOfRange, offset, l.startOffset, l.leo)
	}
	si := l.floor(offset)
	if si < 0 {
		return Read{}, fmt.Errorf("%w: offset %d below first segment %d",
			ErrOffsetOutOfRange, offset, l.segs[0].base)
	}
	if offset >= maxOffset {
		return Read{}, nil
	}
	for ; si < len(l.segs); si++ {
		s := l.segs[si]
		i := s.search(offset)
		if i == len(s.batches) {
			continue // LocalLog.read moves on to higherSegment
		}
		return readSegment(s, i, offset, maxBytes, maxOffset), nil
	}
	return Read{}, nil
}

// readSegment builds the Read for segment s whose first batch at or after
// offset is batches[i].
func readSegment(s *segment, i int, offset int64, maxBytes int, maxOffset int64) Read {
	r := Read{Segment: s.name, SegmentBase: s.base, Position: s.pos[i]}
	if k := s.lookup(offset); k >= 0 {
		e := s.offIdx[k]
		r.IndexFound, r.IndexRelOffset, r.IndexPosition = true, int32(e.Offset-s.base), e.Position
		r.ScanFrom = e.Position
	}
	r.BytesScanned = int(r.Position - r.ScanFrom)
	limit := maxBytes
	if first := s.batches[i].Size(); first > limit {
		limit = first // minOneMessage
	}
	// j = end of the bytes window: the first batch ending beyond pos[i]+limit,
	// or the first batch with LastOffset >= maxOffset, whichever is earlier.
	j := min(s.search(maxOffset), s.fitEnd(i, int64(r.Position)+int64(limit)))
	r.Bytes = int(s.endPos(j) - r.Position)
	r.Batches = s.batches[i:j:j]
	return r
}
