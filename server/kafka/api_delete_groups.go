package kafka

// DeleteGroups (key 42), v0-v2 (v1 is v0; v2 is flexible), from 1.1
// (KIP-229): the asked broker deletes the groups it coordinates
// (core.DeleteGroupsRequest): an Empty group becomes Dead and its offsets
// and metadata get tombstones in __consumer_offsets; NOT_COORDINATOR for
// a group another broker coordinates (clients find each group's
// coordinator first), GROUP_ID_NOT_FOUND for none, NON_EMPTY_GROUP for
// one with members. A group named twice is answered once, as Kafka takes
// the names as a set (GroupCoordinator.handleDeleteGroups).

import (
	"slices"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(42, 0, 2, handleDeleteGroups) }

func handleDeleteGroups(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.DeleteGroupsRequest)
	dr := &core.DeleteGroupsRequest{Groups: slices.Clone(req.Groups)}
	if dr.Groups == nil {
		dr.Groups = []string{}
	}
	return &plan{req: core.BrokerRequest{DeleteGroups: dr}, finish: func(rep *core.Reply) kmsg.Response {
		resp := req.ResponseKind().(*kmsg.DeleteGroupsResponse)
		if a := rep.DeleteGroups; a != nil {
			for _, g := range a.Groups {
				rg := kmsg.NewDeleteGroupsResponseGroup()
				rg.Group, rg.ErrorCode = g.Group, errCode(g.Error)
				resp.Groups = append(resp.Groups, rg)
			}
		}
		return resp
	}}, nil
}
