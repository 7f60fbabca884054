package core

import "errors"

// DeleteGroupsRequest is an outside client's DeleteGroups
// (Admin.deleteConsumerGroups, kafka-consumer-groups.sh --delete): the
// groups to delete, at the broker that coordinates them.
type DeleteGroupsRequest struct {
	Groups []string `json:"groups"`
}

// DeleteGroupsResponse answers a DeleteGroupsRequest: one result per
// group named, in request order, a group named twice once (Kafka takes
// the names as a set).
type DeleteGroupsResponse struct {
	Groups []DeleteGroupResult `json:"groups"`
}

// DeleteGroupResult is one group's answer: Error is "" once the group is
// deleted, else NOT_COORDINATOR, GROUP_ID_NOT_FOUND (no such group, or
// Dead), NON_EMPTY_GROUP (it has members or is rebalancing),
// COORDINATOR_NOT_AVAILABLE (0.8: groups in ZooKeeper) or, on 4.0, the
// error of the failed write of its tombstones.
type DeleteGroupResult struct {
	Group string `json:"group"`
	Error string `json:"error,omitempty"`
}

type deleteGroupsBody struct{ r *DeleteGroupsRequest }

func (b deleteGroupsBody) api() string    { return "DeleteGroups" }
func (b deleteGroupsBody) answered() bool { return true }
func (b deleteGroupsBody) check() error {
	if len(b.r.Groups) > maxCoordinatorGroups {
		return errors.New("too many groups in one request")
	}
	return nil
}

// serve is KafkaApis.handleDeleteGroupsRequest: each distinct group to
// the asked broker's coordinator (coordinator.deleteGroup), one answer
// once every group has its result.
func (b deleteGroupsBody) serve(x *extConns, cn *extConn, done func(*Reply)) {
	var names []string
	seen := map[string]bool{}
	for _, g := range b.r.Groups {
		if !seen[g] {
			seen[g] = true
			names = append(names, g)
		}
	}
	resp := &DeleteGroupsResponse{Groups: make([]DeleteGroupResult, len(names))}
	if len(names) == 0 {
		done(&Reply{DeleteGroups: resp})
		return
	}
	left := len(names)
	for i, g := range names {
		respond := func(err string) {
			resp.Groups[i] = DeleteGroupResult{Group: g, Error: err}
			if left--; left == 0 {
				done(&Reply{DeleteGroups: resp})
			}
		}
		if x.c.preset.offsetsInZK {
			respond("COORDINATOR_NOT_AVAILABLE") // 0.8: no broker coordinates groups
			continue
		}
		cn.broker.groups.deleteGroup(g, respond)
	}
}
