package kafka

import (
	"context"
	"net"
	"strconv"
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
// topics for a group another broker coordinates. v9's member id and
// epoch change nothing for a classic group. A request of no group gets
// no group.
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
