package kafka

import (
	"bytes"
	"testing"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestGroupMemberBytes: a member's protocol metadata reaches its leader
// in the JoinGroup answer, and DescribeGroups, as the member sent it for
// the chosen protocol, and DescribeGroups answers its assignment as the
// leader sent it: user data the core does not decode included
// (GroupCoordinator keeps MemberMetadata's protocols and assignment as
// bytes).
func TestGroupMemberBytes(t *testing.T) {
	_, addr := served(t, "3.9", core.CreateTopic{Topic: "t", Partitions: 1, RF: 3})
	cl := versionClient(t, addr, 3, 11, 0)
	coord := coordinatorOf(t, cl, "bytes")
	join := joinRequest("bytes", "", "i1", "range", "roundrobin")
	for i, ud := range []string{"range user data \xff", "roundrobin's"} {
		m := kmsg.NewConsumerMemberMetadata()
		m.Version, m.Topics, m.UserData = 0, []string{"t"}, []byte(ud)
		join.Protocols[i].Metadata = m.AppendTo(nil)
	}
	j := requestBroker[*kmsg.JoinGroupResponse](t, cl, int(coord), join)
	if j.ErrorCode != 0 || j.Protocol == nil || *j.Protocol != "range" || len(j.Members) != 1 {
		t.Fatalf("join: %+v", j)
	}
	if !bytes.Equal(j.Members[0].ProtocolMetadata, join.Protocols[0].Metadata) {
		t.Errorf("the leader got metadata %q, want %q as sent", j.Members[0].ProtocolMetadata, join.Protocols[0].Metadata)
	}
	sync := syncRequest("bytes", j.MemberID, j.Generation, j.MemberID)
	a := kmsg.NewConsumerMemberAssignment()
	a.Topics = []kmsg.ConsumerMemberAssignmentTopic{{Topic: "t", Partitions: []int32{0}}}
	a.UserData = []byte("assignor's \x00 data")
	sync.GroupAssignment[0].MemberAssignment = a.AppendTo(nil)
	if s := requestBroker[*kmsg.SyncGroupResponse](t, cl, int(coord), sync); s.ErrorCode != 0 {
		t.Fatalf("sync: %+v", s)
	}
	req := kmsg.NewPtrDescribeGroupsRequest()
	req.Groups = []string{"bytes"}
	d := requestBroker[*kmsg.DescribeGroupsResponse](t, cl, int(coord), req)
	if len(d.Groups) != 1 || d.Groups[0].ErrorCode != 0 || len(d.Groups[0].Members) != 1 {
		t.Fatalf("describe: %+v", d.Groups)
	}
	m := d.Groups[0].Members[0]
	if !bytes.Equal(m.ProtocolMetadata, join.Protocols[0].Metadata) {
		t.Errorf("DescribeGroups metadata %q, want %q as sent for range", m.ProtocolMetadata, join.Protocols[0].Metadata)
	}
	if !bytes.Equal(m.MemberAssignment, sync.GroupAssignment[0].MemberAssignment) {
		t.Errorf("DescribeGroups assignment %q, want %q as the leader sent it", m.MemberAssignment, sync.GroupAssignment[0].MemberAssignment)
	}
	if m.MemberID != j.MemberID || m.InstanceID == nil || *m.InstanceID != "i1" {
		t.Errorf("DescribeGroups member %+v", m)
	}
}

// TestDescribeGroupsOutsideStable: GroupMetadata.summary answers the
// protocol and the members' metadata and assignment for a Stable group
// only. A group whose leader joined and has not synced
// (CompletingRebalance) lists its member with neither and protocol "";
// a group only commits made has protocol type "" too.
func TestDescribeGroupsOutsideStable(t *testing.T) {
	_, addr := served(t, "3.9", core.CreateTopic{Topic: "t", Partitions: 1, RF: 3})
	cl := versionClient(t, addr, 3, 11, 0)
	coord := coordinatorOf(t, cl, "half")
	join := joinRequest("half", "", "i1", "range")
	m := kmsg.NewConsumerMemberMetadata()
	m.Topics = []string{"t"}
	join.Protocols[0].Metadata = m.AppendTo(nil)
	if j := requestBroker[*kmsg.JoinGroupResponse](t, cl, int(coord), join); j.ErrorCode != 0 {
		t.Fatalf("join: %+v", j)
	}
	commit := kmsg.NewPtrOffsetCommitRequest()
	commit.Group, commit.Generation = "commits-only", -1
	ct := kmsg.NewOffsetCommitRequestTopic()
	ct.Topic = "t"
	ct.Partitions = []kmsg.OffsetCommitRequestTopicPartition{{Partition: 0, Offset: 0}}
	commit.Topics = []kmsg.OffsetCommitRequestTopic{ct}
	cc := coordinatorOf(t, cl, "commits-only")
	if r := requestBroker[*kmsg.OffsetCommitResponse](t, cl, int(cc), commit); r.Topics[0].Partitions[0].ErrorCode != 0 {
		t.Fatalf("commit: %+v", r)
	}
	lg := requestBroker[*kmsg.ListGroupsResponse](t, cl, int(cc), kmsg.NewPtrListGroupsRequest())
	for _, g := range lg.Groups {
		if g.Group == "commits-only" && g.ProtocolType != "" {
			t.Errorf("ListGroups: commits-only has protocol type %q, want none", g.ProtocolType)
		}
	}
	for _, c := range []struct {
		group, state, ptype string
		coord               int32
		members             int
	}{{"half", "CompletingRebalance", "consumer", coord, 1}, {"commits-only", "Empty", "", cc, 0}} {
		req := kmsg.NewPtrDescribeGroupsRequest()
		req.Groups = []string{c.group}
		d := requestBroker[*kmsg.DescribeGroupsResponse](t, cl, int(c.coord), req)
		if len(d.Groups) != 1 || d.Groups[0].ErrorCode != 0 {
			t.Fatalf("describe %s: %+v", c.group, d.Groups)
		}
		g := d.Groups[0]
		if g.State != c.state || g.ProtocolType != c.ptype || g.Protocol != "" || len(g.Members) != c.members {
			t.Errorf("%s: state %q, protocol type %q, protocol %q, %d members; want %q, %q, \"\", %d",
				c.group, g.State, g.ProtocolType, g.Protocol, len(g.Members), c.state, c.ptype, c.members)
		}
		for _, gm := range g.Members {
			if len(gm.ProtocolMetadata) != 0 || len(gm.MemberAssignment) != 0 {
				t.Errorf("%s: member %s with metadata %q and assignment %q outside Stable", c.group, gm.MemberID, gm.ProtocolMetadata, gm.MemberAssignment)
			}
		}
	}
}
