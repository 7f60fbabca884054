package log

// SegmentInfo describes one segment for display. Slices are fresh copies.
type SegmentInfo struct {
	File             string           // e.g. "00000000000000000042.log"
	BaseOffset       int64            // first offset the segment may hold
	NextOffset       int64            // offset after its last batch (BaseOffset if empty)
	SizeBytes        int64            // .log file size
	Batches          int              // number of batches
	Records          int              // number of records
	OffsetIndex      []IndexEntry     // .index entries (absolute offsets)
	TimeIndex        []TimeIndexEntry // .timeindex entries (absolute offsets)
	FlushedBytes     int64            // bytes of the file already on disk
	Created          int64            // virtual time the segment was opened
	LargestTimestamp int64            // LogSegment.largestTimestamp (max batch timestamp, else last modified)
	Active           bool             // last segment, taking appends
}

// SegmentCount is len(Segments()) without describing them (Segments
// walks every batch and copies every index: a snapshot, taken for every
// scene the page draws, only counts them).
func (l *Log) SegmentCount() int { return len(l.segs) }

// Segments describes every segment, oldest first.
func (l *Log) Segments() []SegmentInfo {
	out := make([]SegmentInfo, 0, len(l.segs))
	for _, s := range l.segs {
		out = append(out, l.info(s))
	}
	return out
}

func (l *Log) info(s *segment) SegmentInfo {
	recs := 0
	for _, b := range s.batches {
		recs += b.Len()
	}
	flushed := int64(s.size)
	if i := s.search(l.durable); i < len(s.batches) {
		flushed = int64(s.pos[i])
	}
	return SegmentInfo{
		File:             s.name,
		BaseOffset:       s.base,
		NextOffset:       s.end(),
		SizeBytes:        int64(s.size),
		Batches:          len(s.batches),
		Records:          recs,
		OffsetIndex:      append([]IndexEntry(nil), s.offIdx...),
		TimeIndex:        append([]TimeIndexEntry(nil), s.timeIdx...),
		FlushedBytes:     flushed,
		Created:          s.created,
		LargestTimestamp: s.largestTimestamp(),
		Active:           s == l.active(),
	}
}
