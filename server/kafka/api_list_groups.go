package kafka

// ListGroups (key 16), v0-v4.
//
// Answered from the groups the asked broker coordinates (a group's
// coordinator holds it, as in Kafka; a client asks every broker to list
// all groups), with their state (Empty, PreparingRebalance,
// CompletingRebalance, Stable, Dead); v4 filters by state
// (KIP-518). Groups of the 0.8 preset live in ZooKeeper and are not
// listed.

import (
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(16, 0, 4, handleListGroups) }

func handleListGroups(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.ListGroupsRequest)
	return local(cx, func() kmsg.Response {
		resp := req.ResponseKind().(*kmsg.ListGroupsResponse)
		for _, g := range coordinated(cx).groups {
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

func contains(v []string, s string) bool {
	for _, x := range v {
		if x == s {
			return true
		}
	}
	return false
}
