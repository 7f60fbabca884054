package kafka

// DescribeGroups (key 15), v0-v6.
//
// Answered by the group's coordinator from the group it holds: state,
// protocol, members with client ids, instance ids (v4+), the metadata
// each sent in JoinGroup for the group's protocol and the assignment its
// leader sent in SyncGroup, as the bytes that came
// (GroupCoordinator.handleDescribeGroup: member.metadata(protocol),
// member.assignment); a simulated member's, or one the group did not
// keep (past core.MaxRawAssignmentBytes), encoded in the consumer
// protocol from its subscription and partitions. A group nobody has
// joined, asked of the broker that leads its __consumer_offsets
// partition, is Dead with no error (GroupCoordinator.handleDescribeGroup
// returns DeadGroup: "does not exist" for kafka-consumer-groups.sh);
// asked of another broker it is NOT_COORDINATOR, with no message. v6
// (4.0, KIP-1043) answers that group GROUP_ID_NOT_FOUND instead, state
// Dead, with the message "Group G not found." (GroupMetadataManager.
// describeGroups: requestVersion() >= 6; the GroupIdNotFoundException's
// message).

import (
	"context"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/hash"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(15, 0, 6, handleDescribeGroups) }

// coordination is what the asked broker coordinates now: its groups,
// and which partitions of __consumer_offsets it leads (whose groups it
// would coordinate), by partition number.
type coordination struct {
	groups  map[string]core.GroupView
	members map[string][]core.DescribedMember // DescribeGroups' groups only
	leads   []bool
	version string // the cluster's preset
}

// coordinated reads the asked broker's coordination from the cluster,
// with the members of the groups described.
func coordinated(cx *reqCtx, described ...string) coordination {
	co := coordination{groups: map[string]core.GroupView{}, members: map[string][]core.DescribedMember{}}
	cx.s.backend.Do(context.Background(), func(c *core.Cluster) {
		co.version = c.Version()
		snap := c.Snapshot()
		for _, g := range snap.Groups {
			if g.Coordinator == cx.broker {
				co.groups[g.Name] = g
			}
		}
		for _, name := range described {
			if _, ok := co.groups[name]; ok {
				co.members[name] = c.DescribeGroupMembers(name)
			}
		}
		for _, t := range snap.Topics {
			if t.Name != "__consumer_offsets" {
				continue
			}
			co.leads = make([]bool, len(t.Partitions))
			for i, p := range t.Partitions {
				for _, r := range p.Replicas {
					co.leads[i] = co.leads[i] || r.Broker == cx.broker && r.Role == "leader"
				}
			}
		}
	})
	return co
}

// hosts reports whether the broker leads group's partition of
// __consumer_offsets (GroupMetadataManager.partitionFor: abs(hashCode)
// modulo the partition count).
func (co coordination) hosts(group string) bool {
	return len(co.leads) > 0 && co.leads[hash.CoordinatorPartition(group, len(co.leads))]
}

func handleDescribeGroups(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.DescribeGroupsRequest)
	return local(cx, func() kmsg.Response {
		resp := req.ResponseKind().(*kmsg.DescribeGroupsResponse)
		co := coordinated(cx, req.Groups...)
		for _, name := range req.Groups {
			rg := kmsg.NewDescribeGroupsResponseGroup()
			rg.Group = name
			g, ok := co.groups[name]
			if !ok {
				if co.hosts(name) {
					rg.State = "Dead" // GroupCoordinator.DeadGroup: no such group
					if req.Version >= 6 {
						msg := "Group " + name + " not found."
						rg.ErrorCode, rg.ErrorMessage = 69, &msg // GROUP_ID_NOT_FOUND
					}
				} else {
					rg.ErrorCode = 16 // NOT_COORDINATOR: this broker does not hold it
				}
				resp.Groups = append(resp.Groups, rg)
				continue
			}
			// GroupMetadata.summary: the protocol, and each member's
			// metadata and assignment, only for a Stable group; in any
			// other state the protocol is GroupCoordinator.NoProtocol ("")
			// and the members come without them (summaryNoMetadata). The
			// protocol type is the group's (groupProtocolType).
			stable := g.State == "Stable"
			rg.State, rg.ProtocolType = g.State, groupProtocolType(g)
			if stable {
				rg.Protocol = g.Protocol
			}
			for _, m := range co.members[name] {
				rm := describedMember(m)
				if !stable {
					rm.ProtocolMetadata, rm.MemberAssignment = []byte{}, []byte{}
				}
				rg.Members = append(rg.Members, rm)
			}
			resp.Groups = append(resp.Groups, rg)
		}
		return resp
	}), nil
}

// groupProtocolType is a group's protocol type as DescribeGroups and
// ListGroups answer it (GroupMetadata.protocolType.getOrElse("")): the
// one its first member joined with since (only "consumer" is served), none
// for a group that only commits made.
func groupProtocolType(g core.GroupView) string {
	if g.Generation > 0 || len(g.Members) > 0 {
		return "consumer"
	}
	return ""
}

// describedMember is one member in DescribeGroups: its metadata and
// assignment as they came when the group kept them, else encoded.
func describedMember(m core.DescribedMember) kmsg.DescribeGroupsResponseGroupMember {
	rm := kmsg.NewDescribeGroupsResponseGroupMember()
	rm.MemberID, rm.ClientID, rm.ClientHost = m.MemberID, m.Client, "/127.0.0.1"
	if m.InstanceID != "" {
		id := m.InstanceID
		rm.InstanceID = &id
	}
	rm.ProtocolMetadata, rm.MemberAssignment = encodeSubscription(m.JoinGroupMember), encodeAssignment(m.Assignment)
	if m.Metadata != "" {
		rm.ProtocolMetadata = []byte(m.Metadata)
	}
	if m.Raw != "" {
		rm.MemberAssignment = []byte(m.Raw)
	}
	return rm
}
