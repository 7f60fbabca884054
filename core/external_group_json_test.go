package core_test

import (
	"reflect"
	"testing"

	"github.com/kafkasim/kafkasim/core"
)

// TestOutsideGroupRequestsRoundTrip: the fields the group APIs' newer
// versions add (OffsetFetch v8 groups, every partition and none among
// them; FindCoordinator v4 keys; JoinGroup v8's reason, v9's marker and
// the protocols' metadata bytes; OffsetCommit v9's, metadata and leader
// epochs; SyncGroup's raw assignments, bytes that are not UTF-8) come
// back from the outside codec exactly, as a live page replays a real
// client's requests.
func TestOutsideGroupRequestsRoundTrip(t *testing.T) {
	epoch0 := int32(0) // a leader epoch of 0 is not none (-1, nil)
	for _, req := range []core.BrokerRequest{
		{Conn: "k", Correlation: 1, OffsetFetch: &core.OffsetFetchRequest{RequireStable: true, Groups: []core.OffsetFetchGroup{
			{Group: "a", Partitions: []core.OffsetFetchPartition{{Topic: "t", Partition: 2}}}, {Group: "b", All: true}, {Group: "c"}}}},
		{Conn: "k", Correlation: 2, FindCoordinator: &core.FindCoordinatorRequest{KeyType: 0, Keys: []string{"a", "b"}}},
		{Conn: "k", Correlation: 3, JoinGroup: &core.JoinGroupRequest{Group: "g", Protocols: []string{"range"}, Topics: []string{"t"},
			Generation: -1, Reason: "rebalance failed: é", PreKIP814: true, Metadata: []string{"\x00\x01\xff"}}},
		{Conn: "k", Correlation: 4, OffsetCommit: &core.OffsetCommitRequest{Group: "g", Generation: 3, MemberID: "m", KIP848: true,
			Partitions: []core.OffsetCommitPartition{{Topic: "t", Offset: 5}, {Topic: "t", Partition: 1, Offset: 6, Metadata: "ckpt\xff", LeaderEpoch: &epoch0}}}},
		{Conn: "k", Correlation: 5, SyncGroup: &core.SyncGroupRequest{Group: "g", MemberID: "m", Generation: 1,
			Assignments: map[string][]core.GroupPartition{"m": {{Topic: "t"}}}, Raw: map[string]string{"m": "\x00\x03\x00\x00\x00\x01\x00\x01t\xff"}}},
	} {
		data, bytes, err := core.EncodeOutsideCommand(req)
		if err != nil {
			t.Fatalf("encode %+v: %v", req, err)
		}
		got, err := core.DecodeOutsideCommand(data, bytes)
		if err != nil {
			t.Fatalf("decode %s: %v", data, err)
		}
		if !reflect.DeepEqual(got, req) {
			t.Errorf("%s decoded to %#v, want %#v", data, got, req)
		}
	}
}
