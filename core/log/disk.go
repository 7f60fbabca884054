package log

// What code that keeps a log's files on a real disk needs (the server's
// --data-dir): cheap per-segment reads that copy nothing but the tail it
// asks for, and a counter of the mutations that rewrite existing bytes
// rather than append. Appends, rolls and retention deletes are visible
// from segment bases and counts alone; a truncation or a recovery is not
// (the log can be truncated and refilled to the same length in one
// step), so each bumps Rewrites.

// SegmentRef describes one segment without copying its contents.
type SegmentRef struct {
	Base        int64 // base offset: the file name
	Size        int32 // .log bytes
	Batches     int   // batches in the segment
	OffsetIndex int   // .index entries
	TimeIndex   int   // .timeindex entries
}

// NumSegments is the number of segments (at least 1).
func (v View) NumSegments() int { return len(v.l.segs) }

// SegmentRef describes segment i (0 is the oldest).
func (v View) SegmentRef(i int) SegmentRef {
	s := v.l.segs[i]
	return SegmentRef{Base: s.base, Size: s.size, Batches: len(s.batches), OffsetIndex: len(s.offIdx), TimeIndex: len(s.timeIdx)}
}

// SegmentBatches returns segment i's batches from the from-th on and the
// file position of each, as fresh slices (the batches themselves are the
// log's own and immutable).
func (v View) SegmentBatches(i, from int) ([]*Batch, []int32) {
	s := v.l.segs[i]
	from = min(max(from, 0), len(s.batches))
	return append([]*Batch(nil), s.batches[from:]...), append([]int32(nil), s.pos[from:]...)
}

// SegmentIndex returns segment i's offset-index entries from the from-th on
// and its time-index entries from the fromTime-th on, as fresh slices.
func (v View) SegmentIndex(i, from, fromTime int) ([]IndexEntry, []TimeIndexEntry) {
	s := v.l.segs[i]
	from = min(max(from, 0), len(s.offIdx))
	fromTime = min(max(fromTime, 0), len(s.timeIdx))
	return append([]IndexEntry(nil), s.offIdx[from:]...), append([]TimeIndexEntry(nil), s.timeIdx[fromTime:]...)
}

// Rewrites counts the mutations that changed bytes already written:
// truncations (TruncateTo, TruncateFullyAndStartAt) and LosePageCache's
// recovery, which rebuilds the indexes. It only grows.
func (v View) Rewrites() uint64 { return v.l.rewrites }

// rewriteRing is how many recent rewrites RewrittenSince remembers.
const rewriteRing = 8

// rewrote counts a rewrite that invalidated the files from offset on (a
// recovery passes the LEO: its bytes stay, its indexes are rebuilt).
func (l *Log) rewrote(offset int64) {
	l.rewrites++
	l.rewriteAt[l.rewrites%rewriteRing] = offset
}

// RewrittenSince returns the lowest offset from which rewrites numbered
// after n invalidated the log's files: bytes of batches
// at or above it may differ from what was written before. ok is false
// when those rewrites are too many to remember; then everything may
// differ. With none after n it is math.MaxInt64.
func (v View) RewrittenSince(n uint64) (low int64, ok bool) {
	l := v.l
	if n >= l.rewrites {
		return 1<<63 - 1, true
	}
	if l.rewrites-n > rewriteRing {
		return 0, false
	}
	low = int64(1<<63 - 1)
	for k := n + 1; k <= l.rewrites; k++ {
		low = min(low, l.rewriteAt[k%rewriteRing])
	}
	return low, true
}

// Same reports whether v and w view the same log (a replica re-created
// after a topic deletion has a new one).
func (v View) Same(w View) bool { return v.l == w.l }
