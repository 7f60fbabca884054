package core

import (
	"maps"
	"slices"
)

// deleteGroup is one group of a DeleteGroups request at this broker's
// coordinator: GroupCoordinator.handleDeleteGroups (to 3.9) and 4.0's
// GroupMetadataManager.deleteGroup with ClassicGroup.validateDeleteGroup.
// A group this broker does not coordinate is NOT_COORDINATOR; one it does
// not have, or a Dead one, GROUP_ID_NOT_FOUND (an empty group id is
// looked up like any, as both coordinators allow it for DeleteGroups);
// one with members or rebalancing NON_EMPTY_GROUP. An Empty group becomes
// Dead: its offsets and its metadata get tombstones
// (GroupMetadataManager.cleanupGroupMetadata with removeAllOffsets).
// Up to 3.9 the answer comes once the tombstones are appended to the
// leader's log, which does not wait for the followers (requiredAcks 0:
// "even if the tombstone is lost, it will be appended again in the next
// purge cycle"); 4.0's CoordinatorRuntime answers a write operation once
// it is committed, and a failed write with its error (runtimeStoreError),
// though the group here is already gone, where the runtime would have
// reverted it.
func (co *coordinator) deleteGroup(id string, respond func(err string)) {
	g, err := co.lookup(id, false)
	switch {
	case err != "":
		respond(err)
		return
	case g.state == gsDead:
		respond("GROUP_ID_NOT_FOUND")
		return
	case g.state != gsEmpty:
		respond("NON_EMPTY_GROUP")
		return
	}
	parts := slices.Collect(maps.Keys(g.offsets))
	sortParts(parts)
	g.emit("deleted (DeleteGroups): its offsets and metadata get tombstones")
	if !co.b.c.preset.runtimeStoreErrors {
		co.dropOffsets(g, parts, "deleted by DeleteGroups", nil)
		respond("")
		return
	}
	co.dropOffsets(g, parts, "deleted by DeleteGroups", func(e string) {
		if e != "" {
			e = runtimeStoreError(e)
		}
		respond(e)
	})
}
