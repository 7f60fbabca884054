package log

// Page cache vs disk. Every appended batch is first only in the page cache.
// Kafka never fsyncs on ack: flush.messages and flush.ms default to
// Long.MAX_VALUE, and only the rolled segment is flushed (fact sheet §6.7,
// UnifiedLog.roll). The OS writes dirty pages back on its own after
// vm.dirty_expire_centisecs. Two offsets are tracked:
//   - RecoveryPoint: Kafka's recovery-point-offset-checkpoint, moved only by
//     Kafka's own flushes (Flush, roll).
//   - DurableOffset: how far the data is really on disk; also moved by
//     Writeback. DurableOffset >= RecoveryPoint.

// RecoveryPoint is Kafka's recovery point: offsets below it were fsynced by
// Kafka (LocalLog.recoveryPoint). It only moves down on truncation.
func (l *Log) RecoveryPoint() int64 { return l.recoveryPt }

// DurableOffset is the offset below which every batch is on disk, whether
// Kafka fsynced it or the OS wrote it back. LosePageCache truncates here.
func (l *Log) DurableOffset() int64 { return l.durable }

// IsFlushed reports whether the record at offset is on disk (offset < DurableOffset).
func (l *Log) IsFlushed(offset int64) bool { return offset < l.durable }

// Flush is UnifiedLog.flush(upTo, exclusive): if upTo is above the recovery
// point, every segment holding offsets in [RecoveryPoint, upTo) is fsynced
// whole (LocalLog.flush flushes files, so later batches of the last such
// segment become durable too) and the recovery point becomes upTo, capped at LEO.
func (l *Log) Flush(upTo int64) {
	upTo = min(upTo, l.leo)
	if upTo > l.recoveryPt {
		l.flushTo(upTo)
	}
}

// flushTo fsyncs the segments covering [recoveryPt, upTo) and marks the
// recovery point at upTo (LocalLog.flush + markFlushed).
func (l *Log) flushTo(upTo int64) {
	last := l.floor(upTo - 1)
	if last >= 0 {
		l.durable = max(l.durable, l.segs[last].end(), upTo)
	}
	l.durable = min(l.durable, l.leo)
	l.recoveryPt = max(l.recoveryPt, upTo)
}

// Writeback is the OS background writeback: batches that entered the page
// cache at or before now-dirtyExpireMs (Linux vm.dirty_expire_centisecs; the
// caller uses 30 s) are written to disk. It reports whether anything new
// became durable. The recovery point does not move: Kafka does not know.
func (l *Log) Writeback(now, dirtyExpireMs int64) bool {
	l.tick(now)
	cutoff := now - dirtyExpireMs
	before := l.durable
	si := l.writebackSeg
	if si >= len(l.segs) || l.segs[si].base > l.durable {
		si = max(l.floor(l.durable), 0)
	}
	for ; si < len(l.segs); si++ {
		s := l.segs[si]
		i := s.search(l.durable)
		for ; i < len(s.batches) && s.appended[i] <= cutoff; i++ {
			l.durable = s.batches[i].LastOffset() + 1
		}
		l.writebackSeg = si
		if i < len(s.batches) {
			break
		}
	}
	return l.durable > before
}
