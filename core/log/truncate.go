package log

// TruncateTo removes every offset >= offset (UnifiedLog.truncateTo,
// LocalLog.truncateTo, LogSegment.truncateTo) and returns the removed batches
// in order. It does nothing if offset >= LEO or offset < 0.
//
// Segments with base > offset are deleted (a segment whose base equals offset
// is kept, empty, as the active segment); if even the first segment starts
// after offset the log is emptied with TruncateFullyAndStartAt. The remaining
// active segment is cut at the position of the first batch with
// LastOffset >= offset, so a batch spanning offset (BaseOffset < offset <=
// LastOffset) is removed whole — Kafka never splits a batch. LEO is then set
// to offset exactly as LocalLog.updateLogEndOffset does, even in that
// mid-batch case, which leaves offsets [spanning.BaseOffset, offset) absent (a
// gap, as after compaction). Real truncation points (epoch end offsets, high
// watermarks) are batch boundaries, where LEO equals the last kept batch's
// end. The recovery point and durable point move down to offset if above it,
// and the log start offset becomes min(offset, StartOffset).
func (l *Log) TruncateTo(offset int64) []*Batch {
	if offset < 0 || offset >= l.leo {
		return nil
	}
	if l.segs[0].base > offset {
		removed := l.Batches(0)
		l.TruncateFullyAndStartAt(offset)
		return removed
	}
	si := l.floor(offset)
	removed := l.segs[si].truncateTo(offset, l.clock)
	if si < len(l.segs)-1 {
		removed = append([]*Batch(nil), removed...)
		for k := si + 1; k < len(l.segs); k++ {
			removed = append(removed, l.segs[k].batches...)
			l.segs[k] = nil
		}
		l.segs = l.segs[:si+1]
	}
	l.leo = offset
	l.cleanedTo = min(l.cleanedTo, offset) // LogCleanerManager.maybeTruncateCheckpoint
	l.rewrote(offset)
	l.recoveryPt = min(l.recoveryPt, offset)
	l.durable = min(l.durable, offset)
	l.startOffset = min(l.startOffset, offset)
	l.writebackSeg = 0
	return removed
}

// TruncateFullyAndStartAt deletes all segments and starts an empty log at
// offset (LocalLog.truncateFullyAndStartAt): one new segment with base offset,
// LEO = StartOffset = offset, recovery point lowered to offset if above it.
func (l *Log) TruncateFullyAndStartAt(offset int64) {
	for i := range l.segs {
		l.segs[i] = nil
	}
	l.segs = append(l.segs[:0], newSegment(offset, l.clock, 0))
	l.leo, l.startOffset = offset, offset
	l.rewrote(offset)
	l.recoveryPt = min(l.recoveryPt, offset)
	l.durable = offset
	l.writebackSeg = 0
}

// LosePageCache models a power failure followed by Kafka's log recovery and
// returns the batches that were lost. Everything not yet on disk (see
// IsFlushed) vanishes, so the log is truncated to DurableOffset. Batches that
// OS writeback had already written survive even beyond the recovery point:
// LogLoader.recoverLog re-reads the segments from the recovery point on with
// LogSegment.recover, which keeps every valid batch and rebuilds both indexes
// (fact sheet §6.7: a simultaneous crash loses acked, unflushed data).
func (l *Log) LosePageCache() []*Batch {
	var lost []*Batch
	if l.durable < l.leo {
		lost = l.TruncateTo(l.durable)
	}
	si := max(l.floor(l.recoveryPt), 0)
	for _, s := range l.segs[si:] {
		s.recover(l.cfg.IndexIntervalBytes, l.cfg.IndexLastOffset)
	}
	l.durable = l.leo
	l.rewrote(l.leo)
	return lost
}
