package core

import (
	"fmt"
	"maps"
	"slices"
)

// onPartitionsDeleted is GroupCoordinator.onPartitionsDeleted
// (GroupMetadataManager.cleanupGroupMetadata with the deleted partitions):
// every group this coordinator has loaded forgets the offsets committed
// for them, pending commits included (GroupMetadata.removeOffsets), and a
// tombstone goes to __consumer_offsets for each, so that a coordinator
// loading the log later, or a topic created again with the same name,
// does not find them. An Empty group left with no offsets becomes Dead.
func (co *coordinator) onPartitionsDeleted(parts []*Partition) {
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
		g.emit(fmt.Sprintf("offsets removed: %s (topic deleted)", partNames(removed)))
		co.removeOffsets(g, removed)
	}
}
