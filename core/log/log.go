package log

import (
	"errors"
	"fmt"
)

// Log is one replica's log of one partition: a non-empty list of segments in
// base-offset order, the last of which is active. Invariants:
// segs[i].base < segs[i+1].base; every batch of segs[i] has offsets in
// [segs[i].base, segs[i+1].base); segs[0].base <= StartOffset <= LEO; and
// RecoveryPoint <= DurableOffset <= LEO. Only the last segment can be
// empty, but for segments a clean emptied (Clean).
type Log struct {
	cfg          Config
	maxOffIdx    int // OffsetIndex.maxEntries = IndexMaxBytes/8
	maxTimeIdx   int // TimeIndex.maxEntries = IndexMaxBytes/12
	segs         []*segment
	leo          int64              // log end offset (LocalLog.nextOffsetMetadata)
	startOffset  int64              // log start offset
	recoveryPt   int64              // Kafka's recovery point: advanced only by Flush and roll
	durable      int64              // offsets below this are on disk (Flush, roll or OS writeback)
	clock        int64              // latest virtual time seen, used where Kafka reads the wall clock
	writebackSeg int                // hint: segment index holding the durable point
	rewrites     uint64             // truncations and recoveries so far (View.Rewrites)
	rewriteAt    [rewriteRing]int64 // offset of rewrite n at n%rewriteRing (View.RewrittenSince)
	cleanedTo    int64              // cleaner-offset-checkpoint entry, when hasCleaned
	hasCleaned   bool
}

// ErrBatchTooLarge is returned by Append for a batch larger than
// log.segment.bytes (UnifiedLog.append: RecordBatchTooLargeException).
var ErrBatchTooLarge = errors.New("record batch too large for segment")

// ErrBadAppend is returned by Append for an empty batch or one whose
// BaseOffset is not the log end offset.
var ErrBadAppend = errors.New("bad append")

// New returns an empty log with one active segment at base offset 0.
func New(cfg Config, now int64) *Log {
	cfg = cfg.normalize()
	return &Log{
		cfg:        cfg,
		maxOffIdx:  cfg.IndexMaxBytes / 8,
		maxTimeIdx: cfg.IndexMaxBytes / 12,
		segs:       []*segment{newSegment(0, now, 0)},
		clock:      now,
	}
}

// Config returns the log's (normalized) configuration.
func (l *Log) Config() Config { return l.cfg }

// SetConfig replaces the log's config, as UnifiedLog.updateConfig does when
// a topic's configs change at runtime: segment.bytes and segment.ms decide
// the next roll, index.interval.bytes the next appends, retention.* the
// next retention check. Segments already written stay as they are.
func (l *Log) SetConfig(cfg Config) { l.cfg = cfg.normalize() }

// LEO is the log end offset: the offset the next appended batch must carry.
func (l *Log) LEO() int64 { return l.leo }

// StartOffset is the log start offset; it advances with retention.
func (l *Log) StartOffset() int64 { return l.startOffset }

func (l *Log) active() *segment { return l.segs[len(l.segs)-1] }

func (l *Log) tick(now int64) {
	if now > l.clock {
		l.clock = now
	}
}

// Append adds b at the end of the log, rolling a new segment first when
// LogSegment.shouldRoll says so. b.BaseOffset must equal LEO. The batch is
// stored by pointer and must not be modified afterwards.
func (l *Log) Append(b *Batch, now int64) error { return l.append(b, now, false) }

// AppendAsFollower is Append for a batch a follower fetched
// (UnifiedLog.appendAsFollower): its BaseOffset may be above LEO, since
// a leader's compacted log has gaps where whole batches went (Kafka
// refuses only a batch below the end: UnexpectedAppendOffsetException);
// LEO becomes its last offset + 1. A cleaned batch may have no records.
func (l *Log) AppendAsFollower(b *Batch, now int64) error { return l.append(b, now, true) }

func (l *Log) append(b *Batch, now int64, follower bool) error {
	if b.BaseOffset < l.leo || !follower && b.BaseOffset != l.leo || (b.Len() == 0 && b.OffsetDeltas == nil) ||
		(b.Packed != nil && b.Records != nil) {
		return fmt.Errorf("%w: batch at offset %d with %d records, log end offset %d",
			ErrBadAppend, b.BaseOffset, b.Len(), l.leo)
	}
	size := b.Size()
	if int64(size) > l.cfg.SegmentBytes {
		return fmt.Errorf("%w: %d bytes > segment.bytes %d", ErrBatchTooLarge, size, l.cfg.SegmentBytes)
	}
	l.tick(now)
	if l.shouldRoll(l.active(), b, size, now) {
		l.roll(now)
	}
	l.active().append(b, now, l.cfg.IndexIntervalBytes, l.cfg.IndexLastOffset)
	l.leo = b.LastOffset() + 1
	return nil
}

// shouldRoll is LogSegment.shouldRoll without jitter (fact sheet §2 "Roll if"):
// the segment would exceed segment.bytes; or it is non-empty and segment.ms
// has elapsed since its first batch's timestamp (or since creation when the
// first batch has no timestamp); or either index is full; or the batch's last
// offset does not fit in an int32 relative offset.
func (l *Log) shouldRoll(s *segment, b *Batch, size int, now int64) bool {
	waited := now - s.created
	if s.rollingTs >= 0 {
		waited = b.MaxTimestamp() - s.rollingTs
	}
	rel := b.LastOffset() - s.base
	return int64(s.size) > l.cfg.SegmentBytes-int64(size) ||
		(s.size > 0 && waited > l.cfg.SegmentMs) ||
		len(s.offIdx) >= l.maxOffIdx || len(s.timeIdx) >= l.maxTimeIdx ||
		rel < 0 || rel > maxInt32
}

// roll is LocalLog.roll at LEO. The old segment gets its final time-index
// entry (onBecomeInactiveSegment) and is flushed: Kafka schedules
// flushUptoOffsetExclusive(newBase) asynchronously (UnifiedLog.roll); it is
// modelled as immediate. An empty active segment already at LEO is replaced
// in place instead (KAFKA-6388 path in LocalLog.roll).
func (l *Log) roll(now int64) {
	old := l.active()
	if old.base == l.leo && old.size == 0 {
		l.segs[len(l.segs)-1] = newSegment(l.leo, now, 0)
		return
	}
	old.maybeAppendTime()
	l.segs = append(l.segs, newSegment(l.leo, now, len(old.batches)))
	l.flushTo(l.leo)
}

// floor returns the index of the last segment with base <= offset, or -1.
func (l *Log) floor(offset int64) int {
	lo, hi := 0, len(l.segs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if l.segs[m].base <= offset {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo - 1
}

// Batches returns the batches with LastOffset >= from, in offset order. The
// slice is read-only; when the batches lie in one segment it aliases the
// log's storage, which later appends, truncations and deletions never
// overwrite, so it stays a valid snapshot.
func (l *Log) Batches(from int64) []*Batch {
	si := l.floor(from)
	if si < 0 {
		si = 0
	}
	first := l.segs[si]
	out := first.batches[first.search(from):len(first.batches):len(first.batches)]
	if si == len(l.segs)-1 {
		return out
	}
	out = append([]*Batch(nil), out...)
	for _, s := range l.segs[si+1:] {
		out = append(out, s.batches...)
	}
	return out
}

// At returns the record at offset and its batch, or false if the log does not
// hold that offset.
func (l *Log) At(offset int64) (Record, *Batch, bool) {
	if offset < l.startOffset || offset >= l.leo {
		return Record{}, nil, false
	}
	si := l.floor(offset)
	if si < 0 {
		return Record{}, nil, false
	}
	s := l.segs[si]
	i := s.search(offset)
	if i == len(s.batches) || s.batches[i].BaseOffset > offset {
		return Record{}, nil, false
	}
	b := s.batches[i]
	k := b.Index(offset)
	if k < 0 {
		return Record{}, nil, false // cleaned away (LogCleaner)
	}
	return b.Record(k), b, true
}
