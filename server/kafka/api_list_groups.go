package kafka

// ListGroups (key 16), v0-v5.
//
// Answered from the groups the asked broker coordinates (a group's
// coordinator holds it, as in Kafka; a client asks every broker to list
// all groups), with their state (Empty, PreparingRebalance,
// CompletingRebalance, Stable, Dead); v4 filters by state (KIP-518). v5
// (KIP-848) adds each group's type and a filter by type: every group here
// is a classic one, type "classic", so a types filter keeps them all when
// it names classic and none otherwise (3.9's GroupCoordinator.
// handleListGroups: the old coordinator's groups are all classic; 4.0's
// GroupMetadataManager.listGroups). Types are matched case-insensitively
// (Group.GroupType.parse), and so are states from 3.9 on (isInStates
// compares lower-cased names; 4.0 also trims them); 2.8 matches states
// exactly. Groups of the 0.8 preset live in ZooKeeper and are not listed.

import (
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(16, 0, 5, handleListGroups) }

func handleListGroups(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.ListGroupsRequest)
	return local(cx, func() kmsg.Response {
		resp := req.ResponseKind().(*kmsg.ListGroupsResponse)
		co := coordinated(cx)
		classic := len(req.TypesFilter) == 0
		for _, typ := range req.TypesFilter {
			classic = classic || strings.EqualFold(typ, "classic")
		}
		if !classic {
			return resp
		}
		for _, g := range co.groups {
			if len(req.StatesFilter) > 0 && !co.inStates(g.State, req.StatesFilter) {
				continue
			}
			rg := kmsg.NewListGroupsResponseGroup()
			rg.Group, rg.ProtocolType, rg.GroupState, rg.GroupType = g.Name, groupProtocolType(g), g.State, "classic"
			resp.Groups = append(resp.Groups, rg)
		}
		return resp
	}), nil
}

// inStates reports whether a group in state passes a ListGroups states
// filter, as the preset's coordinator matches it.
func (co coordination) inStates(state string, filter []string) bool {
	switch co.version {
	case "0.8", "0.11", "2.8":
		return contains(filter, state)
	}
	for _, f := range filter {
		if co.version == "4.0" {
			f = strings.TrimSpace(f)
		}
		if strings.EqualFold(f, state) {
			return true
		}
	}
	return false
}

func contains(v []string, s string) bool {
	for _, x := range v {
		if x == s {
			return true
		}
	}
	return false
}
