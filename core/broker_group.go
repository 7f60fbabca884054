package core

// The classic consumer group protocol as the coordinator broker answers
// it: JoinGroup, SyncGroup, Heartbeat and LeaveGroup (KafkaApis hands
// them to the GroupCoordinator). Each is refused with NOT_COORDINATOR on
// a broker that does not lead the group's __consumer_offsets partition.
// The membership logic is coordinator_membership.go; offsets are
// broker_offsets.go.

// syncReq is a SyncGroup request; the leader's carries the assignment.
type syncReq struct {
	group      string
	memberID   string
	generation int
	assignment map[string][]*Partition // member id -> partitions (leader only)
	raw        map[string]string       // member id -> the leader's bytes of it (an outside leader's)
}

// heartbeatReq is a Heartbeat request.
type heartbeatReq struct {
	group      string
	memberID   string
	instance   string // group.instance.id (v3+, KIP-345), "" for none
	generation int
}

// leaveReq is a LeaveGroup request (one member, as before KIP-345's batch).
type leaveReq struct {
	group    string
	memberID string
}

// handleJoinGroup is GroupCoordinator.handleJoinGroup: the group is
// created on first use; respond runs when the join completes (a JoinGroup
// waits in purgatory for the rest of the group).
func (b *Broker) handleJoinGroup(req joinReq, respond func(joinResult)) {
	g, err := b.groups.lookup(req.group, true)
	if err != "" {
		respond(joinResult{err: err})
		return
	}
	g.join(req, respond)
}

// handleSyncGroup is GroupCoordinator.handleSyncGroup: respond runs once
// the leader's assignment is stored.
func (b *Broker) handleSyncGroup(req syncReq, respond func(syncResult)) {
	g, err := b.groups.memberGroup(req.group)
	if err != "" {
		respond(syncResult{err: err})
		return
	}
	g.sync(req.memberID, req.generation, req.assignment, req.raw, respond)
}

// handleHeartbeat is GroupCoordinator.handleHeartbeat; it returns the
// error name, "" for none.
func (b *Broker) handleHeartbeat(req heartbeatReq) string {
	g, err := b.groups.memberGroup(req.group)
	if err == "" {
		err = g.heartbeat(req.memberID, req.instance, req.generation)
	}
	return err
}

// memberGroup looks up the group a member's SyncGroup or Heartbeat names:
// one the coordinator does not have (expired and removed, say) answers
// UNKNOWN_MEMBER_ID, so the member joins afresh, never GROUP_ID_NOT_FOUND
// (3.9's GroupCoordinator.handleSyncGroup and handleHeartbeat on "case
// None"; 4.0's GroupMetadataManager.classicGroupSync and
// classicGroupHeartbeat catch GroupIdNotFoundException). A consumer
// answered GROUP_ID_NOT_FOUND took it for a lost coordinator and, found
// again, heartbeated the same missing group for ever.
func (co *coordinator) memberGroup(id string) (*group, string) {
	g, err := co.lookup(id, false)
	if err == "GROUP_ID_NOT_FOUND" {
		err = "UNKNOWN_MEMBER_ID"
	}
	return g, err
}

// handleLeaveGroup is GroupCoordinator.handleLeaveGroup; it returns the
// member's error name, "" for none. For a group the coordinator does not
// have the member is UNKNOWN_MEMBER_ID: 3.9's handleLeaveGroup answers
// "case None" with each member UNKNOWN_MEMBER_ID and no top-level error,
// and 4.0's GroupCoordinatorService.leaveGroup turns
// classicGroupLeave's UnknownMemberIdException ("Group G not found.")
// into the same per-member answer. Only NOT_COORDINATOR (and its
// kind) is the whole request's (leaveGroupTopLevel).
func (b *Broker) handleLeaveGroup(req leaveReq) string {
	g, err := b.groups.lookup(req.group, false)
	if err == "GROUP_ID_NOT_FOUND" {
		return "UNKNOWN_MEMBER_ID"
	}
	if err == "" {
		err = g.leave(req.memberID)
	}
	return err
}

// leaveGroupTopLevel reports whether a LeaveGroup error is the request's
// rather than a member's: the coordinator's own state
// (GroupCoordinator.validateGroupStatus, leaveError(error, List.empty)),
// answered with no members.
func leaveGroupTopLevel(err string) bool {
	switch err {
	case "NOT_COORDINATOR", "COORDINATOR_NOT_AVAILABLE", "COORDINATOR_LOAD_IN_PROGRESS":
		return true
	}
	return false
}
