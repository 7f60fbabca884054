package storage

import (
	"path/filepath"
	"slices"
	"strconv"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/log"
)

// repKey names one replica: broker and partition ("topic-N").
type repKey struct {
	broker    int
	partition string
}

// segState is what the writer was told about one segment file.
type segState struct {
	base          int64
	batches       int
	size          int32
	nIdx, nTimeIx int
}

// repState is what the writer was told about one replica's directory.
type repState struct {
	dir      string // dirOf(key), kept: observe runs every step
	view     log.View
	rewrites uint64
	segs     []segState
	rp       int64 // recovery point as last seen
	epochs   []log.EpochEntry
	epochsOK bool  // epochs were written
	hw       int64 // replication-offset-checkpoint entry (-1: none)
	start    int64
	cleaned  int64 // cleaner-offset-checkpoint entry (-1: none)
	seen     bool  // touched by the current observation
	fast     fastKey
	topicID  [16]byte // the replica's topic (a topic created again with the name is another)
}

// fastKey is what changes whenever anything a replica's files hold does:
// equal keys (same log) mean there is nothing to write. The leader
// epoch is in it because a new leader assigns its epoch's start offset
// without appending (Partition.makeLeader).
type fastKey struct {
	leo, start, rp, hw int64
	rewrites           uint64
	segs               int
	last               log.SegmentRef
	epoch              int32
	leader             int
	epochs             uint64 // the epoch cache's version
}

func fastKeyOf(v log.View, r *core.Replica, hw int64) fastKey {
	n := v.NumSegments()
	leader, epoch := r.LeaderView()
	return fastKey{leo: v.LEO(), start: v.StartOffset(), rp: v.RecoveryPoint(), hw: hw, rewrites: v.Rewrites(),
		segs: n, last: v.SegmentRef(n - 1), epoch: epoch, leader: leader, epochs: r.EpochsVersion()}
}

// dirOf is the replica's directory relative to DIR.
func dirOf(k repKey) string {
	return filepath.Join(brokerDir(k.broker), k.partition)
}

func brokerDir(id int) string { return "broker-" + strconv.Itoa(id) }

// observe compares the cluster with what was written and queues what
// changed. It runs on the cluster's goroutine and does no I/O.
func (s *Store) observe(c *core.Cluster, evs []core.Event) {
	if c != s.cluster { // a reset or a new scenario makes a new cluster
		s.newCluster(c, s.cluster != nil)
	}
	var ops []op
	dirty := map[int]bool{}
	for _, t := range c.Topics() {
		for _, p := range t.Partitions() {
			for _, id := range p.Replicas() {
				b := c.Broker(id)
				r := b.Replica(p)
				if r == nil {
					continue
				}
				k := repKey{id, p.Name}
				st := s.reps[k]
				tid, _ := c.TopicID(t.Name)
				if st != nil && st.topicID != tid && st.topicID != ([16]byte{}) {
					// The directory holds a deleted topic's log and a new
					// topic took the name between two observations.
					ops = append(ops, op{kind: opDeleteDir, dir: st.dir})
					st = nil
				}
				if st == nil {
					st = &repState{hw: -1, cleaned: -1, dir: dirOf(k), topicID: tid}
					s.reps[k] = st
					ops = append(ops, op{kind: opMkdir, dir: dirOf(k), data: partitionMetadata(tid)})
					st.view = r.Log()
					st.rewrites = st.view.Rewrites()
					dirty[id] = true
				}
				st.seen = true
				hw, ok := b.HWCheckpoint(p)
				if !ok {
					hw = -1
				}
				v := r.Log()
				fk := fastKeyOf(v, r, hw)
				if fk == st.fast && v.Same(st.view) && st.epochsOK {
					continue // nothing a file holds changed
				}
				st.fast = fk
				ops = s.syncReplica(ops, k, st, r)
				if cp, ok := v.CleanerCheckpoint(); ok && cp != st.cleaned {
					st.cleaned, dirty[id] = cp, true
				}
				if st.rp != v.RecoveryPoint() || st.start != v.StartOffset() || st.hw != hw {
					ops = s.flushOps(ops, k, st, v)
					st.start, st.hw = v.StartOffset(), hw
					dirty[id] = true
				}
			}
		}
	}
	for k, st := range s.reps {
		if !st.seen {
			// The replica is gone: its topic was deleted. Kafka renames
			// the log's directory <topic>-<n>.<id>-delete
			// (LogManager.asyncDelete) and removes it after
			// file.delete.delay.ms.
			ops = append(ops, op{kind: opDeleteDir, dir: dirOf(k)})
			delete(s.reps, k)
			dirty[k.broker] = true
			continue
		}
		st.seen = false
	}
	for id := range dirty {
		ops = append(ops, s.checkpointOps(id)...)
	}
	if s.metaChanged(c, evs) {
		if md := s.metadata(c); md != s.lastMeta {
			s.lastMeta = md
			ops = append(ops, op{kind: opWriteFile, dir: ".", name: metadataFile, data: []byte(md)})
		}
	}
	s.send(ops)
}

// metaChanged says whether cluster-metadata.json may be stale: nothing
// written yet, a topic more or less, or an event that changes a topic, a
// leader or an ISR (rendering it every step would cost more than all
// the rest).
func (s *Store) metaChanged(c *core.Cluster, evs []core.Event) bool {
	n := len(c.Topics())
	if s.lastMeta == "" || n != s.lastTopics {
		s.lastTopics = n
		return true
	}
	for i := range evs {
		switch evs[i].Type {
		case core.EvTopic, core.EvTopicAlter, core.EvTopicDelete, core.EvLeader, core.EvISR:
			return true
		}
	}
	return false
}

// newCluster starts following a new cluster. When it replaces one
// (reset), the old cluster's files go: the disk follows the simulation.
func (s *Store) newCluster(c *core.Cluster, replaced bool) {
	s.offset.Store(s.ClockOffset(c))
	s.cluster = c
	if !replaced && s.adopted != nil {
		s.reps = s.adopted // restored: the files hold these logs already
		s.adopted = nil
	} else {
		var ops []op
		if replaced {
			ops = append(ops, op{kind: opWipe})
		}
		s.reps = map[repKey]*repState{}
		s.send(ops)
	}
	var ops []op
	for _, b := range c.Brokers() {
		ops = append(ops, op{kind: opMkdir, dir: brokerDir(b.ID)},
			op{kind: opWriteFile, dir: brokerDir(b.ID), name: "meta.properties", data: metaProperties(c, b.ID)})
		ops = append(ops, s.checkpointOps(b.ID)...)
	}
	s.lastMeta = ""
	s.send(ops)
}

// syncReplica queues the writes that make k's files match r's log.
func (s *Store) syncReplica(ops []op, k repKey, st *repState, r *core.Replica) []op {
	v := r.Log()
	dir := st.dir
	rewriteIdx := false
	switch {
	case !v.Same(st.view):
		ops = append(ops, op{kind: opClear, dir: dir})
		st.view, st.rewrites, st.segs, st.rp = v, v.Rewrites(), nil, 0
		st.epochsOK = false
	case v.Rewrites() != st.rewrites:
		low, ok := v.RewrittenSince(st.rewrites)
		st.rewrites = v.Rewrites()
		rewriteIdx = true
		if !ok {
			ops = append(ops, op{kind: opClear, dir: dir})
			st.segs = nil
			break
		}
		ops = s.truncateOps(ops, dir, st, v, low)
	}
	// Segments deleted from the front (retention) or the back.
	n := v.NumSegments()
	first := v.SegmentRef(0).Base
	drop := 0
	for drop < len(st.segs) && st.segs[drop].base < first {
		ops = append(ops, op{kind: opDeleteSeg, dir: dir, base: st.segs[drop].base})
		drop++
	}
	st.segs = st.segs[drop:]
	for i := 0; i < n; i++ {
		ref := v.SegmentRef(i)
		if i < len(st.segs) && st.segs[i].base != ref.Base {
			for _, old := range st.segs[i:] {
				ops = append(ops, op{kind: opDeleteSeg, dir: dir, base: old.base})
			}
			st.segs = st.segs[:i]
		}
		if i == len(st.segs) {
			st.segs = append(st.segs, segState{base: ref.Base})
			ops = append(ops, op{kind: opCreateSeg, dir: dir, base: ref.Base})
		}
		ss := &st.segs[i]
		if rewriteIdx {
			ss.nIdx, ss.nTimeIx = 0, 0
			ops = append(ops, op{kind: opTruncSeg, dir: dir, base: ss.base, size: ss.size, nIdx: 0, nTime: 0})
		}
		if ss.batches == ref.Batches && ss.nIdx == ref.OffsetIndex && ss.nTimeIx == ref.TimeIndex {
			continue
		}
		o := op{kind: opAppend, dir: dir, base: ss.base, size: ss.size, nIdx: ss.nIdx, nTime: ss.nTimeIx}
		o.batches, o.positions = v.SegmentBatches(i, ss.batches)
		o.idx, o.tidx = v.SegmentIndex(i, ss.nIdx, ss.nTimeIx)
		ops = append(ops, o)
		ss.batches, ss.size, ss.nIdx, ss.nTimeIx = ref.Batches, ref.Size, ref.OffsetIndex, ref.TimeIndex
	}
	for _, old := range st.segs[min(n, len(st.segs)):] {
		ops = append(ops, op{kind: opDeleteSeg, dir: dir, base: old.base})
	}
	st.segs = st.segs[:min(n, len(st.segs))]
	if es := r.Epochs(); !st.epochsOK || !slices.Equal(es, st.epochs) {
		st.epochs, st.epochsOK = es, true
		ops = append(ops, op{kind: opWriteFile, dir: dir, name: "leader-epoch-checkpoint", data: epochCheckpoint(es)})
	}
	return ops
}

// truncateOps cuts k's files where the log was rewritten from offset low
// on: later segment files go, the one holding low is cut at the first
// batch the rewrite removed.
func (s *Store) truncateOps(ops []op, dir string, st *repState, v log.View, low int64) []op {
	keep := 0
	for keep < len(st.segs) && st.segs[keep].base <= low {
		keep++
	}
	for _, old := range st.segs[keep:] {
		ops = append(ops, op{kind: opDeleteSeg, dir: dir, base: old.base})
	}
	st.segs = st.segs[:keep]
	if keep == 0 {
		return ops
	}
	ss := &st.segs[keep-1]
	// Find ss in the log now: its batches below low are the ones kept.
	for i := 0; i < v.NumSegments(); i++ {
		if v.SegmentRef(i).Base != ss.base {
			continue
		}
		bs, pos := v.SegmentBatches(i, 0)
		j := 0
		for j < len(bs) && j < ss.batches && bs[j].LastOffset() < low {
			j++
		}
		size := v.SegmentRef(i).Size
		if j < len(pos) {
			size = pos[j]
		}
		if j < ss.batches {
			ss.batches, ss.size = j, size
		}
		ops = append(ops, op{kind: opTruncSeg, dir: dir, base: ss.base, size: ss.size, nIdx: 0, nTime: 0})
		ss.nIdx, ss.nTimeIx = 0, 0
		return ops
	}
	// The segment is gone from the log.
	ops = append(ops, op{kind: opDeleteSeg, dir: dir, base: ss.base})
	st.segs = st.segs[:keep-1]
	return ops
}

// flushOps fsyncs the segments the core flushed: those holding offsets
// between the old and the new recovery point (UnifiedLog.flush).
func (s *Store) flushOps(ops []op, k repKey, st *repState, v log.View) []op {
	rp := v.RecoveryPoint()
	if rp > st.rp {
		for i, ss := range st.segs {
			end := int64(1<<63 - 1)
			if i+1 < len(st.segs) {
				end = st.segs[i+1].base
			}
			if end > st.rp && ss.base < rp {
				ops = append(ops, op{kind: opSync, dir: st.dir, base: ss.base})
			}
		}
	}
	st.rp = rp
	return ops
}
