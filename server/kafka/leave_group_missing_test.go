package kafka

import (
	"testing"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestLeaveGroupMissingGroup: a LeaveGroup for a group its coordinator
// does not have answers each member UNKNOWN_MEMBER_ID with no top-level
// error (3.9's GroupCoordinator.handleLeaveGroup "case None"; 4.0's
// GroupCoordinatorService.leaveGroup on classicGroupLeave's
// UnknownMemberIdException), which v0-v2 carry at the top
// (LeaveGroupResponse's version conversion); never GROUP_ID_NOT_FOUND.
// Asked of another broker it is NOT_COORDINATOR at the top, with no
// members, in every version.
func TestLeaveGroupMissingGroup(t *testing.T) {
	for _, preset := range []string{"3.9", "4.0"} {
		t.Run(preset, func(t *testing.T) {
			_, addr := served(t, preset, core.CreateTopic{Topic: "t", Partitions: 1, RF: 3})
			cl := versionClient(t, addr, 3, 13, 0)
			_, nobody, _, x, y := threeGroups(t, cl)
			for _, v := range []int16{1, 5} {
				cl := versionClient(t, addr, 3, 13, v)
				leave := func(broker int32) *kmsg.LeaveGroupResponse {
					req := kmsg.NewPtrLeaveGroupRequest()
					req.Version, req.Group, req.MemberID = v, nobody, "m-1"
					if v >= 3 {
						m := kmsg.NewLeaveGroupRequestMember()
						m.MemberID = "m-1"
						req.Members = append(req.Members, m)
					}
					resp := requestBroker[*kmsg.LeaveGroupResponse](t, cl, int(broker), req)
					if resp.Version != v {
						t.Fatalf("LeaveGroup went out as v%d, want v%d", resp.Version, v)
					}
					return resp
				}
				got := leave(x)
				switch {
				case v < 3 && got.ErrorCode != 25:
					t.Errorf("v%d: missing group answered %d, want UNKNOWN_MEMBER_ID (25)", v, got.ErrorCode)
				case v >= 3 && (got.ErrorCode != 0 || len(got.Members) != 1 || got.Members[0].ErrorCode != 25):
					t.Errorf("v%d: missing group answered %+v, want no error and the member UNKNOWN_MEMBER_ID (25)", v, got)
				}
				if got := leave(y); got.ErrorCode != 16 || len(got.Members) != 0 {
					t.Errorf("v%d: another broker answered %+v, want NOT_COORDINATOR (16) with no members", v, got)
				}
			}
		})
	}
}
