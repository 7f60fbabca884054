package core

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/kafkasim/kafkasim/core/log"
)

// commitReq is an OffsetCommit request; generation -1 is a commit from a
// consumer outside the group protocol. kip848: OffsetCommit v9+. meta is
// each partition's committed metadata and leader epoch, where it has any.
type commitReq struct {
	group      string
	memberID   string
	generation int
	kip848     bool
	offsets    map[*Partition]int64
	meta       map[*Partition]commitMeta
	order      []*Partition
}

// commitOffsets is GroupCoordinator.handleCommitOffsets: validate the
// member and generation, append the offsets to __consumer_offsets
// (acks=all), then remember them. A group the coordinator does not have
// is made (a "simple" group) only for a commit without a generation; one
// with a generation comes from a member of a group that is gone and is
// refused, and no group is left behind. done gets the request's error
// and, when the request passed validation, the partitions whose metadata
// was too long: GroupMetadataManager.storeOffsets leaves them out of the
// write and answers them OFFSET_METADATA_TOO_LARGE whatever the write's
// outcome, and answers every partition so, writing nothing, when none is
// left (4.0's OffsetMetadataManager.commitOffset the same, per
// partition, but a failed write answers every partition its error).
// A failed write's error is storeOffsetsError's.
func (co *coordinator) commitOffsets(req commitReq, done func(err string, tooLarge map[*Partition]bool)) {
	g, err := co.lookup(req.group, req.generation < 0)
	if err == "GROUP_ID_NOT_FOUND" {
		// 4.0's OffsetMetadataManager.validateOffsetCommit: GROUP_ID_NOT_FOUND
		// from OffsetCommit v9 on, for either protocol; ILLEGAL_GENERATION
		// below v9 (backward compatibility), as 3.9's GroupCoordinator
		// answers in every version.
		err = "ILLEGAL_GENERATION"
		if req.kip848 && co.b.c.preset.commitGroupNotFound {
			err = "GROUP_ID_NOT_FOUND"
		}
	}
	if err != "" {
		done(err, nil)
		return
	}
	if err := g.validateCommit(req); err != "" {
		done(err, nil)
		return
	}
	tooLarge, order := co.filterMetadata(req)
	if len(order) == 0 {
		if len(tooLarge) > 0 {
			done("OFFSET_METADATA_TOO_LARGE", tooLarge)
			return
		}
		done("", nil)
		return
	}
	recs := make([]log.Record, 0, len(order))
	for _, p := range order {
		recs = append(recs, commitRecord(g.id, p, req.offsets[p], req.meta[p]))
	}
	if g.writing == nil {
		g.writing = map[*Partition]int{}
	}
	for _, p := range order {
		g.writing[p]++
	}
	at := co.b.c.now // OffsetAndMetadata.commitTimestamp
	// late: 4.0's runtime keeps a write whose answer timed out; it takes
	// effect once committed (appendRuntime).
	late := func(e string, base int64) {
		if e == "" {
			co.applyCommit(g, req, order, at, base, " after its OffsetCommit timed out")
		}
	}
	co.appendInternal(g.p, recs, func(e string, base int64) {
		for _, p := range order { // written or failed: no longer pending
			if g.writing[p]--; g.writing[p] <= 0 {
				delete(g.writing, p)
			}
		}
		if e == "" {
			co.applyCommit(g, req, order, at, base, "")
		}
		if e != "" {
			e = co.storeOffsetsError(e)
			if co.b.c.preset.runtimeStoreErrors {
				// 4.0's GroupCoordinatorService.commitOffsets answers a
				// failed write with OffsetCommitRequest.getErrorResponse:
				// every partition the error, too long metadata included.
				tooLarge = nil
			}
		}
		done(e, tooLarge)
	}, late)
}

// applyCommit takes a stored commit's offsets (those of order, written
// from base in g's partition) into g, unless g was unloaded meanwhile;
// how ends the event's detail.
func (co *coordinator) applyCommit(g *group, req commitReq, order []*Partition, at, base int64, how string) {
	if co.groups[g.id] != g {
		return
	}
	for i, p := range order {
		if p.Topic.gone() {
			continue // deleted while the commit was written (GroupMetadata.removeOffsets dropped it)
		}
		old, had := g.offsets[p]
		g.offsets[p] = req.offsets[p]
		g.committedAt[p] = at
		g.setMeta(p, req.meta[p])
		co.b.c.history.commit(CommitRecord{Group: g.id, Partition: p.Name, Offset: req.offsets[p], At: co.b.c.now, Log: g.p.Name, LogOffset: base + int64(i), Gen: p.Topic.gen})
		co.b.c.emit(Event{Type: EvCommit, Group: g.id, Partition: p.Name, Offset: req.offsets[p], Broker: co.b.ID,
			Detail: fmt.Sprintf("stored in %s%s", g.p.Name, how), Minor: had && old == req.offsets[p]})
	}
}

// filterMetadata splits req's partitions into those whose metadata is
// too long (GroupMetadataManager.validateOffsetMetadataLength) and the
// rest, in request order, which are written.
func (co *coordinator) filterMetadata(req commitReq) (tooLarge map[*Partition]bool, order []*Partition) {
	order = req.order
	for i, p := range req.order {
		if !co.metadataTooLarge(req.meta[p].metadata) {
			if tooLarge != nil {
				order = append(order, p)
			}
			continue
		}
		if tooLarge == nil {
			tooLarge = map[*Partition]bool{}
			order = slices.Clone(req.order[:i])
		}
		tooLarge[p] = true
	}
	return tooLarge, order
}

// fetchOffsets answers committed offsets (-1 where none). With
// requireStable (KIP-447) a partition whose commit is still being written
// is marked unstable, to be answered UNSTABLE_OFFSET_COMMIT with no
// offset, the others with theirs (GroupMetadataManager.getOffsets,
// hasPendingOffsetCommitsForTopicPartition, per partition; the Java
// consumer retries the whole fetch,
// ConsumerCoordinator.OffsetFetchResponseHandler); 4.0 instead
// answers once the writes before the fetch have ended
// (coordinator_stable_fetch.go). err is a group-level error only.
func (co *coordinator) fetchOffsets(groupID string, parts []*Partition, requireStable bool, respond func(offsetFetchResult)) {
	p := co.b.c.offsetsPartition(groupID)
	if p == nil || !co.loaded[p] {
		respond(offsetFetchResult{err: "NOT_COORDINATOR"})
		return
	}
	if requireStable && co.b.c.preset.stableFetchWaits {
		co.awaitWrites(p, func(failed bool) {
			if failed || !co.loaded[p] {
				respond(offsetFetchResult{err: "NOT_COORDINATOR"})
				return
			}
			respond(offsetFetchResult{offsets: co.committed(groupID, parts), meta: co.committedMeta(groupID, parts)})
		})
		return
	}
	res := offsetFetchResult{offsets: co.committed(groupID, parts), meta: co.committedMeta(groupID, parts)}
	if g := co.groups[groupID]; requireStable && g != nil {
		for _, tp := range parts {
			if g.writing[tp] > 0 {
				if res.unstable == nil {
					res.unstable = map[*Partition]bool{}
				}
				res.unstable[tp] = true
			}
		}
	}
	respond(res)
}

// committed is the group's committed offset of each partition, -1 where
// it has none.
func (co *coordinator) committed(groupID string, parts []*Partition) map[*Partition]int64 {
	out := map[*Partition]int64{}
	g := co.groups[groupID]
	for _, tp := range parts {
		out[tp] = -1
		if g != nil {
			if off, ok := g.offsets[tp]; ok {
				out[tp] = off
			}
		}
	}
	return out
}

// committedMeta is the metadata and leader epoch committed with the
// group's offsets of parts, for those that have any.
func (co *coordinator) committedMeta(groupID string, parts []*Partition) map[*Partition]commitMeta {
	g := co.groups[groupID]
	if g == nil || len(g.meta) == 0 {
		return nil
	}
	var out map[*Partition]commitMeta
	for _, tp := range parts {
		if m, ok := g.meta[tp]; ok {
			if out == nil {
				out = map[*Partition]commitMeta{}
			}
			out[tp] = m
		}
	}
	return out
}

// validateCommit is GroupCoordinator.validateOffsetCommit, then
// doCommitOffsets' check of the state: a Dead group is
// COORDINATOR_NOT_AVAILABLE; a commit without a generation is taken while
// the group is empty (nobody in it: the state is Empty, or a rebalance
// with no member yet); one naming a member or a generation must come from
// a member of the current generation (UNKNOWN_MEMBER_ID, then
// ILLEGAL_GENERATION); one naming neither, while the group has members,
// is UNKNOWN_MEMBER_ID; and a valid member's commit while the group
// awaits its assignment is REBALANCE_IN_PROGRESS.
func (g *group) validateCommit(req commitReq) string {
	empty := g.state == gsEmpty || len(g.members) == 0
	switch {
	case g.state == gsDead:
		return "COORDINATOR_NOT_AVAILABLE"
	case req.generation < 0 && empty:
		return ""
	case req.generation >= 0 || req.memberID != "":
		if g.members[req.memberID] == nil {
			return "UNKNOWN_MEMBER_ID"
		}
		if req.generation != g.generation {
			return "ILLEGAL_GENERATION"
		}
	case !empty:
		return "UNKNOWN_MEMBER_ID"
	}
	if g.state == gsCompleting {
		return "REBALANCE_IN_PROGRESS"
	}
	return ""
}

func offsetValue(group string, p *Partition, off int64) string {
	return group + "/" + p.Name + "=" + strconv.FormatInt(off, 10)
}
