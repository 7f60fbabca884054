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
