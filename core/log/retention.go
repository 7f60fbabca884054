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
// the deleted segments as they were. The third rule of deleteOldSegments,
// deleteLogStartOffsetBreachedSegments, is DeleteBelowStart; Kafka runs it
// first (3.x) or last (0.11), which deletes the same oldest segments
// either way, since each rule deletes a prefix and the size rule's diff
// falls by exactly the size of what went before it.
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
			out = l.deleteOld(highWatermark, now, out, func(s *segment, _ int64, _ bool) bool {
				if diff-int64(s.size) >= 0 {
					diff -= int64(s.size)
					return true
				}
				return false
			})
		}
	}
	if rm := l.cfg.RetentionMs; rm >= 0 {
		out = l.deleteOld(highWatermark, now, out, func(s *segment, _ int64, _ bool) bool {
			return now-s.largestTimestamp() > rm
		})
	}
	return out
}

// DeleteBelowStart is UnifiedLog.deleteLogStartOffsetBreachedSegments (KIP-107,
// 0.11): every segment whose next segment starts at or below the log start
// offset goes, whatever the cleanup policy; the last segment never does. A
// follower's log start moves up with the leader's (IncrementStartOffset)
// before any of its own retention rules would let it delete, and this is
// what then deletes the segments left below it at the next retention check.
func (l *Log) DeleteBelowStart(now, highWatermark int64) []SegmentInfo {
	l.tick(now)
	return l.deleteOld(highWatermark, now, nil, func(_ *segment, next int64, last bool) bool {
		return !last && next <= l.startOffset
	})
}

// IncrementStartOffset is UnifiedLog.maybeIncrementLogStartOffset: the log
// start offset moves up to offset (never down), segments stay until
// DeleteBelowStart, and reads below it are out of range at once. It
// reports whether it moved. Kafka refuses an offset above the high
// watermark (OffsetOutOfRangeException); here nothing moves. The caller
// truncates its EpochCache from the start, as Kafka does.
func (l *Log) IncrementStartOffset(offset, highWatermark int64) bool {
	if offset <= l.startOffset || offset > highWatermark || offset > l.leo {
		return false
	}
	l.startOffset = offset
	return true
}

// deleteOld is UnifiedLog.deletableSegments + deleteSegments for one predicate,
// which gets the segment, its upper bound (the next segment's base, or LEO)
// and whether it is the last one. The predicate is evaluated only when the
// high-watermark bound holds, as in Kafka's short-circuit
// `highWatermark >= upperBoundOffset && predicate`.
func (l *Log) deleteOld(hw, now int64, out []SegmentInfo, pred func(s *segment, upper int64, last bool) bool) []SegmentInfo {
	n := 0
	for n < len(l.segs) {
		s := l.segs[n]
		last := n == len(l.segs)-1
		upper := l.leo
		if !last {
			upper = l.segs[n+1].base
		}
		if !(hw >= upper && pred(s, upper, last)) || (last && s.size == 0) {
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
