package core

import (
	"fmt"
	"slices"

	"github.com/kafkasim/kafkasim/core/assign"
)

// The classic group protocol for outside consumers: JoinGroup, SyncGroup,
// Heartbeat and LeaveGroup on the coordinator an outside connection
// reaches, answered by the same GroupCoordinator logic the simulated
// consumers use (coordinator_membership.go). Real clients assign
// partitions themselves (the leader's SyncGroup carries the assignment),
// so subscriptions and assignments cross as topics and partitions: the
// protocol layer decodes and encodes the ConsumerProtocol bytes.

// GroupPartition is one partition of a subscription's owned list or an
// assignment.
type GroupPartition struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
}

// JoinGroupRequest joins (or rejoins) a group. MemberID "" asks for one:
// from 2.2 (KIP-394) the answer is MEMBER_ID_REQUIRED with the id, unless
// the member is static (InstanceID: it joins at once) or PreKIP394.
// Protocols are the assignor names in preference order; Topics and Owned
// are the subscription (ConsumerProtocolSubscription) and Generation the
// one Owned is from. PreKIP394 marks a JoinGroup below v4, from a client
// that predates KIP-394 and does not know MEMBER_ID_REQUIRED (kafka-python
// 2.0 sends v2): Kafka joins such a member at once too (KafkaApis:
// requireKnownMemberId = version >= 4 && groupInstanceId is empty).
// Reason is JoinGroup v8+'s reason (KIP-800), at most MaxJoinReasonBytes:
// Kafka only writes it in the rebalance's reason ("client reason: ..."),
// as the group's event here. PreKIP814 marks a JoinGroup below v9: a
// static member coming back under a new member id to a Stable group is
// not told its group's members when it is the leader, and the answer
// names the old member id as the leader, so that it does not assign
// (GroupCoordinator.updateStaticMemberAndRebalance); from v9 (KIP-814)
// the leader gets the members with SkipAssignment instead. Metadata,
// when set, is each protocol's metadata as the client sent it, parallel
// to Protocols, at most MaxRawAssignmentBytes in all: the group keeps the
// bytes and answers them (the leader's JoinGroup, DescribeGroups), so an
// assignor's user data reaches the leader as Kafka passes it on.
type JoinGroupRequest struct {
	Group       string           `json:"group"`
	MemberID    string           `json:"memberId"`
	InstanceID  string           `json:"instanceId,omitempty"`
	ClientID    string           `json:"clientId"`
	SessionMs   int32            `json:"sessionMs"`
	RebalanceMs int32            `json:"rebalanceMs"`
	Protocols   []string         `json:"protocols"`
	Topics      []string         `json:"topics"`
	Owned       []GroupPartition `json:"owned,omitempty"`
	Generation  int32            `json:"generation"`
	PreKIP394   bool             `json:"preKip394,omitempty"`
	Reason      string           `json:"reason,omitempty"`
	PreKIP814   bool             `json:"preKip814,omitempty"`
	Metadata    []string         `json:"metadata,omitempty"`
}

// MaxJoinReasonBytes bounds a JoinGroupRequest's Reason.
const MaxJoinReasonBytes = 256

// JoinGroupResponse is the new generation; the leader also gets every
// member's subscription. SkipAssignment (v9+, KIP-814) tells a static
// leader that rejoined a Stable group not to assign: the group keeps its
// assignment.
type JoinGroupResponse struct {
	Error          string            `json:"error,omitempty"`
	Generation     int32             `json:"generation"`
	Protocol       string            `json:"protocol"`
	Leader         string            `json:"leader"`
	MemberID       string            `json:"memberId"`
	Members        []JoinGroupMember `json:"members,omitempty"`
	SkipAssignment bool              `json:"skipAssignment,omitempty"`
}

// JoinGroupMember is one member's subscription, for the leader;
// Metadata is its bytes for the group's protocol as the member sent them
// ("" when it sent none the group keeps: encode the subscription).
type JoinGroupMember struct {
	MemberID   string           `json:"memberId"`
	InstanceID string           `json:"instanceId,omitempty"`
	Topics     []string         `json:"topics"`
	Owned      []GroupPartition `json:"owned,omitempty"`
	Generation int32            `json:"generation"`
	Metadata   string           `json:"metadata,omitempty"`
}

// joinGroupMember is a subscription as a JoinGroupMember.
func joinGroupMember(m assign.Member) JoinGroupMember {
	jm := JoinGroupMember{MemberID: m.ID, InstanceID: m.InstanceID, Topics: slices.Clone(m.Topics), Generation: int32(m.Generation)}
	for _, o := range m.Owned {
		jm.Owned = append(jm.Owned, GroupPartition{Topic: o.Topic, Partition: int32(o.Partition)})
	}
	return jm
}

// SyncGroupRequest ends a join; the leader's carries every member's
// assignment. Raw, when set, is each member's assignment as the leader's
// client encoded it (the consumer protocol's bytes, what Assignments
// says), at most MaxRawAssignmentBytes in all: Kafka keeps a member's
// assignment as the bytes the leader sent and answers with them
// (GroupMetadata's MemberMetadata.assignment), so a client that compares
// them with its own (franz-go, after KIP-814's SkipAssignment) finds
// them equal.
type SyncGroupRequest struct {
	Group       string                      `json:"group"`
	MemberID    string                      `json:"memberId"`
	Generation  int32                       `json:"generation"`
	Assignments map[string][]GroupPartition `json:"assignments,omitempty"`
	Raw         map[string]string           `json:"raw,omitempty"`
}

// MaxRawAssignmentBytes bounds a SyncGroupRequest's Raw, all members'
// together: what a group keeps as sent (a larger one is re-encoded from
// its partitions), ample for an assignment of tens of thousands of
// partitions.
const MaxRawAssignmentBytes = 256 << 10

// SyncGroupResponse is this member's assignment; Raw is its bytes as the
// leader sent them, when it sent them (SyncGroupRequest.Raw).
type SyncGroupResponse struct {
	Error      string           `json:"error,omitempty"`
	Protocol   string           `json:"protocol,omitempty"`
	Assignment []GroupPartition `json:"assignment"`
	Raw        string           `json:"raw,omitempty"`
}

// HeartbeatRequest keeps a member's session alive.
type HeartbeatRequest struct {
	Group      string `json:"group"`
	MemberID   string `json:"memberId"`
	InstanceID string `json:"instanceId,omitempty"` // group.instance.id, v3+
	Generation int32  `json:"generation"`
}

// LeaveGroupRequest takes members out of a group (one per member id, as
// the coordinator handles them).
type LeaveGroupRequest struct {
	Group     string   `json:"group"`
	MemberIDs []string `json:"memberIds"`
}

// GroupErrorResponse is the answer of Heartbeat and LeaveGroup: one error
// per request (LeaveGroup: per member, in request order, in Members).
type GroupErrorResponse struct {
	Error   string   `json:"error,omitempty"`
	Members []string `json:"members,omitempty"`
}

type joinGroupBody struct{ r *JoinGroupRequest }

func (b joinGroupBody) api() string    { return "JoinGroup" }
func (b joinGroupBody) answered() bool { return true }
func (b joinGroupBody) check() error {
	if len(b.r.Reason) > MaxJoinReasonBytes {
		return fmt.Errorf("join reason of %d bytes (limit %d)", len(b.r.Reason), MaxJoinReasonBytes)
	}
	if len(b.r.Metadata) > 0 && len(b.r.Metadata) != len(b.r.Protocols) {
		return fmt.Errorf("metadata for %d protocols of %d", len(b.r.Metadata), len(b.r.Protocols))
	}
	if n := rawSize(b.r.Metadata); n > MaxRawAssignmentBytes {
		return fmt.Errorf("protocol metadata of %d bytes (limit %d)", n, MaxRawAssignmentBytes)
	}
	return checkPartitionCount(len(b.r.Topics) + len(b.r.Owned) + len(b.r.Protocols))
}
func (b joinGroupBody) serve(x *extConns, cn *extConn, done func(*Reply)) {
	r := b.r
	client := r.ClientID
	if client == "" {
		client = cn.host.node.name
	}
	req := joinReq{group: r.Group, memberID: r.MemberID, client: client, instance: r.InstanceID, preKIP394: r.PreKIP394, preKIP814: r.PreKIP814, reason: r.Reason,
		rawMeta: r.Metadata, protocols: slices.Clone(r.Protocols), sessionMs: int64(r.SessionMs), rebalanceMs: int64(r.RebalanceMs),
		sub: assign.Member{InstanceID: r.InstanceID, Topics: slices.Clone(r.Topics), Generation: int(r.Generation)}}
	for _, o := range r.Owned {
		req.sub.Owned = append(req.sub.Owned, assign.TopicPartition{Topic: o.Topic, Partition: int(o.Partition)})
	}
	switch {
	case r.Group == "":
		done(&Reply{JoinGroup: &JoinGroupResponse{Error: "INVALID_GROUP_ID", Generation: -1}})
		return
	case len(r.Protocols) == 0:
		done(&Reply{JoinGroup: &JoinGroupResponse{Error: "INCONSISTENT_GROUP_PROTOCOL", Generation: -1}})
		return
	case x.c.preset.offsetsInZK:
		done(&Reply{JoinGroup: &JoinGroupResponse{Error: "COORDINATOR_NOT_AVAILABLE", Generation: -1}})
		return
	}
	cn.broker.handleJoinGroup(req, func(res joinResult) {
		out := &JoinGroupResponse{Error: res.err, Generation: int32(res.generation), Protocol: res.protocol,
			Leader: res.leader, MemberID: res.memberID, SkipAssignment: res.skipAssignment}
		if res.err != "" && res.err != "MEMBER_ID_REQUIRED" && !res.storeFailed {
			out.Generation = -1
		}
		for i, m := range res.members {
			jm := joinGroupMember(m)
			if i < len(res.rawMeta) {
				jm.Metadata = res.rawMeta[i]
			}
			out.Members = append(out.Members, jm)
		}
		done(&Reply{JoinGroup: out})
	})
}

type syncGroupBody struct{ r *SyncGroupRequest }

func (b syncGroupBody) api() string    { return "SyncGroup" }
func (b syncGroupBody) answered() bool { return true }
func (b syncGroupBody) check() error {
	n, raw := len(b.r.Raw), 0
	for _, a := range b.r.Assignments {
		n += len(a) + 1
	}
	for id, a := range b.r.Raw {
		raw += len(id) + len(a)
	}
	if raw > MaxRawAssignmentBytes {
		return fmt.Errorf("raw assignments of %d bytes (limit %d)", raw, MaxRawAssignmentBytes)
	}
	return checkPartitionCount(n)
}
func (b syncGroupBody) serve(x *extConns, cn *extConn, done func(*Reply)) {
	r := b.r
	var asg map[string][]*Partition
	if r.Assignments != nil {
		asg = map[string][]*Partition{}
		for id, parts := range r.Assignments {
			for _, gp := range parts {
				if p, err := x.partition(gp.Topic, gp.Partition); err == "" {
					asg[id] = append(asg[id], p)
				}
			}
		}
	}
	cn.broker.handleSyncGroup(syncReq{group: r.Group, memberID: r.MemberID, generation: int(r.Generation), assignment: asg, raw: r.Raw}, func(res syncResult) {
		out := &SyncGroupResponse{Error: res.err, Assignment: []GroupPartition{}, Raw: res.raw}
		for _, p := range res.assignment {
			out.Assignment = append(out.Assignment, GroupPartition{Topic: p.Topic.Name, Partition: int32(p.ID)})
		}
		if g, _ := cn.broker.groups.lookup(r.Group, false); g != nil {
			out.Protocol = g.protocol
		}
		done(&Reply{SyncGroup: out})
	})
}

type heartbeatBody struct{ r *HeartbeatRequest }

func (b heartbeatBody) api() string    { return "Heartbeat" }
func (b heartbeatBody) answered() bool { return true }
func (b heartbeatBody) check() error   { return nil }
func (b heartbeatBody) serve(x *extConns, cn *extConn, done func(*Reply)) {
	err := cn.broker.handleHeartbeat(heartbeatReq{group: b.r.Group, memberID: b.r.MemberID, instance: b.r.InstanceID, generation: int(b.r.Generation)})
	done(&Reply{Heartbeat: &GroupErrorResponse{Error: err}})
}

type leaveGroupBody struct{ r *LeaveGroupRequest }

func (b leaveGroupBody) api() string    { return "LeaveGroup" }
func (b leaveGroupBody) answered() bool { return true }
func (b leaveGroupBody) check() error   { return checkPartitionCount(len(b.r.MemberIDs)) }
func (b leaveGroupBody) serve(x *extConns, cn *extConn, done func(*Reply)) {
	out := &GroupErrorResponse{Members: []string{}}
	for _, id := range b.r.MemberIDs {
		err := cn.broker.handleLeaveGroup(leaveReq{group: b.r.Group, memberID: id})
		if leaveGroupTopLevel(err) {
			done(&Reply{LeaveGroup: &GroupErrorResponse{Error: err}}) // no members
			return
		}
		out.Members = append(out.Members, err)
	}
	done(&Reply{LeaveGroup: out})
}
