package assign

import "slices"

// compareMemberInfo orders members like AbstractPartitionAssignor.MemberInfo
// (KIP-345, Kafka 2.3+): static members (with a group.instance.id) first,
// ordered by instance id, then dynamic members ordered by member id, all in
// Java String order. Two static members with the same instance id compare
// equal in Kafka (their order then depends on HashMap iteration); here they
// are ordered by member id so the result is deterministic.
func compareMemberInfo(a, b *member) int {
	switch {
	case a.instanceID != "" && b.instanceID != "":
		if c := javaCompare(a.instanceID, b.instanceID); c != 0 {
			return c
		}
		return javaCompare(a.id, b.id)
	case a.instanceID != "":
		return -1
	case b.instanceID != "":
		return 1
	default:
		return javaCompare(a.id, b.id)
	}
}

// sortedMembers returns g's members in MemberInfo order.
func (g *group) sortedMembers() []*member {
	ms := make([]*member, 0, len(g.ids))
	for _, id := range g.ids {
		ms = append(ms, g.members[id])
	}
	slices.SortFunc(ms, compareMemberInfo)
	return ms
}
