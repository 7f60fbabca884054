package core

import (
	"fmt"
	"strconv"

	"github.com/kafkasim/kafkasim/core/log"
)

// commitReq is an OffsetCommit request; generation -1 with no member id is
// a commit from a consumer outside the group protocol.
type commitReq struct {
	group      string
	memberID   string
	generation int
	offsets    map[*Partition]int64
	order      []*Partition
}

// commitOffsets is GroupCoordinator.handleCommitOffsets: validate the
// member and generation, append the offsets to __consumer_offsets
// (acks=all), then remember them.
func (co *coordinator) commitOffsets(req commitReq, done func(string)) {
	g, err := co.lookup(req.group, true)
	if err != "" {
		done(err)
		return
	}
	switch {
	case req.generation < 0 && req.memberID == "" && (g.state == gsEmpty || len(g.members) == 0):
	case g.state == gsCompleting:
		done("REBALANCE_IN_PROGRESS")
		return
	case g.members[req.memberID] == nil:
		done("UNKNOWN_MEMBER_ID")
		return
	case req.generation != g.generation:
		done("ILLEGAL_GENERATION")
		return
	}
	if len(req.order) == 0 {
		done("")
		return
	}
	recs := make([]log.Record, 0, len(req.order))
	for _, p := range req.order {
		recs = append(recs, log.Record{Key: "offset", Value: offsetValue(g.id, p, req.offsets[p]), HasKey: true})
	}
	if g.writing == nil {
		g.writing = map[*Partition]int{}
	}
	for _, p := range req.order {
		g.writing[p]++
	}
	at := co.b.c.now // OffsetAndMetadata.commitTimestamp
	co.appendInternalAt(g.p, recs, func(e string, base int64) {
		for _, p := range req.order { // written or failed: no longer pending
			if g.writing[p]--; g.writing[p] <= 0 {
				delete(g.writing, p)
			}
		}
		if e == "" && co.groups[g.id] == g {
			for i, p := range req.order {
				if p.Topic.gone() {
					continue // deleted while the commit was written (GroupMetadata.removeOffsets dropped it)
				}
				old, had := g.offsets[p]
				g.offsets[p] = req.offsets[p]
				g.committedAt[p] = at
				co.b.c.history.commit(CommitRecord{Group: g.id, Partition: p.Name, Offset: req.offsets[p], At: co.b.c.now, Log: g.p.Name, LogOffset: base + int64(i), Gen: p.Topic.gen})
				co.b.c.emit(Event{Type: EvCommit, Group: g.id, Partition: p.Name, Offset: req.offsets[p], Broker: co.b.ID,
					Detail: fmt.Sprintf("stored in %s", g.p.Name), Minor: had && old == req.offsets[p]})
			}
		}
		done(e)
	})
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
			respond(offsetFetchResult{offsets: co.committed(groupID, parts)})
		})
		return
	}
	res := offsetFetchResult{offsets: co.committed(groupID, parts)}
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

func offsetValue(group string, p *Partition, off int64) string {
	return group + "/" + p.Name + "=" + strconv.FormatInt(off, 10)
}
