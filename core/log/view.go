package log

import "slices"

// View is a read-only handle on a Log: what a replica shows to code
// outside the broker (the checker, renderers, the scenario runner). It
// has the Log's queries and none of its mutations (Append, TruncateTo,
// ApplyRetention, LosePageCache, ...), so holding one cannot change the
// log. Batches it returns are the log's own, immutable once appended: do
// not modify them or their Records.
type View struct{ l *Log }

// View returns a read-only view of l.
func (l *Log) View() View { return View{l} }

// Config returns the log's segment, index and retention settings.
func (v View) Config() Config { return v.l.Config() }

// LEO is the log end offset: the offset the next record will get.
func (v View) LEO() int64 { return v.l.LEO() }

// StartOffset is the log start offset (after retention).
func (v View) StartOffset() int64 { return v.l.StartOffset() }

// RecoveryPoint is the offset below which Kafka has fsynced the log.
func (v View) RecoveryPoint() int64 { return v.l.RecoveryPoint() }

// DurableOffset is the offset below which the log is on disk.
func (v View) DurableOffset() int64 { return v.l.DurableOffset() }

// IsFlushed reports whether the record at offset is on disk.
func (v View) IsFlushed(offset int64) bool { return v.l.IsFlushed(offset) }

// Segments describes the segment files, oldest first.
func (v View) Segments() []SegmentInfo { return v.l.Segments() }

// Batches returns the batches holding offsets >= from, in order, in a
// slice of its own.
func (v View) Batches(from int64) []*Batch { return slices.Clone(v.l.Batches(from)) }

// At returns the record at offset and its batch.
func (v View) At(offset int64) (Record, *Batch, bool) { return v.l.At(offset) }

// Read is a fetch at offset, as Log.Read.
func (v View) Read(offset int64, maxBytes int, maxOffset int64) (Read, error) {
	return v.l.Read(offset, maxBytes, maxOffset)
}

// CleanerCheckpoint is the log's cleaner-offset-checkpoint entry, as
// Log.CleanerCheckpoint.
func (v View) CleanerCheckpoint() (int64, bool) { return v.l.CleanerCheckpoint() }

// Compacted reports whether the log cleaner removed the record at offset:
// the offset is below the cleaner checkpoint and the log holds no record
// there (a gap, in a cleaned batch or where a whole batch went).
func (v View) Compacted(offset int64) bool {
	cp, ok := v.l.CleanerCheckpoint()
	if !ok || offset >= cp || offset < v.l.StartOffset() {
		return false
	}
	_, _, found := v.l.At(offset)
	return !found
}
