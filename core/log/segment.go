package log

import "strconv"

// noTimestamp is RecordBatch.NO_TIMESTAMP.
const noTimestamp = -1

// IndexEntry is one offset-index entry: an absolute offset and the byte
// position of the batch it points at (OffsetIndex stores offset-base as int32).
type IndexEntry struct {
	Offset   int64
	Position int32
}

// TimeIndexEntry is one time-index entry: a timestamp and the absolute offset
// of the batch holding it (TimeIndex stores offset-base as int32).
type TimeIndexEntry struct {
	Timestamp int64
	Offset    int64
}

// segment is one LogSegment. The parallel slices batches/pos/appended always
// have equal length; pos is strictly increasing and pos[0] == 0.
type segment struct {
	base     int64
	name     string   // 20-digit base offset + ".log"
	batches  []*Batch // shared read-only with callers; never overwritten in place
	pos      []int32  // file position of batches[i]
	appended []int64  // virtual time batches[i] entered the page cache
	size     int32    // file size in bytes

	offIdx     []IndexEntry
	timeIdx    []TimeIndexEntry
	bytesSince int // LogSegment.bytesSinceLastIndexEntry

	created      int64 // time the segment was opened (LogSegment.created)
	lastModified int64 // time of the last append (file mtime)
	rollingTs    int64 // max timestamp of the first batch (LogSegment.rollingBasedTimestamp); -1 if empty
	maxTs        int64 // maxTimestampSoFar; -1 when unknown
	maxTsOffset  int64 // offsetOfMaxTimestampSoFar (shallow: last offset of that batch)
}

// newSegment opens an empty segment; capHint pre-sizes the batch slices
// (the previous segment's batch count on roll) to avoid regrowth copies.
func newSegment(base, now int64, capHint int) *segment {
	capHint = max(capHint, 64)
	return &segment{base: base, name: segmentName(base), created: now, lastModified: now,
		rollingTs: noTimestamp, maxTs: noTimestamp, maxTsOffset: base,
		batches: make([]*Batch, 0, capHint), pos: make([]int32, 0, capHint), appended: make([]int64, 0, capHint)}
}

// segmentName is LogFileUtils.logFile's name: the base offset zero-padded to 20 digits + ".log".
func segmentName(base int64) string {
	var buf [32]byte
	d := strconv.AppendInt(buf[:0], base, 10)
	out := make([]byte, 0, 24)
	for i := len(d); i < 20; i++ {
		out = append(out, '0')
	}
	return string(append(append(out, d...), ".log"...))
}

// end is the offset after the segment's last batch, or base if it is empty.
func (s *segment) end() int64 {
	if n := len(s.batches); n > 0 {
		return s.batches[n-1].LastOffset() + 1
	}
	return s.base
}

// search returns the index of the first batch with LastOffset >= offset
// (len(batches) if none) — the batch FileRecords.searchForOffsetWithSize finds.
func (s *segment) search(offset int64) int {
	lo, hi := 0, len(s.batches)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.batches[m].LastOffset() < offset {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// endPos is the file position where batch j starts (the file size for j == len).
func (s *segment) endPos(j int) int32 {
	if j < len(s.pos) {
		return s.pos[j]
	}
	return s.size
}

// fitEnd returns the smallest j >= i such that batch j ends beyond position
// limit, or len(batches): batches i..j-1 all lie within [pos[i], limit].
func (s *segment) fitEnd(i int, limit int64) int {
	lo, hi := i, len(s.batches) // invariant: batches before lo end <= limit
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if int64(s.endPos(m+1)) <= limit {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// lookup is OffsetIndex.lookup: the slot of the largest entry with Offset <=
// offset, or -1 when there is none (Kafka then returns (baseOffset, 0)).
func (s *segment) lookup(offset int64) int {
	lo, hi := 0, len(s.offIdx)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.offIdx[m].Offset <= offset {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo - 1
}

// append is LogSegment.append for one batch at the current end of the file.
// The offset index gets (offset, start position of this batch) only when more
// than interval bytes were appended since the last entry, so the first batch
// of a segment is never indexed; the time index is offered
// (maxTimestampSoFar, offsetOfMaxTimestampSoFar) at the same moment and
// TimeIndex.maybeAppend keeps it only if the timestamp grew.
func (s *segment) append(b *Batch, now int64, interval int, lastOffsetInIndex bool) {
	p := s.size
	if p == 0 {
		s.rollingTs = b.MaxTimestamp()
	}
	if ts := b.MaxTimestamp(); ts > s.maxTs {
		s.maxTs, s.maxTsOffset = ts, b.LastOffset()
	}
	if s.bytesSince > interval {
		off := b.BaseOffset
		if lastOffsetInIndex {
			off = b.LastOffset()
		}
		s.offIdx = append(s.offIdx, IndexEntry{off, p})
		s.maybeAppendTime()
		s.bytesSince = 0
	}
	sz := b.Size()
	s.bytesSince += sz
	s.batches = append(s.batches, b)
	s.pos = append(s.pos, p)
	s.appended = append(s.appended, now)
	s.size += int32(sz)
	s.lastModified = now
}

// appendChunk is LogSegment.append(largestOffset, largestTimestamp,
// shallowOffsetOfMaxTimestamp, records) for several batches at once, as
// the cleaner appends one read chunk's retained batches: one
// offset-index entry at most, at the chunk's start position with its
// last offset (its first with lastOffsetInIndex unset), and one time-index
// offer. at is when each batch first entered the page cache.
func (s *segment) appendChunk(bs []*Batch, at []int64, interval int, lastOffsetInIndex bool) {
	p := s.size
	if p == 0 {
		s.rollingTs = bs[0].MaxTimestamp()
	}
	for _, b := range bs {
		if ts := b.MaxTimestamp(); ts > s.maxTs {
			s.maxTs, s.maxTsOffset = ts, b.LastOffset()
		}
	}
	if s.bytesSince > interval {
		off := bs[0].BaseOffset
		if lastOffsetInIndex {
			off = bs[len(bs)-1].LastOffset()
		}
		s.offIdx = append(s.offIdx, IndexEntry{off, p})
		s.maybeAppendTime()
		s.bytesSince = 0
	}
	for i, b := range bs {
		sz := int32(b.Size())
		s.batches = append(s.batches, b)
		s.pos = append(s.pos, s.size)
		s.appended = append(s.appended, at[i])
		s.size += sz
		s.bytesSince += int(sz)
	}
}

// maybeAppendTime is TimeIndex.maybeAppend(maxTimestampSoFar, offsetOfMaxTimestampSoFar):
// an entry is added only if the timestamp exceeds the last entry's (-1 when empty).
func (s *segment) maybeAppendTime() {
	last := int64(noTimestamp)
	if n := len(s.timeIdx); n > 0 {
		last = s.timeIdx[n-1].Timestamp
	}
	if s.maxTs > last {
		s.timeIdx = append(s.timeIdx, TimeIndexEntry{s.maxTs, s.maxTsOffset})
	}
}

// largestTimestamp is LogSegment.largestTimestamp: the max batch timestamp, or
// the file's last-modified time when no batch carries a timestamp.
func (s *segment) largestTimestamp() int64 {
	if s.maxTs >= 0 {
		return s.maxTs
	}
	return s.lastModified
}

// truncateTo is LogSegment.truncateTo: the file is cut at the position of the
// first batch with LastOffset >= offset (so a batch spanning offset is removed
// whole), index entries with offset >= offset are dropped, and
// bytesSinceLastIndexEntry is reset to 0. It returns the removed batches.
func (s *segment) truncateTo(offset, now int64) []*Batch {
	i, n := s.search(offset), len(s.batches)
	if i < n {
		s.size = s.pos[i]
	}
	removed := s.batches[i:n:n]
	// Cap the kept slices so later appends reallocate instead of overwriting
	// elements that earlier Read/Batches results may still reference.
	s.batches, s.pos, s.appended = s.batches[:i:i], s.pos[:i:i], s.appended[:i:i]
	s.offIdx = s.offIdx[:s.lookup(offset-1)+1]
	k := len(s.timeIdx)
	for k > 0 && s.timeIdx[k-1].Offset >= offset {
		k--
	}
	s.timeIdx = s.timeIdx[:k]
	s.bytesSince = 0
	if s.size == 0 {
		s.created, s.rollingTs = now, noTimestamp
	}
	s.recomputeMaxTs()
	return removed
}

// recomputeMaxTs rebuilds maxTimestampSoFar and its offset from the remaining
// batches (LogSegment.readLargestTimestamp: last time-index entry, then a scan).
func (s *segment) recomputeMaxTs() {
	s.maxTs, s.maxTsOffset = noTimestamp, s.base
	for _, b := range s.batches {
		if ts := b.MaxTimestamp(); ts > s.maxTs {
			s.maxTs, s.maxTsOffset = ts, b.LastOffset()
		}
	}
}

// recover is LogSegment.recover after an unclean shutdown: both indexes are
// rebuilt from the batches with the same byte-interval rule as append
// (validBytes - lastIndexEntry > interval), then the segment's largest
// timestamp is appended to the time index as on a clean close.
func (s *segment) recover(interval int, lastOffsetInIndex bool) {
	s.offIdx, s.timeIdx = s.offIdx[:0:0], s.timeIdx[:0:0]
	s.maxTs, s.maxTsOffset = noTimestamp, s.base
	lastEntry := int32(0)
	for i, b := range s.batches {
		if ts := b.MaxTimestamp(); ts > s.maxTs {
			s.maxTs, s.maxTsOffset = ts, b.LastOffset()
		}
		if int(s.pos[i]-lastEntry) > interval {
			off := b.BaseOffset
			if lastOffsetInIndex {
				off = b.LastOffset()
			}
			s.offIdx = append(s.offIdx, IndexEntry{off, s.pos[i]})
			s.maybeAppendTime()
			lastEntry = s.pos[i]
		}
	}
	s.maybeAppendTime()
	s.bytesSince = 0 // a freshly loaded LogSegment starts counting from 0
}
