package kafka

// ListGroups (key 16), v0-v4, and DescribeGroups (key 15), v0-v5.
//
// Answered from the groups the asked broker coordinates (a group's
// coordinator holds it, as in Kafka; a client asks every broker to list
// all groups): state (Empty, PreparingRebalance, CompletingRebalance,
// Stable, Dead), protocol, members with client ids and their assignments
// encoded in the consumer protocol. Groups of the 0.8 preset live in
// ZooKeeper and are not listed.

import (
	"context"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() {
	register(16, 0, 4, handleListGroups)
	register(15, 0, 5, handleDescribeGroups)
}

// coordinated returns the groups broker id coordinates now.
func coordinated(cx *reqCtx) map[string]core.GroupView {
	out := map[string]core.GroupView{}
	cx.s.backend.Do(context.Background(), func(c *core.Cluster) {
		for _, g := range c.Snapshot().Groups {
			if g.Coordinator == cx.broker {
				out[g.Name] = g
			}
		}
	})
	return out
}

func handleListGroups(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.ListGroupsRequest)
	return local(cx, func() kmsg.Response {
		resp := req.ResponseKind().(*kmsg.ListGroupsResponse)
		for _, g := range coordinated(cx) {
			if len(req.StatesFilter) > 0 && !contains(req.StatesFilter, g.State) {
				continue
			}
			rg := kmsg.NewListGroupsResponseGroup()
			rg.Group, rg.ProtocolType, rg.GroupState = g.Name, "consumer", g.State
			resp.Groups = append(resp.Groups, rg)
		}
		return resp
	}), nil
}

func handleDescribeGroups(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.DescribeGroupsRequest)
	return local(cx, func() kmsg.Response {
		resp := req.ResponseKind().(*kmsg.DescribeGroupsResponse)
		groups := coordinated(cx)
		for _, name := range req.Groups {
			rg := kmsg.NewDescribeGroupsResponseGroup()
			rg.Group = name
			g, ok := groups[name]
			if !ok {
				rg.ErrorCode = 16 // NOT_COORDINATOR: this broker does not hold it
				resp.Groups = append(resp.Groups, rg)
				continue
			}
			rg.State, rg.ProtocolType, rg.Protocol = g.State, "consumer", g.Protocol
			for _, m := range g.Members {
				rm := kmsg.NewDescribeGroupsResponseGroupMember()
				rm.MemberID, rm.ClientID, rm.ClientHost = m.ID, m.Client, "/127.0.0.1"
				if m.InstanceID != "" {
					id := m.InstanceID
					rm.InstanceID = &id
				}
				var parts []core.GroupPartition
				for _, p := range m.Assignment {
					if gp, ok := splitPartition(p); ok {
						parts = append(parts, gp)
					}
				}
				rm.MemberAssignment = encodeAssignment(parts)
				rg.Members = append(rg.Members, rm)
			}
			resp.Groups = append(resp.Groups, rg)
		}
		return resp
	}), nil
}

func contains(v []string, s string) bool {
	for _, x := range v {
		if x == s {
			return true
		}
	}
	return false
}
