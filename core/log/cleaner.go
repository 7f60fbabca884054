package log

import "math"

// Log compaction, as LogCleaner@3.9 (Cleaner.doClean, cleanSegments,
// cleanInto, groupSegmentsBySize, buildOffsetMap) and LogCleanerManager@3.9
// (cleanableOffsets, calculateCleanableBytes, grabFilthiestCompactedLog)
// do it for one log, in virtual time and without I/O. Invariants a clean
// keeps:
//   - offsets never change: a kept batch keeps its BaseOffset and its
//     header's last offset, a dropped record leaves a gap (OffsetDeltas);
//   - only offsets below the first uncleanable offset (a segment base, at
//     most the active segment's, the high watermark's segment and the
//     min.compaction.lag.ms segment) are rewritten: the active segment
//     and everything above it are untouched;
//   - below it, a record stays only if it is the latest of its key in the
//     offset map built over the dirty section [checkpoint, uncleanable),
//     or lies above that map; a tombstone (null value) stays until the
//     delete horizon its batch got when first cleaned (KIP-534, 3.1+:
//     now + delete.retention.ms) has passed; a record without a key goes
//     (Kafka refuses one at produce time: LogValidator, "Compacted topic
//     cannot accept message without key");
//   - an idempotent producer's last batch stays even with no records
//     left (BatchRetention.RETAIN_EMPTY), so its sequence survives;
//   - the cleaned groups replace their segments in place, named by the
//     first one's base, so segments other than the last may now be empty.

// cleanerIOBufferBytes is one cleaner read chunk: log.cleaner.io.buffer.size
// (512 KiB) split between the read and write buffers. Kafka appends the
// retained batches of one chunk to the cleaned segment with one
// LogSegment.append, so the offset index gets at most one entry per chunk.
const cleanerIOBufferBytes = 512 * 1024 / 2

// ToClean is LogToClean: the cleanable section of a log. FirstDirty is
// where the dirty section starts (the cleaner checkpoint, reset to the log
// start offset when out of range) and FirstUncleanable where cleaning
// stops, a segment base >= FirstDirty's segment; CleanBytes is the size of
// the segments before FirstDirty's, CleanableBytes of those from it up to
// FirstUncleanable. NeedNow is max.compaction.lag.ms overdue.
type ToClean struct {
	FirstDirty, FirstUncleanable int64
	CleanBytes, CleanableBytes   int64
	NeedNow                      bool
}

// Ratio is LogToClean.cleanableRatio: cleanable bytes over total bytes
// (0 for an empty log).
func (t ToClean) Ratio() float64 {
	total := t.CleanBytes + t.CleanableBytes
	if total == 0 {
		return 0
	}
	return float64(t.CleanableBytes) / float64(total)
}

// Cleanable is grabFilthiestCompactedLog's filter: something to clean and
// either overdue or dirtier than min.cleanable.dirty.ratio (strictly).
func (t ToClean) Cleanable(minRatio float64) bool {
	if t.CleanBytes+t.CleanableBytes == 0 {
		return false
	}
	return t.NeedNow && t.CleanableBytes > 0 || t.Ratio() > minRatio
}

// CleanerCheckpoint is the log's entry in cleaner-offset-checkpoint: the
// first offset not yet cleaned, and whether the log has one (a log never
// cleaned has none and starts dirty at its log start offset).
func (l *Log) CleanerCheckpoint() (int64, bool) { return l.cleanedTo, l.hasCleaned }

// ToClean is LogCleanerManager.cleanableOffsets + LogToClean for this log
// at now, lastStable being the last stable offset (the high watermark:
// no transactions are modelled).
func (l *Log) ToClean(lastStable, now int64) ToClean {
	dirty := l.startOffset
	if l.hasCleaned && l.cleanedTo >= l.startOffset && l.cleanedTo <= l.leo {
		dirty = l.cleanedTo
	}
	act := len(l.segs) - 1
	unclean := min(lastStable, l.segs[act].base)
	if lag := l.cfg.MinCompactionLagMs; lag > 0 {
		for i := max(l.floor(dirty), 0); i < act; i++ {
			if l.segs[i].largestTimestamp() > now-lag {
				unclean = min(unclean, l.segs[i].base)
				break
			}
		}
	}
	unclean = max(unclean, dirty)
	// calculateCleanableBytes: round down to the segment holding it.
	us := max(l.floor(unclean), 0)
	t := ToClean{FirstDirty: dirty, FirstUncleanable: l.segs[us].base}
	t.CleanBytes = l.bytesIn(-1, dirty)
	t.CleanableBytes = l.bytesIn(min(dirty, t.FirstUncleanable), t.FirstUncleanable)
	t.NeedNow = l.compactionDelay(dirty, now) > 0
	return t
}

// bytesIn is the size of UnifiedLog.logSegments(from, to): the segments
// from the one holding from (the first when from is below it) with a base
// below to.
func (l *Log) bytesIn(from, to int64) int64 {
	n := int64(0)
	for i := max(l.floor(from), 0); i < len(l.segs) && l.segs[i].base < to; i++ {
		n += int64(l.segs[i].size)
	}
	return n
}

// compactionDelay is LogCleanerManager.maxCompactionDelay: how long past
// max.compaction.lag.ms the earliest first-batch timestamp of the dirty
// inactive segments is (0 if not).
func (l *Log) compactionDelay(dirty, now int64) int64 {
	lag := max(l.cfg.MaxCompactionLagMs, 0)
	if lag == math.MaxInt64 {
		return 0
	}
	earliest := int64(math.MaxInt64)
	for i := max(l.floor(dirty), 0); i < len(l.segs)-1; i++ {
		if s := l.segs[i]; len(s.batches) > 0 && s.batches[0].MaxTimestamp() > 0 {
			earliest = min(earliest, s.batches[0].MaxTimestamp())
		}
	}
	if until := now - lag; earliest < until {
		return until - earliest
	}
	return 0
}

// OffsetMap is Kafka's OffsetMap (SkimpyOffsetMap): each key's latest
// offset in the dirty section, and the latest offset the map covers.
// Kafka keys it by the key's MD5 in a fixed buffer
// (log.cleaner.dedupe.buffer.size) and may fill it and clean less; here
// it is exact and never full.
type OffsetMap struct {
	offsets map[string]int64
	latest  int64
}

// get is OffsetMap.get: the key's latest offset, or -1.
func (m *OffsetMap) get(key string) int64 {
	if o, ok := m.offsets[key]; ok {
		return o
	}
	return -1
}

// buildOffsetMap is Cleaner.buildOffsetMap over [start, end): every keyed
// record at or after start is put, and the latest offset is fast-forwarded
// to end-1 (the gap case of buildOffsetMapForSegment).
func (l *Log) buildOffsetMap(start, end int64) *OffsetMap {
	m := &OffsetMap{offsets: map[string]int64{}, latest: -1}
	for _, s := range l.segs {
		if s.base >= end || s.end() <= start {
			continue
		}
		for _, b := range s.batches[s.search(start):] {
			for i := range b.Len() {
				if o := b.Offset(i); o >= start {
					if r := b.Record(i); r.HasKey {
						m.offsets[r.Key] = o
					}
				}
			}
			if b.LastOffset() >= start {
				m.latest = max(m.latest, b.LastOffset())
			}
		}
	}
	m.latest = max(m.latest, end-1)
	return m
}

// CleanedSegment describes one group of segments a clean replaced.
type CleanedSegment struct {
	File             string   // the cleaned segment's name (the group's first base)
	Replaced         []string // the segment files it replaced, oldest first
	BytesBefore      int64
	BytesAfter       int64
	RecordsBefore    int
	RecordsAfter     int
	TombstonesKept   int // null-value records still in it
	TombstonesPurged int // null-value records removed past their delete horizon
}

// Cleaned is the result of Clean: the checkpoint it moved to
// (Cleaner.doClean's endOffset) and the groups it rewrote.
type Cleaned struct {
	From, To int64
	Segments []CleanedSegment
}

// Clean is Cleaner.doClean for t (from ToClean at the same now): it builds
// the offset map over the dirty section, rewrites every segment below the
// map's end in groups of at most segment.bytes, and moves the cleaner
// checkpoint to that end (LogCleanerManager.doneCleaning). lastOfProducer
// gives each idempotent producer's last data offset
// (UnifiedLog.lastRecordsOfActiveProducers); nil means read them from
// the log. A t with nothing cleanable changes nothing.
func (l *Log) Clean(t ToClean, now int64) Cleaned {
	l.tick(now)
	if t.CleanableBytes == 0 {
		return Cleaned{From: t.FirstDirty, To: t.FirstDirty}
	}
	m := l.buildOffsetMap(t.FirstDirty, t.FirstUncleanable)
	end := m.latest + 1
	lastOf := l.lastOfProducers()
	var cut int
	for cut < len(l.segs) && l.segs[cut].base < end {
		cut++
	}
	out := Cleaned{From: t.FirstDirty, To: end}
	var fresh []*segment
	for _, g := range l.groupSegmentsBySize(l.segs[:cut], t.FirstUncleanable) {
		s, info := l.cleanSegments(g, m, lastOf, now)
		fresh = append(fresh, s)
		out.Segments = append(out.Segments, info)
	}
	l.segs = append(fresh, l.segs[cut:]...)
	l.writebackSeg = 0
	l.cleanedTo, l.hasCleaned = end, true
	if len(out.Segments) > 0 {
		l.rewrote(l.segs[0].base)
	}
	return out
}

// lastOfProducers is lastRecordsOfActiveProducers read from the log: each
// producer id's last batch's last offset. Producer expiry
// (producer.id.expiration.ms) is not modelled: every producer in the log
// is active.
func (l *Log) lastOfProducers() map[int64]int64 {
	out := map[int64]int64{}
	for _, s := range l.segs {
		for _, b := range s.batches {
			if b.ProducerID >= 0 {
				out[b.ProducerID] = b.LastOffset()
			}
		}
	}
	return out
}

// groupSegmentsBySize is Cleaner.groupSegmentsBySize: consecutive segments
// joined while the group's log bytes stay <= segment.bytes, its offset and
// time index bytes <= segment.index.bytes, and its offsets fit an int32
// relative offset (the last offset of a segment estimated by the next
// one's base, or firstUncleanable-1 for the last); an empty segment always
// joins.
func (l *Log) groupSegmentsBySize(segs []*segment, firstUncleanable int64) [][]*segment {
	var out [][]*segment
	for len(segs) > 0 {
		g := segs[:1]
		logSize, idx, tidx := int64(segs[0].size), int64(len(segs[0].offIdx)*8), int64(len(segs[0].timeIdx)*12)
		segs = segs[1:]
		for len(segs) > 0 {
			n := segs[0]
			lastOff := firstUncleanable - 1
			if len(segs) > 1 {
				lastOff = segs[1].base - 1
			}
			if logSize+int64(n.size) > l.cfg.SegmentBytes || idx+int64(len(n.offIdx)*8) > int64(l.cfg.IndexMaxBytes) ||
				tidx+int64(len(n.timeIdx)*12) > int64(l.cfg.IndexMaxBytes) ||
				n.size != 0 && lastOff-g[len(g)-1].base > maxInt32 {
				break
			}
			g = g[:len(g)+1]
			logSize, idx, tidx = logSize+int64(n.size), idx+int64(len(n.offIdx)*8), tidx+int64(len(n.timeIdx)*12)
			segs = segs[1:]
		}
		out = append(out, g)
	}
	return out
}

// cleanSegments is Cleaner.cleanSegments: the group's batches, filtered
// by cleanInto, are appended chunk by chunk to a new segment at the first
// one's base, whose time index is closed (onBecomeInactiveSegment) and
// whose last-modified time is the group's last segment's.
func (l *Log) cleanSegments(g []*segment, m *OffsetMap, lastOf map[int64]int64, now int64) (*segment, CleanedSegment) {
	dst := newSegment(g[0].base, now, 0)
	info := CleanedSegment{File: dst.name}
	for _, s := range g {
		info.Replaced = append(info.Replaced, s.name)
		info.BytesBefore += int64(s.size)
		start := 0
		for start < len(s.batches) {
			// One read chunk: whole batches within the I/O buffer (at least one).
			end := max(s.fitEnd(start, int64(s.pos[start])+cleanerIOBufferBytes), start+1)
			var kept []*Batch
			var at []int64
			for i := start; i < end; i++ {
				b := s.batches[i]
				info.RecordsBefore += b.Len()
				nb, purged := l.cleanBatch(b, m, lastOf, now)
				info.TombstonesPurged += purged
				if nb != nil {
					kept, at = append(kept, nb), append(at, s.appended[i])
				}
			}
			if len(kept) > 0 {
				dst.appendChunk(kept, at, l.cfg.IndexIntervalBytes, l.cfg.IndexLastOffset)
			}
			start = end
		}
	}
	dst.maybeAppendTime()
	dst.lastModified = g[len(g)-1].lastModified
	for _, b := range dst.batches {
		info.RecordsAfter += b.Len()
		for i := range b.Len() {
			if b.Record(i).NullValue {
				info.TombstonesKept++
			}
		}
	}
	info.BytesAfter = int64(dst.size)
	return dst, info
}

// cleanBatch is cleanInto's RecordFilter and MemoryRecords.filterTo for
// one batch: the batch itself when every record stays and no delete
// horizon needs setting (writeOriginalBatch), a rewritten batch with the
// kept records at their offsets, or nil when nothing stays and it is not
// its producer's last batch. It also returns the tombstones it purged.
func (l *Log) cleanBatch(b *Batch, m *OffsetMap, lastOf map[int64]int64, now int64) (*Batch, int) {
	var keep []int
	purged, tombstones := 0, false
	for i := range b.Len() {
		r := b.Record(i)
		ok, purge := l.shouldRetainRecord(m, b, b.Offset(i), &r, now)
		if purge {
			purged++
		}
		if ok {
			keep = append(keep, i)
			tombstones = tombstones || r.NullValue
		}
	}
	setHorizon := tombstones && !b.HasDeleteHorizon
	last, isLast := lastOf[b.ProducerID]
	retainEmpty := b.ProducerID >= 0 && isLast && last == b.LastOffset()
	if len(keep) == 0 && !retainEmpty {
		// An emptied batch goes too once a later batch of its producer
		// exists (BatchRetention.DELETE_EMPTY), one already empty included.
		return nil, purged
	}
	if len(keep) == b.Len() && !setHorizon {
		return b, purged
	}
	nb := &Batch{BaseOffset: b.BaseOffset, Epoch: b.Epoch, ProducerID: b.ProducerID, ProducerEpoch: b.ProducerEpoch,
		BaseSequence: b.BaseSequence, LogAppendTime: b.LogAppendTime, AppendTime: b.AppendTime,
		Records: make([]Record, 0, len(keep)), OffsetDeltas: make([]int32, 0, len(keep)),
		LastOffsetDelta:  int32(b.LastOffset() - b.BaseOffset),
		HasDeleteHorizon: b.HasDeleteHorizon, DeleteHorizonMs: b.DeleteHorizonMs}
	if setHorizon {
		nb.HasDeleteHorizon, nb.DeleteHorizonMs = true, now+l.cfg.DeleteRetentionMs
	}
	if len(keep) == 0 {
		// DefaultRecordBatch.writeEmptyHeader: no records, no delete
		// horizon, the original max timestamp (and NO_TIMESTAMP as the
		// header's base, which the encoders write for an empty batch).
		nb.HasDeleteHorizon, nb.DeleteHorizonMs, nb.Timestamp = false, 0, b.MaxTimestamp()
		return nb, purged
	}
	// MemoryRecordsBuilder's baseTimestamp (buildRetainedRecordsInto):
	// the delete horizon when the batch has one (KIP-534: the header's
	// base timestamp carries it, attributes bit 6 says so), else the
	// first kept record's timestamp (a LogAppendTime batch's records all
	// read as its append time). The kept records' deltas are re-based on
	// it, so each still reads the timestamp it had (negative deltas under
	// a horizon, which lies ahead of them).
	nb.Timestamp = b.RecordTimestamp(keep[0])
	if nb.HasDeleteHorizon {
		nb.Timestamp = nb.DeleteHorizonMs
	}
	for _, i := range keep {
		r := cloneRecord(b.Record(i))
		r.TimestampDelta = b.RecordTimestamp(i) - nb.Timestamp
		nb.Records = append(nb.Records, r)
		nb.OffsetDeltas = append(nb.OffsetDeltas, int32(b.Offset(i)-b.BaseOffset))
	}
	return nb, purged
}

// shouldRetainRecord is Cleaner.shouldRetainRecord for a v2 record at
// offset o: above the map's latest offset it stays; without a key it goes;
// else it stays if it is its key's latest and has a value or its batch's
// delete horizon (if any) has not passed. purge reports a latest
// tombstone removed for its horizon.
func (l *Log) shouldRetainRecord(m *OffsetMap, b *Batch, o int64, r *Record, now int64) (keep, purge bool) {
	if o > m.latest {
		return true, false
	}
	if !r.HasKey {
		return false, false
	}
	latest := o >= m.get(r.Key)
	retainDelete := !b.HasDeleteHorizon || now < b.DeleteHorizonMs
	if latest && r.NullValue && !retainDelete {
		return false, true
	}
	return latest && (!r.NullValue || retainDelete), false
}

// cloneRecord copies r's strings, so a kept record does not hold on to
// the whole records section of the packed batch it came from.
func cloneRecord(r Record) Record {
	r.Key, r.Value = cloneString(r.Key), cloneString(r.Value)
	if r.Headers != nil {
		hs := make([]Header, len(r.Headers))
		for i, h := range r.Headers {
			hs[i] = Header{Key: cloneString(h.Key), Value: cloneString(h.Value), Null: h.Null}
		}
		r.Headers = hs
	}
	return r
}

func cloneString(s string) string {
	if s == "" {
		return ""
	}
	return string(append([]byte(nil), s...))
}
