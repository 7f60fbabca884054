package kafka

import (
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The group APIs' versions of Kafka 3.9 and 4.0 (KIP-699, KIP-709,
// KIP-800, KIP-814, KIP-848, KIP-1043), asked with raw requests at the
// version under test: a versionClient pinned to it, or franz-go's own
// maximum, which the preset clips to the release's.

// coordinatorOf asks broker 1 for group's coordinator until it has one
// (the first ask creates __consumer_offsets), in whatever FindCoordinator
// version cl speaks.
func coordinatorOf(t *testing.T, cl *kgo.Client, group string) int32 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	id := int32(-1)
	waitUntil(t, ctx, "a coordinator for "+group, func() bool {
		req := kmsg.NewPtrFindCoordinatorRequest()
		req.CoordinatorKey, req.CoordinatorKeys = group, []string{group}
		resp := requestBroker[*kmsg.FindCoordinatorResponse](t, cl, 1, req)
		code, node := resp.ErrorCode, resp.NodeID
		if resp.Version >= 4 && len(resp.Coordinators) == 1 {
			code, node = resp.Coordinators[0].ErrorCode, resp.Coordinators[0].NodeID
		}
		id = node
		return code == 0
	})
	return id
}

// commitRequest commits offset of partition 0 of topic for group as
// member of generation.
func commitRequest(group, member string, generation int32, topic string, offset int64) *kmsg.OffsetCommitRequest {
	req := kmsg.NewPtrOffsetCommitRequest()
	req.Group, req.MemberID, req.Generation = group, member, generation
	rt := kmsg.NewOffsetCommitRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewOffsetCommitRequestTopicPartition()
	rp.Offset = offset
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	return req
}

// groupsOf is the names of the groups the cluster has.
func groupsOf(b *wallBackend) map[string]bool {
	names := map[string]bool{}
	b.Do(context.Background(), func(c *core.Cluster) {
		for _, g := range c.Snapshot().Groups {
			names[g.Name] = true
		}
	})
	return names
}

// TestOffsetCommitV9: a commit with a generation for a group the
// coordinator does not have (its members' group is gone) is refused and
// makes no group: ILLEGAL_GENERATION from 3.9's GroupCoordinator in v8
// and v9 alike, and from 4.0's below v9, while 4.0 answers v9, the
// KIP-848 version, GROUP_ID_NOT_FOUND (OffsetMetadataManager.
// validateOffsetCommit). A commit without a generation makes the group
// and is stored, in v9 too.
func TestOffsetCommitV9(t *testing.T) {
	for _, tc := range []struct {
		preset string
		v8, v9 int16
	}{
		{preset: "3.9", v8: 22, v9: 22},
		{preset: "4.0", v8: 22, v9: 69},
	} {
		t.Run(tc.preset, func(t *testing.T) {
			b, addr := served(t, tc.preset, core.CreateTopic{Topic: "t", Partitions: 1, RF: 3})
			cl := versionClient(t, addr, 3, 8, 0)
			old := versionClient(t, addr, 3, 8, 8)
			coord := coordinatorOf(t, cl, "gone")
			for _, c := range []struct {
				cl   *kgo.Client
				v    int16
				want int16
			}{{old, 8, tc.v8}, {cl, 9, tc.v9}} {
				resp := requestBroker[*kmsg.OffsetCommitResponse](t, c.cl, int(coord), commitRequest("gone", "member-1", 3, "t", 5))
				if resp.Version != c.v {
					t.Fatalf("OffsetCommit went out as v%d, want v%d", resp.Version, c.v)
				}
				if got := resp.Topics[0].Partitions[0].ErrorCode; got != c.want {
					t.Errorf("%s: OffsetCommit v%d with generation 3 for a group that does not exist: code %d, want %d", tc.preset, c.v, got, c.want)
				}
			}
			if groupsOf(b)["gone"] {
				t.Errorf("%s: the refused commits left a group behind", tc.preset)
			}
			coord = coordinatorOf(t, cl, "simple")
			resp := requestBroker[*kmsg.OffsetCommitResponse](t, cl, int(coord), commitRequest("simple", "", -1, "t", 7))
			if resp.Version != 9 || resp.Topics[0].Partitions[0].ErrorCode != 0 {
				t.Fatalf("%s: OffsetCommit v%d without a generation: %+v", tc.preset, resp.Version, resp.Topics)
			}
			if !groupsOf(b)["simple"] {
				t.Errorf("%s: no group after a commit outside the group protocol", tc.preset)
			}
		})
	}
}

// threeGroups finds groups a and b coordinated by one broker and c by
// another: their names and the two brokers.
func threeGroups(t *testing.T, cl *kgo.Client) (a, b, c string, x, y int32) {
	t.Helper()
	byBroker := map[int32][]string{}
	for i := 0; i < 40; i++ {
		g := "group-" + string(rune('a'+i%26)) + string(rune('0'+i/26))
		id := coordinatorOf(t, cl, g)
		byBroker[id] = append(byBroker[id], g)
		for bx, gx := range byBroker {
			for by, gy := range byBroker {
				if bx != by && len(gx) >= 2 && len(gy) >= 1 {
					return gx[0], gx[1], gy[0], bx, by
				}
			}
		}
	}
	t.Fatalf("no two brokers coordinating groups: %v", byBroker)
	return
}

// TestOffsetFetchGroups: OffsetFetch v8 and v9 (KIP-709) ask one broker
// for several groups at once. Each is answered as a request of its own:
// the committed offsets (-1 where none, a topic that does not exist too,
// metadata "" and leader epoch -1 as nothing else is kept), every
// committed partition for a null topic list, NOT_COORDINATOR with no
// topics for a group another broker coordinates, nothing for an empty
// topic list. v9's member id and epoch change nothing for a classic
// group. A request of no group gets no group.
func TestOffsetFetchGroups(t *testing.T) {
	for _, preset := range []string{"3.9", "4.0"} {
		t.Run(preset, func(t *testing.T) {
			_, addr := served(t, preset, core.CreateTopic{Topic: "t", Partitions: 2, RF: 3})
			cl := versionClient(t, addr, 3, 9, 0)
			a, b, c, x, y := threeGroups(t, cl)
			for _, cm := range []struct {
				group string
				coord int32
				part  int32
				off   int64
			}{{a, x, 0, 3}, {b, x, 1, 4}, {c, y, 0, 5}} {
				req := commitRequest(cm.group, "", -1, "t", cm.off)
				req.Topics[0].Partitions[0].Partition = cm.part
				if resp := requestBroker[*kmsg.OffsetCommitResponse](t, cl, int(cm.coord), req); resp.Topics[0].Partitions[0].ErrorCode != 0 {
					t.Fatalf("commit for %s: %+v", cm.group, resp.Topics)
				}
			}
			fetch := func(cl *kgo.Client, version int16) {
				t.Helper()
				req := kmsg.NewPtrOffsetFetchRequest()
				ga := kmsg.NewOffsetFetchRequestGroup()
				member := "member-1"
				ga.Group, ga.MemberID, ga.MemberEpoch = a, &member, 5
				for _, tp := range []struct {
					topic string
					parts []int32
				}{{"t", []int32{0, 1}}, {"nope", []int32{0}}} {
					rt := kmsg.NewOffsetFetchRequestGroupTopic()
					rt.Topic, rt.Partitions = tp.topic, tp.parts
					ga.Topics = append(ga.Topics, rt)
				}
				gb := kmsg.NewOffsetFetchRequestGroup()
				gb.Group = b // Topics nil: all it committed
				gc := kmsg.NewOffsetFetchRequestGroup()
				gc.Group = c
				rt := kmsg.NewOffsetFetchRequestGroupTopic()
				rt.Topic, rt.Partitions = "t", []int32{0}
				gc.Topics = append(gc.Topics, rt)
				req.Groups = []kmsg.OffsetFetchRequestGroup{ga, gb, gc}
				resp := requestBroker[*kmsg.OffsetFetchResponse](t, cl, int(x), req)
				if resp.Version != version || len(resp.Groups) != 3 {
					t.Fatalf("OffsetFetch v%d (want v%d): %d groups, want 3", resp.Version, version, len(resp.Groups))
				}
				type part struct {
					topic       string
					part        int32
					off         int64
					epoch       int32
					meta        string
					code        int16
					hasMetadata bool
				}
				got := map[string][]part{}
				for _, g := range resp.Groups {
					if g.ErrorCode != 0 {
						got[g.Group] = append(got[g.Group], part{code: g.ErrorCode})
					}
					for _, rt := range g.Topics {
						for _, rp := range rt.Partitions {
							p := part{topic: rt.Topic, part: rp.Partition, off: rp.Offset, epoch: rp.LeaderEpoch, code: rp.ErrorCode, hasMetadata: rp.Metadata != nil}
							if rp.Metadata != nil {
								p.meta = *rp.Metadata
							}
							got[g.Group] = append(got[g.Group], p)
						}
					}
				}
				if resp.Groups[0].Group != a || resp.Groups[1].Group != b || resp.Groups[2].Group != c {
					t.Errorf("v%d: groups answered in the order %s, %s, %s; want %s, %s, %s", version, resp.Groups[0].Group, resp.Groups[1].Group, resp.Groups[2].Group, a, b, c)
				}
				want := map[string][]part{
					a: {{"t", 0, 3, -1, "", 0, true}, {"t", 1, -1, -1, "", 0, true}, {"nope", 0, -1, -1, "", 0, true}},
					b: {{"t", 1, 4, -1, "", 0, true}},
					c: {{code: 16}},
				}
				for g, w := range want {
					if len(got[g]) != len(w) {
						t.Errorf("v%d: group %s answered %+v, want %+v", version, g, got[g], w)
						continue
					}
					for i := range w {
						if got[g][i] != w[i] {
							t.Errorf("v%d: group %s answered %+v, want %+v", version, g, got[g], w)
							break
						}
					}
				}
				empty := kmsg.NewPtrOffsetFetchRequest()
				ge := kmsg.NewOffsetFetchRequestGroup()
				ge.Group, ge.Topics = a, []kmsg.OffsetFetchRequestGroupTopic{} // no topics: nothing, unlike null
				empty.Groups = append(empty.Groups, ge)
				if r := requestBroker[*kmsg.OffsetFetchResponse](t, cl, int(x), empty); len(r.Groups) != 1 || r.Groups[0].ErrorCode != 0 || len(r.Groups[0].Topics) != 0 {
					t.Errorf("v%d: a group asked for no topics answered %+v", version, r.Groups)
				}
				none := requestBroker[*kmsg.OffsetFetchResponse](t, cl, int(x), kmsg.NewPtrOffsetFetchRequest())
				if none.Version != version || len(none.Groups) != 0 || len(none.Topics) != 0 {
					t.Errorf("v%d: a request of no group answered %+v", version, none)
				}
			}
			fetch(cl, 9)
			fetch(versionClient(t, addr, 3, 9, 8), 8)
		})
	}
}

// TestFindCoordinatorVersions: FindCoordinator v4 (KIP-699) looks up
// several keys at once, each as v3 looks up its one (node, host and
// port of the coordinator, no error message, unlike v1-v3's "NONE"); no
// key gets no coordinator. Key type 2 (v6, KIP-932's share coordinator)
// is INVALID_REQUEST below v6; at v6 3.9 answers COORDINATOR_NOT_AVAILABLE
// and 4.0 INVALID_REQUEST, share groups being off; an unknown key type is
// INVALID_REQUEST with its message for every key.
func TestFindCoordinatorVersions(t *testing.T) {
	for _, tc := range []struct {
		preset  string
		shareV6 int16
	}{{"3.9", 15}, {"4.0", 42}} {
		t.Run(tc.preset, func(t *testing.T) {
			_, addr := served(t, tc.preset, core.CreateTopic{Topic: "t", Partitions: 1, RF: 3})
			listeners := addrs(addr, 3)
			clients := map[int16]*kgo.Client{6: versionClient(t, addr, 3, 10, 0)}
			for _, v := range []int16{3, 4, 5} {
				clients[v] = versionClient(t, addr, 3, 10, v)
			}
			a, b, c, x, y := threeGroups(t, clients[6])
			ask := func(v int16, keyType int8, keys ...string) *kmsg.FindCoordinatorResponse {
				t.Helper()
				req := kmsg.NewPtrFindCoordinatorRequest()
				req.CoordinatorType, req.CoordinatorKeys = keyType, keys
				if len(keys) > 0 {
					req.CoordinatorKey = keys[0]
				}
				resp := requestBroker[*kmsg.FindCoordinatorResponse](t, clients[v], 2, req)
				if resp.Version != v {
					t.Fatalf("FindCoordinator went out as v%d, want v%d", resp.Version, v)
				}
				return resp
			}
			for _, v := range []int16{4, 6} {
				resp := ask(v, 0, a, b, c)
				if len(resp.Coordinators) != 3 {
					t.Fatalf("v%d: %d coordinators for 3 keys", v, len(resp.Coordinators))
				}
				for i, w := range []struct {
					key  string
					node int32
				}{{a, x}, {b, x}, {c, y}} {
					rc := resp.Coordinators[i]
					if rc.Key != w.key || rc.NodeID != w.node || rc.ErrorCode != 0 || rc.ErrorMessage != nil ||
						net.JoinHostPort(rc.Host, strconv.Itoa(int(rc.Port))) != listeners[w.node-1] {
						t.Errorf("v%d: key %d answered %+v, want %s at broker %d (%s)", v, i, rc, w.key, w.node, listeners[w.node-1])
					}
				}
				if resp := ask(v, 0); len(resp.Coordinators) != 0 {
					t.Errorf("v%d: no key answered %+v", v, resp.Coordinators)
				}
				if rc := ask(v, 3, a, b).Coordinators; len(rc) != 2 || rc[0].ErrorCode != 42 || rc[1].ErrorCode != 42 || rc[1].Key != b ||
					rc[0].ErrorMessage == nil || *rc[0].ErrorMessage != kerr.InvalidRequest.Description || rc[0].NodeID != -1 || rc[0].Port != -1 {
					t.Errorf("v%d: key type 3 answered %+v, want INVALID_REQUEST with its message for each key", v, rc)
				}
			}
			if resp := ask(3, 0, a); resp.ErrorCode != 0 || resp.NodeID != x || resp.ErrorMessage == nil || *resp.ErrorMessage != "NONE" {
				t.Errorf("v3: %+v, want broker %d and the message NONE", resp, x)
			}
			if resp := ask(3, 2, "g:id:0"); resp.ErrorCode != 42 || resp.ErrorMessage == nil || *resp.ErrorMessage != kerr.InvalidRequest.Description || resp.NodeID != -1 {
				t.Errorf("v3: key type 2 answered %+v, want INVALID_REQUEST with its message", resp)
			}
			for _, w := range []struct{ v, code int16 }{{4, 42}, {5, 42}, {6, tc.shareV6}} {
				rc := ask(w.v, 2, "g:id:0").Coordinators
				if len(rc) != 1 || rc[0].ErrorCode != w.code || rc[0].ErrorMessage != nil || rc[0].NodeID != -1 || rc[0].Key != "g:id:0" {
					t.Errorf("%s: v%d key type 2 answered %+v, want code %d and no message", tc.preset, w.v, rc, w.code)
				}
			}
		})
	}
}

// joinRequest is a "consumer" JoinGroup of group for topic t, static as
// instance when it is not "", offering the assignors protocols (default
// range).
func joinRequest(group, member, instance string, protocols ...string) *kmsg.JoinGroupRequest {
	req := kmsg.NewPtrJoinGroupRequest()
	req.Group, req.MemberID, req.ProtocolType = group, member, "consumer"
	req.SessionTimeoutMillis, req.RebalanceTimeoutMillis = 10000, 10000
	if instance != "" {
		req.InstanceID = &instance
	}
	meta := kmsg.NewConsumerMemberMetadata()
	meta.Topics = []string{"t"}
	if len(protocols) == 0 {
		protocols = []string{"range"}
	}
	for _, name := range protocols {
		p := kmsg.NewJoinGroupRequestProtocol()
		p.Name, p.Metadata = name, meta.AppendTo(nil)
		req.Protocols = append(req.Protocols, p)
	}
	return req
}

// syncRequest is a member's SyncGroup; the leader's assigns partition 0
// of t to the first member and nothing to the others.
func syncRequest(group, member string, generation int32, members ...string) *kmsg.SyncGroupRequest {
	req := kmsg.NewPtrSyncGroupRequest()
	req.Group, req.MemberID, req.Generation = group, member, generation
	proto, typ := "range", "consumer"
	req.Protocol, req.ProtocolType = &proto, &typ
	for i, m := range members {
		a := kmsg.NewConsumerMemberAssignment()
		if i == 0 {
			a.Topics = []kmsg.ConsumerMemberAssignmentTopic{{Topic: "t", Partitions: []int32{0}}}
		}
		ga := kmsg.NewSyncGroupRequestGroupAssignment()
		ga.MemberID, ga.MemberAssignment = m, a.AppendTo(nil)
		req.GroupAssignment = append(req.GroupAssignment, ga)
	}
	return req
}

// async sends req to broker on cl in the background.
func async(cl *kgo.Client, broker int32, req kmsg.Request) chan kmsg.Response {
	out := make(chan kmsg.Response, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		resp, _ := cl.Broker(int(broker)).Request(ctx, req)
		out <- resp
	}()
	return out
}

// TestJoinGroupStaticRejoin: a static member that comes back under a new
// member id while its group is Stable keeps the group's generation and
// assignment. Below JoinGroup v9 the answer names the leader as it was,
// the member's old id, with no members, so that a returning leader does
// not assign; from v9 (KIP-814) a returning leader is named leader, gets
// the members and SkipAssignment, and a returning follower gets neither
// (GroupCoordinator.updateStaticMemberAndRebalance), unless its assignors
// change the group's choice, which rebalances it. v8's reason
// (KIP-800) is written in the rebalance it starts.
func TestJoinGroupStaticRejoin(t *testing.T) {
	for _, preset := range []string{"3.9", "4.0"} {
		t.Run(preset, func(t *testing.T) {
			b := newWallBackend(t, core.Options{Brokers: 3, Seed: 1, Version: preset, Metadata: "kraft"},
				core.CreateTopic{Topic: "t", Partitions: 1, RF: 3}, core.Set{Configs: map[string]string{"group.initial.rebalance.delay.ms": "0"}})
			var reasons []string
			stop, _ := b.Watch(func(_ *core.Cluster, evs []core.Event, _ bool) {
				for _, e := range evs {
					if e.Type == core.EvGroup && strings.Contains(e.Detail, "client reason") {
						reasons = append(reasons, e.Detail)
					}
				}
			})
			defer stop()
			_, addr := startServer(t, b, 3)
			v9, v7, v9b := versionClient(t, addr, 3, 11, 0), versionClient(t, addr, 3, 11, 7), versionClient(t, addr, 3, 11, 0)
			coord := coordinatorOf(t, v9, "static")
			join := func(cl *kgo.Client, req *kmsg.JoinGroupRequest) *kmsg.JoinGroupResponse {
				t.Helper()
				return requestBroker[*kmsg.JoinGroupResponse](t, cl, int(coord), req)
			}

			first := joinRequest("static", "", "i1")
			why := "testing KIP-800"
			first.Reason = &why
			j1 := join(v9, first)
			if j1.Version != 9 || j1.ErrorCode != 0 || j1.Generation != 1 || j1.LeaderID != j1.MemberID || j1.SkipAssignment {
				t.Fatalf("first join: %+v", j1)
			}
			if s := requestBroker[*kmsg.SyncGroupResponse](t, v9, int(coord), syncRequest("static", j1.MemberID, 1, j1.MemberID)); s.ErrorCode != 0 {
				t.Fatalf("sync: %+v", s)
			}
			b.Do(context.Background(), func(*core.Cluster) { // the watcher runs under the backend's lock
				if len(reasons) == 0 || !strings.Contains(reasons[0], "client reason: testing KIP-800") {
					t.Errorf("the rebalance's events %q do not give the client's reason", reasons)
				}
			})

			// The leader comes back under a new member id, below v9.
			j2 := join(v7, joinRequest("static", "", "i1"))
			if j2.Version != 7 || j2.ErrorCode != 0 || j2.Generation != 1 || j2.MemberID == j1.MemberID || j2.LeaderID != j1.MemberID || len(j2.Members) != 0 {
				t.Errorf("v7 rejoin of the static leader: %+v, want generation 1, a new member id, the old one as leader and no members", j2)
			}
			// And again, at v9: it leads, with the members, and skips the assignment.
			j3 := join(v9, joinRequest("static", "", "i1"))
			if j3.Version != 9 || j3.ErrorCode != 0 || j3.Generation != 1 || j3.LeaderID != j3.MemberID || j3.MemberID == j2.MemberID ||
				!j3.SkipAssignment || len(j3.Members) != 1 || j3.Members[0].MemberID != j3.MemberID {
				t.Errorf("v9 rejoin of the static leader: %+v, want generation 1 led by it, its member listed, SkipAssignment", j3)
			}
			if s := requestBroker[*kmsg.SyncGroupResponse](t, v9, int(coord), syncRequest("static", j3.MemberID, 1)); s.ErrorCode != 0 {
				t.Fatalf("sync after skipping the assignment: %+v", s)
			} else if a := kmsg.NewConsumerMemberAssignment(); a.ReadFrom(s.MemberAssignment) != nil || len(a.Topics) != 1 || a.Topics[0].Partitions[0] != 0 {
				t.Errorf("the skipped assignment did not keep t-0 with the leader: %x", s.MemberAssignment)
			}

			// A second static member joins (a rebalance: the leader rejoins).
			c2 := async(v9b, coord, joinRequest("static", "", "i2"))
			time.Sleep(50 * time.Millisecond)
			j4 := join(v9, joinRequest("static", j3.MemberID, "i1"))
			j5, _ := (<-c2).(*kmsg.JoinGroupResponse)
			if j4.ErrorCode != 0 || j5 == nil || j5.ErrorCode != 0 || j4.Generation != 2 || j4.LeaderID != j3.MemberID {
				t.Fatalf("joins of generation 2: %+v, %+v", j4, j5)
			}
			s5 := async(v9b, coord, syncRequest("static", j5.MemberID, 2))
			if s := requestBroker[*kmsg.SyncGroupResponse](t, v9, int(coord), syncRequest("static", j4.MemberID, 2, j4.MemberID, j5.MemberID)); s.ErrorCode != 0 {
				t.Fatalf("leader's sync of generation 2: %+v", s)
			}
			if s, _ := (<-s5).(*kmsg.SyncGroupResponse); s == nil || s.ErrorCode != 0 {
				t.Fatalf("follower's sync of generation 2: %+v", s)
			}
			// The follower comes back at v9: no members, no skipping.
			j6 := join(v9b, joinRequest("static", "", "i2"))
			if j6.ErrorCode != 0 || j6.Generation != 2 || j6.LeaderID != j4.MemberID || j6.SkipAssignment || len(j6.Members) != 0 || j6.MemberID == j5.MemberID {
				t.Errorf("v9 rejoin of a static follower: %+v, want generation 2 led by %s, no members, no SkipAssignment", j6, j4.MemberID)
			}

			// A static member back with assignors that change the group's
			// choice rebalances it instead.
			coord = coordinatorOf(t, v9, "static-2")
			k1 := join(v9, joinRequest("static-2", "", "i1", "range", "roundrobin"))
			if k1.ErrorCode != 0 || k1.Protocol == nil || *k1.Protocol != "range" {
				t.Fatalf("join of static-2: %+v", k1)
			}
			if s := requestBroker[*kmsg.SyncGroupResponse](t, v9, int(coord), syncRequest("static-2", k1.MemberID, k1.Generation, k1.MemberID)); s.ErrorCode != 0 {
				t.Fatalf("sync of static-2: %+v", s)
			}
			k2 := join(v9, joinRequest("static-2", "", "i1", "roundrobin", "range"))
			if k2.ErrorCode != 0 || k2.Generation != k1.Generation+1 || k2.Protocol == nil || *k2.Protocol != "roundrobin" || k2.SkipAssignment {
				t.Errorf("static rejoin preferring another assignor: %+v, want generation %d with roundrobin", k2, k1.Generation+1)
			}
		})
	}
}

// groupOf is group's view in the cluster now.
func groupOf(b *wallBackend, group string) (g core.GroupView) {
	b.Do(context.Background(), func(c *core.Cluster) {
		for _, x := range c.Snapshot().Groups {
			if x.Name == group {
				g = x
			}
		}
	})
	return g
}

// TestFranzGoStaticLeaderRestart: franz-go on 4.0, with every group API
// at its highest version (JoinGroup v9, OffsetCommit and OffsetFetch v9,
// FindCoordinator v6): a static member (group.instance.id) reads and
// commits, closes without leaving the group, and a new client of the
// same instance takes its place within the session timeout. The group
// keeps its generation (no rebalance: the leader was told to skip the
// assignment, KIP-814), and the new client reads on from the committed
// offsets.
func TestFranzGoStaticLeaderRestart(t *testing.T) {
	b, addr := served(t, "4.0", core.CreateTopic{Topic: "t", Partitions: 2, RF: 3})
	prod := versionClient(t, addr, 3, 0, 0)
	produceAll(t, prod, "t", 10, "a")
	member := func() *kgo.Client {
		cl, err := kgo.NewClient(kgo.SeedBrokers(addrs(addr, 3)...), kgo.ConsumerGroup("static"), kgo.ConsumeTopics("t"),
			kgo.InstanceID("i1"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.DisableAutoCommit())
		if err != nil {
			t.Fatal(err)
		}
		return cl
	}
	first := member()
	if recs := consume(t, first, 10); len(recs) != 10 {
		t.Fatalf("first member read %d records", len(recs))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := first.CommitUncommittedOffsets(ctx); err != nil {
		t.Fatal(err)
	}
	before := groupOf(b, "static")
	first.Close()
	produceAll(t, prod, "t", 10, "b")
	second := member()
	defer second.Close()
	recs := consume(t, second, 10)
	for _, r := range recs {
		if r.Value[0] != 'b' {
			t.Fatalf("the returning member read %q: not from the committed offsets", r.Value)
		}
	}
	after := groupOf(b, "static")
	if before.Generation == 0 || after.Generation != before.Generation || after.State != "Stable" || len(after.Members) != 1 || after.Members[0].InstanceID != "i1" {
		t.Errorf("group before the restart %+v, after %+v: want the same generation, Stable, one member i1", before, after)
	}
}

// listed is the groups a ListGroups answer names, by name: type and state.
func listed(resp *kmsg.ListGroupsResponse) map[string][2]string {
	out := map[string][2]string{}
	for _, g := range resp.Groups {
		out[g.Group] = [2]string{g.GroupType, g.GroupState}
	}
	return out
}

// TestListGroupsTypes: ListGroups v5 (KIP-848) gives each group its type,
// "classic" for every group here, and filters by type, case-insensitively:
// classic keeps them, any other type none. From 3.9 states are matched
// case-insensitively too (4.0 also trims them), in v4 as well; 2.8 matches
// them exactly.
func TestListGroupsTypes(t *testing.T) {
	for _, tc := range []struct {
		preset, mode string
		top          int16
		insensitive  bool
		trims        bool
	}{
		{"2.8", "zk", 4, false, false},
		{"3.9", "kraft", 5, true, false},
		{"4.0", "kraft", 5, true, true},
	} {
		t.Run(tc.preset, func(t *testing.T) {
			b := threeBrokers(t, tc.preset, tc.mode, core.CreateTopic{Topic: "t", Partitions: 1, RF: 3})
			_, addr := startServer(t, b, 3)
			cl, v4 := versionClient(t, addr, 3, 16, 0), versionClient(t, addr, 3, 16, 4)
			coord := coordinatorOf(t, cl, "simple")
			if resp := requestBroker[*kmsg.OffsetCommitResponse](t, cl, int(coord), commitRequest("simple", "", -1, "t", 1)); resp.Topics[0].Partitions[0].ErrorCode != 0 {
				t.Fatalf("commit: %+v", resp.Topics)
			}
			list := func(cl *kgo.Client, types, states []string) map[string][2]string {
				t.Helper()
				req := kmsg.NewPtrListGroupsRequest()
				req.TypesFilter, req.StatesFilter = types, states
				return listed(requestBroker[*kmsg.ListGroupsResponse](t, cl, int(coord), req))
			}
			if tc.top == 5 {
				for _, c := range []struct {
					types []string
					want  bool
				}{{nil, true}, {[]string{"Classic"}, true}, {[]string{"consumer"}, false}, {[]string{"share", "CLASSIC"}, true}, {[]string{"nonsense"}, false}} {
					got := list(cl, c.types, nil)
					if g, ok := got["simple"]; ok != c.want || ok && g != [2]string{"classic", "Empty"} {
						t.Errorf("v5 types %q: %v, want the group listed %v as classic and Empty", c.types, got, c.want)
					}
				}
			}
			for _, c := range []struct {
				states []string
				want   bool
			}{{[]string{"Empty"}, true}, {[]string{"Stable"}, false}, {[]string{"empty"}, tc.insensitive}, {[]string{" Empty "}, tc.trims}} {
				for _, cc := range []*kgo.Client{cl, v4} {
					if _, ok := list(cc, nil, c.states)["simple"]; ok != c.want {
						t.Errorf("states %q: listed %v, want %v", c.states, ok, c.want)
					}
				}
			}
		})
	}
}

// TestDescribeGroupsV6: a group its coordinator does not have is Dead
// with no error up to v5 and, from 4.0's v6 (KIP-1043), GROUP_ID_NOT_FOUND
// with the message "Group G not found."; asked of another broker it is
// NOT_COORDINATOR, with no message. 3.9 speaks up to v5.
func TestDescribeGroupsV6(t *testing.T) {
	for _, tc := range []struct {
		preset string
		top    int16
	}{{"3.9", 5}, {"4.0", 6}} {
		t.Run(tc.preset, func(t *testing.T) {
			_, addr := served(t, tc.preset, core.CreateTopic{Topic: "t", Partitions: 1, RF: 3})
			cl, v5 := versionClient(t, addr, 3, 15, 0), versionClient(t, addr, 3, 15, 5)
			a, nobody, _, x, y := threeGroups(t, cl)
			if resp := requestBroker[*kmsg.OffsetCommitResponse](t, cl, int(x), commitRequest(a, "", -1, "t", 1)); resp.Topics[0].Partitions[0].ErrorCode != 0 {
				t.Fatalf("commit: %+v", resp.Topics)
			}
			describe := func(cl *kgo.Client, broker int32, version int16) map[string]kmsg.DescribeGroupsResponseGroup {
				t.Helper()
				req := kmsg.NewPtrDescribeGroupsRequest()
				req.Groups = []string{a, nobody}
				resp := requestBroker[*kmsg.DescribeGroupsResponse](t, cl, int(broker), req)
				if resp.Version != version || len(resp.Groups) != 2 {
					t.Fatalf("DescribeGroups v%d (want v%d): %+v", resp.Version, version, resp.Groups)
				}
				out := map[string]kmsg.DescribeGroupsResponseGroup{}
				for _, g := range resp.Groups {
					out[g.Group] = g
				}
				return out
			}
			for _, v := range []int16{5, tc.top} {
				c := cl
				if v == 5 {
					c = v5
				}
				got := describe(c, x, v)
				if g := got[a]; g.ErrorCode != 0 || g.State != "Empty" || g.ErrorMessage != nil {
					t.Errorf("v%d: %s answered %+v, want Empty with no error", v, a, g)
				}
				g := got[nobody]
				if v < 6 && (g.ErrorCode != 0 || g.State != "Dead" || g.ErrorMessage != nil) {
					t.Errorf("v%d: a group nobody joined answered %+v, want Dead with no error", v, g)
				}
				if v >= 6 && (g.ErrorCode != 69 || g.State != "Dead" || g.ErrorMessage == nil || *g.ErrorMessage != "Group "+nobody+" not found.") {
					t.Errorf("v%d: a group nobody joined answered %+v, want GROUP_ID_NOT_FOUND, Dead, \"Group %s not found.\"", v, g, nobody)
				}
				for name, g := range describe(c, y, v) {
					if g.ErrorCode != 16 || g.ErrorMessage != nil {
						t.Errorf("v%d: %s asked of another broker answered %+v, want NOT_COORDINATOR with no message", v, name, g)
					}
				}
			}
		})
	}
}
