package core

import (
	"fmt"
	"maps"
	"slices"

	"github.com/kafkasim/kafkasim/core/log"
)

// onPartitionsDeleted is GroupCoordinator.onPartitionsDeleted
// (GroupMetadataManager.cleanupGroupMetadata with the deleted partitions):
// every group this coordinator has loaded forgets the offsets committed
// for them, pending commits included (GroupMetadata.removeOffsets), and a
// tombstone goes to __consumer_offsets for each, so that a coordinator
// loading the log later, or a topic created again with the same name,
// does not find them. An Empty group left with no offsets becomes Dead.
func (co *coordinator) onPartitionsDeleted(parts []*Partition) {
	c := co.b.c
	gone := map[*Partition]bool{}
	for _, p := range parts {
		gone[p] = true
	}
	for _, id := range slices.Sorted(maps.Keys(co.groups)) {
		g := co.groups[id]
		if g.state == gsDead || !co.loaded[g.p] {
			continue
		}
		var removed []*Partition
		for p := range g.offsets {
			if gone[p] {
				removed = append(removed, p)
			}
		}
		for p := range g.writing {
			if gone[p] {
				delete(g.writing, p)
			}
		}
		if len(removed) == 0 {
			continue
		}
		sortParts(removed)
		var recs []log.Record
		for _, p := range removed {
			delete(g.offsets, p)
			delete(g.committedAt, p)
			recs = append(recs, log.Record{Key: "offset", Value: g.id + "/" + p.Name + "=" + tombstone, HasKey: true})
		}
		g.emit(fmt.Sprintf("offsets removed: %s (topic deleted)", partNames(removed)))
		if g.state == gsEmpty && len(g.offsets) == 0 && len(g.writing) == 0 {
			g.setState(gsDead, "Empty with no offsets left")
			g.joinGen++
			delete(co.groups, g.id)
			if g.generation > 0 {
				recs = append(recs, log.Record{Key: "group", Value: g.id + "=" + tombstone, HasKey: true})
			}
		}
		logName := g.p.Name
		co.appendInternalAt(g.p, recs, func(e string, base int64) {
			for i, p := range removed {
				at := int64(-1)
				if e == "" {
					at = base + int64(i)
				}
				c.history.commit(CommitRecord{Group: g.id, Partition: p.Name, Offset: -1, At: c.now, Log: logName, LogOffset: at, Gen: p.Topic.gen})
			}
		})
	}
}
