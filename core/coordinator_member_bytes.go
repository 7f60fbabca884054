package core

import "slices"

// A classic group keeps each member's protocol metadata as the bytes the
// member sent in JoinGroup, and its assignment as the bytes its leader
// sent in SyncGroup (GroupCoordinator's MemberMetadata.supportedProtocols
// and .assignment are opaque byte arrays), and answers with them: the
// leader's JoinGroup gets every member's metadata for the selected
// protocol, DescribeGroups both. Real clients' bytes carry what the core
// does not decode (an assignor's user data). The core's own consumers
// send no bytes, so what they joined with is encoded from the
// subscription by whoever answers.

// setRawMeta keeps raw as m's metadata bytes, one per protocol, while the
// group's kept metadata stays within MaxRawAssignmentBytes in all (the
// bound a SyncGroup's assignments have too); past it m keeps none and is
// answered re-encoded. nil forgets m's.
func (g *group) setRawMeta(m *gmember, raw []string) {
	g.rawMetaBytes -= rawSize(m.rawMeta)
	m.rawMeta = nil
	if n := rawSize(raw); raw != nil && g.rawMetaBytes+n <= MaxRawAssignmentBytes {
		m.rawMeta = slices.Clone(raw)
		g.rawMetaBytes += n
	}
}

func rawSize(raw []string) int {
	n := 0
	for _, s := range raw {
		n += len(s)
	}
	return n
}

// metadataFor is m's metadata bytes for protocol as it sent them, ""
// when not kept.
func (m *gmember) metadataFor(protocol string) string {
	if i := slices.Index(m.protocols, protocol); i >= 0 && i < len(m.rawMeta) {
		return m.rawMeta[i]
	}
	return ""
}

// DescribedMember is a group member as DescribeGroups answers it: its
// client id, its subscription (Metadata: the bytes it sent in JoinGroup for the group's
// protocol, "" when not kept as sent) and its assignment, Raw being the
// bytes its leader sent in SyncGroup ("" when not kept, the assignment
// then re-encoded from Assignment).
type DescribedMember struct {
	JoinGroupMember
	Client     string
	Assignment []GroupPartition
	Raw        string
}

// DescribeGroupMembers is the members of group as its coordinator keeps
// them (GroupCoordinator.handleDescribeGroup: member.metadata(protocol)
// and member.assignment), in join order; nil without such a group.
func (c *Cluster) DescribeGroupMembers(name string) []DescribedMember {
	g := c.group(name)
	if g == nil {
		return nil
	}
	out := make([]DescribedMember, 0, len(g.members))
	for _, m := range g.sortedMembers() {
		d := DescribedMember{JoinGroupMember: joinGroupMember(m.sub), Client: m.client, Raw: m.raw}
		d.MemberID, d.Metadata = m.id, m.metadataFor(g.protocol)
		for _, p := range m.assignment {
			d.Assignment = append(d.Assignment, GroupPartition{Topic: p.Topic.Name, Partition: int32(p.ID)})
		}
		out = append(out, d)
	}
	return out
}
