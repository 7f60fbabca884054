package core

import "slices"

// deleteOffsets is one OffsetDelete request (KIP-496, 2.4+) at this
// broker's coordinator: GroupCoordinator.handleDeleteOffsets (to 3.9).
// A group this broker does not coordinate is NOT_COORDINATOR; one it
// does not have, or a Dead one, GROUP_ID_NOT_FOUND. An Empty group's
// offsets of parts are all deleted; a group with members (every group
// here has the consumer protocol type: the protocol layer refuses any
// other) keeps those of the topics its members subscribe to, answered
// GROUP_SUBSCRIBED_TO_TOPIC, and the others are deleted. The deleted
// ones, those the group had, get tombstones in __consumer_offsets
// (GroupMetadataManager.cleanupGroupMetadata with GroupMetadata
// .removeOffsets), and an Empty group left with no offsets becomes Dead.
// Every partition deleted is answered without error, whether the group
// had an offset there or not. Up to 3.9 the answer comes once the
// tombstones are appended to the leader's log (requiredAcks 0); 4.0's
// runtime answers once they are committed, a failed write with its error
// for the whole request (OffsetMetadataManager.deleteOffsets), as
// deleteGroup does. respond gets the group's error, or the partitions
// refused.
func (co *coordinator) deleteOffsets(id string, parts []*Partition, respond func(err string, subscribed map[*Partition]bool)) {
	g, err := co.lookup(id, false)
	switch {
	case err != "":
		respond(err, nil)
		return
	case g.state == gsDead:
		respond("GROUP_ID_NOT_FOUND", nil)
		return
	}
	subscribed := map[*Partition]bool{}
	var eligible []*Partition // the eligible ones the group has an offset of
	some := false
	for _, p := range parts {
		if g.state != gsEmpty && g.isSubscribedToTopic(p.Topic.Name) {
			subscribed[p] = true
			continue
		}
		some = true
		if _, has := g.offsets[p]; has && !slices.Contains(eligible, p) {
			eligible = append(eligible, p)
		}
	}
	if !some {
		respond("", subscribed) // nothing eligible: cleanupGroupMetadata is not called
		return
	}
	sortParts(eligible)
	if len(eligible) > 0 {
		g.emit("offsets deleted (OffsetDelete): " + partNames(eligible))
	}
	if !co.b.c.preset.runtimeStoreErrors {
		co.dropOffsets(g, eligible, "", nil)
		respond("", subscribed)
		return
	}
	co.dropOffsets(g, eligible, "", func(e string) {
		if e != "" {
			respond(runtimeStoreError(e), nil)
			return
		}
		respond("", subscribed)
	})
}

// isSubscribedToTopic is GroupMetadata.isSubscribedToTopic: whether the
// members of the group's current generation subscribe to topic; when
// the group does not know (no generation yet), it answers yes, to be
// safe.
func (g *group) isSubscribedToTopic(topic string) bool {
	if g.subscribed == nil {
		return true
	}
	return g.subscribed[topic]
}

// computeSubscribedTopics is GroupMetadata.computeSubscribedTopics, run
// when a generation starts (initNextGeneration) and when the group is
// loaded: the topics its members subscribe to, none for a group without
// members.
func (g *group) computeSubscribedTopics() map[string]bool {
	out := map[string]bool{}
	for _, m := range g.members {
		for _, t := range m.sub.Topics {
			out[t] = true
		}
	}
	return out
}
