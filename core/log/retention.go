package log

// ApplyRetention is UnifiedLog.deleteOldSegments for cleanup.policy=delete:
// first retention.bytes, then retention.ms, each through deletableSegments
// (fact sheet §2 "Retention"). Whole segments are deleted from the oldest on,
// stopping at the first one that fails; a segment is deletable only if the
// high watermark has reached its upper bound (the next segment's base, or LEO
// for the last segment) and it is not the last segment while empty.
// Size rule: with diff = total size - retention.bytes (skip if negative),
// delete while diff - segment size >= 0. Time rule: delete while
// now - largest timestamp > retention.ms. If every segment goes, a new active
// segment is rolled at LEO first. StartOffset advances to the base offset of
// the first remaining segment. The caller must also truncate its EpochCache
// from the start (UnifiedLog.maybeIncrementLogStartOffset does). It returns
// the deleted segments as they were.
func (l *Log) ApplyRetention(now, highWatermark int64) []SegmentInfo {
	l.tick(now)
	var out []SegmentInfo
	if rb := l.cfg.RetentionBytes; rb >= 0 {
		total := int64(0)
		for _, s := range l.segs {
			total += int64(s.size)
		}
		if total >= rb {
			diff := total - rb
			out = l.deleteOld(highWatermark, now, out, func(s *segment) bool {
				if diff-int64(s.size) >= 0 {
					diff -= int64(s.size)
					return true
				}
				return false
			})
		}
	}
	if rm := l.cfg.RetentionMs; rm >= 0 {
		out = l.deleteOld(highWatermark, now, out, func(s *segment) bool {
			return now-s.largestTimestamp() > rm
		})
	}
	return out
}

// deleteOld is UnifiedLog.deletableSegments + deleteSegments for one predicate.
// The predicate is evaluated only when the high-watermark bound holds, as in
// Kafka's short-circuit `highWatermark >= upperBoundOffset && predicate`.
func (l *Log) deleteOld(hw, now int64, out []SegmentInfo, pred func(*segment) bool) []SegmentInfo {
	n := 0
	for n < len(l.segs) {
		s := l.segs[n]
		last := n == len(l.segs)-1
		upper := l.leo
		if !last {
			upper = l.segs[n+1].base
		}
		if !(hw >= upper && pred(s)) || (last && s.size == 0) {
			break
		}
		n++
	}
	if n == 0 {
		return out
	}
	if n == len(l.segs) {
		l.roll(now) // "we must always have at least one segment"
	}
	for i := 0; i < n; i++ {
		out = append(out, l.info(l.segs[i]))
		l.segs[i] = nil
	}
	l.segs = l.segs[n:]
	l.startOffset = max(l.startOffset, l.segs[0].base)
	l.writebackSeg = 0
	return out
}
