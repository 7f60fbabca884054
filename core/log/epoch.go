package log

// UndefinedEpoch and UndefinedEpochOffset are OffsetsForLeaderEpochResponse's
// UNDEFINED_EPOCH and UNDEFINED_EPOCH_OFFSET.
const (
	UndefinedEpoch       int32 = -1
	UndefinedEpochOffset int64 = -1
)

// EpochEntry is one leader-epoch-checkpoint line: the first offset written in
// a leader epoch.
type EpochEntry struct {
	Epoch       int32
	StartOffset int64
}

// EpochCache is Kafka's leader epoch cache (LeaderEpochFileCache, persisted as
// leader-epoch-checkpoint; fact sheet §2, §3 KIP-101/KIP-279). Entries are
// ordered with epochs and start offsets both strictly increasing. The zero
// value is an empty cache.
type EpochCache struct {
	entries []EpochEntry
	version uint64 // bumped by every call that changes entries (Version)
}

// Version counts the changes to the entries; code that mirrors the cache
// (leader-epoch-checkpoint on a real disk) compares it instead of copying
// the entries every step.
func (c *EpochCache) Version() uint64 { return c.version }

// Assign records that epoch starts at startOffset, with
// LeaderEpochFileCache.assign semantics (2.1+): nothing happens when epoch
// equals the latest epoch and startOffset is not below its start (the common
// case of every batch of the current epoch). Otherwise, entries from the end
// with epoch >= the new epoch or startOffset >= the new start are removed
// (maybeTruncateNonMonotonicEntries) and the entry is appended. Negative
// epochs or offsets are ignored (Kafka throws).
func (c *EpochCache) Assign(epoch int32, startOffset int64) {
	if epoch < 0 || startOffset < 0 {
		return
	}
	if n := len(c.entries); n > 0 {
		last := c.entries[n-1]
		if last.Epoch == epoch && startOffset >= last.StartOffset {
			return
		}
	}
	k := len(c.entries)
	for k > 0 && (c.entries[k-1].Epoch >= epoch || c.entries[k-1].StartOffset >= startOffset) {
		k--
	}
	c.entries = append(c.entries[:k], EpochEntry{epoch, startOffset})
	c.version++
}

// Latest returns the latest epoch, if any.
func (c *EpochCache) Latest() (epoch int32, ok bool) {
	if n := len(c.entries); n > 0 {
		return c.entries[n-1].Epoch, true
	}
	return UndefinedEpoch, false
}

// EndOffsetFor answers OffsetsForLeaderEpoch with KIP-279 (2.0) semantics of
// LeaderEpochFileCache.endOffsetFor: the largest epoch <= requested and its
// end offset, which is the start offset of the next larger epoch, or leo when
// the requested epoch is the latest. An undefined request, a request above
// every cached epoch (none larger exists) or below the earliest cached epoch
// gives (UndefinedEpoch, UndefinedEpochOffset) so the follower falls back to
// its high watermark. (Later Kafka answers the below-earliest case with
// (requested, earliest start offset) instead.)
func (c *EpochCache) EndOffsetFor(epoch int32, leo int64) (foundEpoch int32, endOffset int64) {
	if epoch == UndefinedEpoch {
		return UndefinedEpoch, UndefinedEpochOffset
	}
	if latest, ok := c.Latest(); ok && latest == epoch {
		return epoch, leo
	}
	// higher: first entry with Epoch > epoch.
	h := 0
	for h < len(c.entries) && c.entries[h].Epoch <= epoch {
		h++
	}
	if h == len(c.entries) || h == 0 {
		return UndefinedEpoch, UndefinedEpochOffset
	}
	return c.entries[h-1].Epoch, c.entries[h].StartOffset
}

// EndOffsetForSince21 is EndOffsetFor as Kafka answers from 2.1
// (KAFKA-7415): a request below the earliest cached epoch gets the
// requested epoch and the earliest entry's start offset, so that a
// follower holding only epochs the leader never had truncates below them.
func (c *EpochCache) EndOffsetForSince21(epoch int32, leo int64) (foundEpoch int32, endOffset int64) {
	if epoch != UndefinedEpoch && len(c.entries) > 0 && epoch < c.entries[0].Epoch {
		return epoch, c.entries[0].StartOffset
	}
	return c.EndOffsetFor(epoch, leo)
}

// TruncateFromEnd drops entries with StartOffset >= endOffset
// (LeaderEpochFileCache.truncateFromEnd); called when the log is truncated.
func (c *EpochCache) TruncateFromEnd(endOffset int64) {
	if endOffset < 0 {
		return
	}
	k := len(c.entries)
	for k > 0 && c.entries[k-1].StartOffset >= endOffset {
		k--
	}
	if k < len(c.entries) {
		c.version++
	}
	c.entries = c.entries[:k]
}

// TruncateFromStart drops entries that start at or before startOffset and
// re-adds the last of them with StartOffset = startOffset
// (LeaderEpochFileCache.truncateFromStart); called when the log start offset
// advances. An entry starting exactly at startOffset is thus kept.
func (c *EpochCache) TruncateFromStart(startOffset int64) {
	k := 0
	for k < len(c.entries) && c.entries[k].StartOffset <= startOffset {
		k++
	}
	if k == 0 {
		return
	}
	kept := EpochEntry{c.entries[k-1].Epoch, startOffset}
	c.entries = append([]EpochEntry{kept}, c.entries[k:]...)
	c.version++
}

// Clear removes every entry (LeaderEpochFileCache.clearAndFlush, used by
// UnifiedLog.truncateFullyAndStartAt).
func (c *EpochCache) Clear() { c.entries = nil; c.version++ }

// Entries returns a copy of the entries, oldest first.
func (c *EpochCache) Entries() []EpochEntry { return append([]EpochEntry(nil), c.entries...) }

// Clone returns an independent copy.
func (c *EpochCache) Clone() EpochCache { return EpochCache{entries: c.Entries(), version: c.version} }
