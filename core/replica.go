package core

import (
	"fmt"
	"strings"

	"github.com/kafkasim/kafkasim/core/log"
)

type role uint8

const (
	roleNone role = iota
	roleLeader
	roleFollower
)

// roleNames are the roles' names in a snapshot (ReplicaView.Role).
var roleNames = [...]string{roleNone: "none", roleLeader: "leader", roleFollower: "follower"}

// followState is where a follower replica is in its fetch cycle.
type followState uint8

const (
	followIdle       followState = iota // no leader to follow
	followTruncating                    // waiting for OffsetsForLeaderEpoch
	followFetching
)

// Replica is one broker's copy of a partition. log, epochs and hw are
// persistent; the rest is rebuilt when the broker restarts.
//
// Invariants: hw <= log.LEO(); on a leader, hw is the minimum LEO over the
// maximal ISR (see maybeAdvanceHW) and never decreases while it leads.
type Replica struct {
	b      *Broker
	p      *Partition
	log    *log.Log
	epochs log.EpochCache
	hw     int64

	role      role
	leader    int
	epoch     int32
	isr       []int // the leader's ISR (as last written to the metadata service)
	version   int32 // zkVersion / partition epoch of isr
	pending   []int // ISR change in flight to the controller (nil: none)
	isrReq    int   // ISR changes requested (the last one is pending)
	followers map[int]*followerState
	waiting   []*pendingAck
	follow    followState
	producers map[int64]*producerEntry

	lastFlush int64
	unflushed int64
}

// followerState is what a leader knows of a follower (Kafka's Replica).
type followerState struct {
	leo                int64
	lastCaughtUp       int64
	lastFetch          int64
	lastFetchLeaderLEO int64
	logStart           int64 // its log start offset, as its last Fetch said (-1: unknown)
}

func newReplica(b *Broker, p *Partition, now int64) *Replica {
	r := &Replica{b: b, p: p, log: log.New(p.Topic.conf.log, now), lastFlush: now}
	r.resetVolatile()
	return r
}

func (r *Replica) resetVolatile() {
	r.role, r.leader, r.follow = roleNone, -1, followIdle
	r.isr, r.pending, r.followers, r.waiting = nil, nil, nil, nil
}

// LEO returns the log end offset.
func (r *Replica) LEO() int64 { return r.log.LEO() }

// HW returns the replica's high watermark.
func (r *Replica) HW() int64 { return r.hw }

// Log returns a read-only view of the replica's log: nothing outside the
// broker changes a log except through commands.
func (r *Replica) Log() log.View { return r.log.View() }

// Epochs returns the replica's leader-epoch cache entries.
func (r *Replica) Epochs() []log.EpochEntry { return r.epochs.Entries() }

// IsLeader reports whether the replica believes it leads the partition.
func (r *Replica) IsLeader() bool { return r.role == roleLeader }

// LeaderView returns the leader and epoch this replica believes in.
func (r *Replica) LeaderView() (int, int32) { return r.leader, r.epoch }

// recover runs at broker start: the HW comes from the checkpoint (capped by
// the log end) and producer state is rebuilt from the log.
func (r *Replica) recover(checkpoint int64) {
	r.hw = min(checkpoint, r.log.LEO())
	r.rebuildProducers()
}

// losePageCache is a power failure: the log keeps only what was flushed.
func (r *Replica) losePageCache() {
	lost := r.log.LosePageCache()
	if len(lost) == 0 {
		return
	}
	r.epochs.TruncateFromEnd(r.log.LEO())
	r.hw = min(r.hw, r.log.LEO())
	r.b.c.emit(Event{Type: EvLost, Partition: r.p.Name, Broker: r.b.ID, Offset: lost[0].BaseOffset, EndOffset: r.log.LEO(), Records: flatten(lost), Fate: FateLost,
		Detail: fmt.Sprintf("power loss: %d unflushed records gone from the page cache", countRecords(lost))})
}

func flatten(bs []*log.Batch) []log.Record {
	if len(bs) == 1 {
		return bs[0].RecordList()
	}
	var out []log.Record
	for _, b := range bs {
		out = append(out, b.RecordList()...)
	}
	return out
}

func countRecords(bs []*log.Batch) int {
	n := 0
	for _, b := range bs {
		n += b.Len()
	}
	return n
}

// append adds a batch to the log (leader or follower) and updates producer
// state and flush policy. b.BaseOffset must equal the LEO on a leader;
// on a follower it may be above (a gap in a compacted leader's log).
func (r *Replica) append(b *log.Batch) error {
	c := r.b.c
	add := r.log.Append
	if r.role != roleLeader {
		add = r.log.AppendAsFollower
	}
	if err := add(b, c.now); err != nil {
		return err
	}
	if b.ProducerID >= 0 {
		r.trackProducer(b)
	}
	if r.b.c.preset.leaderEpochs {
		r.epochs.Assign(b.Epoch, b.BaseOffset)
	}
	if !c.quiet {
		// A packed batch's records are read only if someone reads the
		// event (Event.RecordList).
		c.emit(Event{Type: EvAppend, Partition: r.p.Name, Broker: r.b.ID, Offset: b.BaseOffset, EndOffset: b.LastOffset(), Epoch: b.Epoch, Records: b.Records, packed: b.Packed, IsLeader: r.role == roleLeader})
	}
	r.unflushed += int64(b.Len())
	if r.unflushed >= r.p.Topic.conf.flushMessages {
		r.flush()
	}
	return nil
}

// truncate cuts the log back to offset (Kafka's truncateTo) and says why:
// reason is a Truncate* code, why the trace's description.
func (r *Replica) truncate(offset int64, reason, why string) {
	if offset >= r.log.LEO() {
		if r.b.c.preset.truncateEpochsAtLEO {
			// Log.truncateTo (2.6+) truncates the epoch cache even then:
			// a replica that became leader and appended nothing before
			// the next election has its epoch's entry at the LEO, and
			// asking the new leader about that epoch again would get the
			// same answer forever (see truncateToEpoch).
			r.epochs.TruncateFromEnd(r.log.LEO())
		}
		return
	}
	removed := r.log.TruncateTo(offset)
	r.epochs.TruncateFromEnd(offset)
	if r.hw > offset {
		r.hw = offset
	}
	r.rebuildProducers()
	dropped := flatten(removed)
	r.b.c.emit(Event{Type: EvTruncate, Partition: r.p.Name, Broker: r.b.ID, Offset: offset, EndOffset: offset + int64(len(dropped)) - 1,
		Records: dropped, Reason: reason, Fate: FateTruncated, Detail: why})
}

// truncateFullyAndStartAt empties the log and starts it at offset
// (UnifiedLog.truncateFullyAndStartAt): the epoch cache is cleared, the log
// start and the HW move to offset, producer state is rebuilt.
func (r *Replica) truncateFullyAndStartAt(offset int64, why string) {
	var dropped []log.Record
	for _, b := range r.log.Batches(r.log.StartOffset()) {
		dropped = append(dropped, b.RecordList()...)
	}
	r.log.TruncateFullyAndStartAt(offset)
	r.epochs.Clear()
	r.hw = offset
	r.rebuildProducers()
	r.b.c.emit(Event{Type: EvTruncate, Partition: r.p.Name, Broker: r.b.ID, Offset: offset,
		Records: dropped, Reason: TruncateBelowStart, Fate: FateTruncated, Detail: why})
}

func (r *Replica) flush() {
	r.log.Flush(r.log.LEO())
	r.unflushed = 0
	r.lastFlush = r.b.c.now
	r.b.c.emit(Event{Type: EvFlush, Partition: r.p.Name, Broker: r.b.ID, Offset: r.log.RecoveryPoint(), Detail: "fsync"})
}

// writeback is the OS flushing dirty pages older than os.dirty.expire.ms,
// plus Kafka's own flush.ms policy.
func (r *Replica) writeback() {
	c := r.b.c
	if c.now-r.lastFlush >= r.p.Topic.conf.flushMs && r.log.RecoveryPoint() < r.log.LEO() {
		r.flush()
		return
	}
	if r.log.Writeback(c.now, c.bc.dirtyExpireMs) {
		r.unflushed = r.log.LEO() - r.log.DurableOffset()
		c.emit(Event{Type: EvFlush, Partition: r.p.Name, Broker: r.b.ID, Offset: r.log.DurableOffset(), Detail: "OS writeback"})
	}
}

// retention deletes the segments retention.ms and retention.bytes allow
// and, when the log start offset moved, drops the leader epochs below it:
// UnifiedLog.deleteSegments → maybeIncrementLogStartOffset(SegmentDeletion)
// → leaderEpochCache.truncateFromStart(logStartOffset). Without it the
// leader-epoch-checkpoint kept epochs of deleted segments, and
// OffsetsForLeaderEpoch (and 2.8+ Fetch's DivergingEpoch) answered an epoch
// older than the earliest one left with an end offset below the log start.
//
// UnifiedLog.deleteOldSegments applies retention.ms and retention.bytes
// only when cleanup.policy has delete (LogConfig.delete): "compact" alone,
// as __consumer_offsets has it (GroupMetadataManager.offsetsTopicConfigs),
// keeps every segment, so the brokers' log.retention.* never delete a
// group's records or offsets; the log cleaner compacts it instead
// (Replica.clean), which keeps each key's latest record and so replays
// to the same groups.
//
// Before both, deleteLogStartOffsetBreachedSegments (whatever the policy)
// deletes the segments wholly below a log start offset that moved without
// them: a follower's, taken from its leader's Fetch response
// (followLogStart).
func (r *Replica) retention() {
	now := r.b.c.now
	for _, s := range r.log.DeleteBelowStart(now, r.hw) {
		r.b.c.emit(Event{Type: EvRetention, Partition: r.p.Name, Broker: r.b.ID, Offset: r.log.StartOffset(),
			Detail: fmt.Sprintf("deleted %s (below log start offset %d)", s.File, r.log.StartOffset())})
	}
	if !r.p.Topic.conf.deleteRetention {
		return
	}
	deleted := r.log.ApplyRetention(now, r.hw)
	if len(deleted) > 0 {
		r.epochs.TruncateFromStart(r.log.StartOffset())
	}
	for _, s := range deleted {
		r.b.c.emit(Event{Type: EvRetention, Partition: r.p.Name, Broker: r.b.ID, Offset: r.log.StartOffset(), Detail: "retention deleted " + s.File})
	}
}

// cleanable is the replica's log as the cleaner manager sees it
// (LogCleanerManager.cleanableOffsets, LogToClean): only a
// cleanup.policy=compact topic's logs, never past the high watermark (the
// last stable offset: transactions are not modelled), and ok when dirty
// enough to clean. Each replica, leader or follower, compacts its own log
// on its broker's schedule: nothing coordinates them.
func (r *Replica) cleanable() (log.ToClean, bool) {
	if !r.p.Topic.conf.compact || r.p.legacyKeys {
		return log.ToClean{}, false
	}
	tc := r.log.ToClean(r.hw, r.b.c.now)
	return tc, tc.Cleanable(r.log.Config().MinCleanableRatio)
}

// clean is Cleaner.clean for the replica's log: the segments below the
// first uncleanable offset are rewritten keeping each key's latest record
// (offsets unchanged), one segment.clean event per cleaned group.
func (r *Replica) clean(tc log.ToClean) {
	res := r.log.Clean(tc, r.b.c.now)
	for _, s := range res.Segments {
		files := strings.Join(s.Replaced, "+")
		d := fmt.Sprintf("cleaned %s into %s: %d records -> %d, %d -> %d bytes", files, s.File, s.RecordsBefore, s.RecordsAfter, s.BytesBefore, s.BytesAfter)
		if s.TombstonesKept > 0 {
			d += fmt.Sprintf(", %d tombstone(s) kept", s.TombstonesKept)
		}
		if s.TombstonesPurged > 0 {
			d += fmt.Sprintf(", %d tombstone(s) removed (delete.retention.ms passed)", s.TombstonesPurged)
		}
		r.b.c.emit(Event{Type: EvClean, Partition: r.p.Name, Broker: r.b.ID, Offset: res.From, EndOffset: res.To,
			Detail: d + fmt.Sprintf(" (dirty from %d, cleaner checkpoint now %d)", res.From, res.To)})
	}
}

// followLogStart is the last step of ReplicaFetcherThread.processPartitionData
// (KIP-107, 0.11+): after appending and taking the leader's high watermark,
// the follower calls maybeIncrementLogStartOffset(leaderLogStartOffset,
// LeaderOffsetIncremented), so its log start is never below the leader's
// for longer than one fetch; its leader epoch cache is truncated from the
// start as for retention, and the segments below wait for its next
// retention check (DeleteBelowStart). Without it a follower kept the
// records its leader's retention had deleted until its own retention ran
// (each broker checks on its own schedule), and if it became leader
// meanwhile a consumer resetting to earliest read them back.
func (r *Replica) followLogStart(leader int, logStart int64) {
	if !r.log.IncrementStartOffset(logStart, r.hw) {
		return
	}
	r.epochs.TruncateFromStart(logStart)
	r.b.c.emit(Event{Type: EvLogStart, Partition: r.p.Name, Broker: r.b.ID, Leader: leader, Offset: logStart})
}

// setHW moves the replica's high watermark and reports it.
func (r *Replica) setHW(hw int64) {
	if hw == r.hw {
		return
	}
	r.hw = hw
	if !r.b.c.quiet {
		r.b.c.emit(Event{Type: EvHW, Partition: r.p.Name, Broker: r.b.ID, HW: hw})
	}
}
