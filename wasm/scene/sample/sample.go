// Package sample builds example scenes: the fixtures both sides of the
// canvas protocol test against (wasm/scene/testdata), the dev harness's
// pictures, and the moving reference scene make bench measures. They are
// hand-made pictures that look like what the engine posts, not
// simulations: the engine is the only thing that simulates.
package sample

import (
	"fmt"
	"strconv"

	"github.com/kafkasim/kafkasim/wasm/scene"
)

// Names lists the samples Get knows, in the order the dev harness offers them.
var Names = []string{"leader-death", "faults", "reference", "storm", "empty"}

// Get returns the sample called name at virtual time now (only the moving
// samples, reference and storm, depend on now).
func Get(name string, now int64) (*scene.Scene, error) {
	switch name {
	case "leader-death":
		return LeaderDeath(), nil
	case "faults":
		return Faults(), nil
	case "reference":
		return Reference(now, 1), nil
	case "storm":
		return Reference(now, 40), nil
	case "empty":
		return &scene.Scene{V: scene.Version, Brokers: []scene.Broker{}, Partitions: []scene.Partition{}}, nil
	}
	return nil, fmt.Errorf("sample: unknown sample %q (known: %v)", name, Names)
}

func cells(from, to int64, epoch func(int64) int32, value func(int64) string) []scene.Cell {
	var cs []scene.Cell
	for o := from; o < to; o++ {
		cs = append(cs, scene.Cell{Offset: o, Value: value(o), Epoch: epoch(o)})
	}
	return cs
}

func mValue(o int64) string { return "m" + strconv.FormatInt(o+1, 10) }

// LeaderDeath is the acks=1 leader-death story just after the old leader
// came back: broker 1 led orders-0 at epoch 0 and acked m3 alone, crashed,
// broker 2 was elected at epoch 1, broker 1 restarted and truncated m3
// away (lost). Producer p1 (acks=1), consumer c1 of group g.
func LeaderDeath() *scene.Scene {
	ep := func(o int64) int32 {
		if o >= 2 {
			return 1
		}
		return 0
	}
	s := &scene.Scene{
		V: scene.Version, Now: 31200, Metadata: "zk", Version: "3.9", Controller: 2,
		Brokers: []scene.Broker{
			{ID: 1, State: scene.StateAlive},
			{ID: 2, State: scene.StateAlive, Controller: true},
			{ID: 3, State: scene.StateAlive},
		},
		Producers: []scene.Producer{{Name: "p1", Acks: "1", Sent: 5, Acked: 5, Rate: 2}},
		Consumers: []scene.Consumer{{Name: "c1", Group: "g", Alive: true, Assigned: []string{"orders-0"},
			Positions: map[string]int64{"orders-0": 3}, Polled: 3,
			Recent: []scene.Got{{Partition: "orders-0", Offset: 0, Value: "m1"}, {Partition: "orders-0", Offset: 1, Value: "m2"}, {Partition: "orders-0", Offset: 2, Value: "m4"}}}},
		Groups: []scene.Group{{Name: "g", State: "Stable", Generation: 2, Coordinator: 2, Protocol: "range", Leader: "c1", Members: []string{"c1"}}},
		Partitions: []scene.Partition{{
			Name: "orders-0", Topic: "orders", Index: 0, Leader: 2, Epoch: 1, ISR: []int{2, 3}, Assignment: []int{1, 2, 3}, From: 0,
			Replicas: []scene.Replica{
				{Broker: 1, Role: scene.RoleFollower, Epoch: 1, LEO: 2, HW: 2, Flushed: 2,
					Cells: append(cells(0, 2, ep, mValue), scene.Cell{Offset: 2, Value: "m3", Flags: scene.FlagLost})},
				{Broker: 2, Role: scene.RoleLeader, Epoch: 1, InISR: true, LEO: 4, HW: 3, Flushed: 2,
					Cells: []scene.Cell{{Offset: 0, Value: "m1"}, {Offset: 1, Value: "m2"}, {Offset: 2, Value: "m4", Epoch: 1}, {Offset: 3, Value: "m5", Epoch: 1}}},
				{Broker: 3, Role: scene.RoleFollower, Epoch: 1, InISR: true, LEO: 3, HW: 3, Flushed: 3,
					Cells: []scene.Cell{{Offset: 0, Value: "m1"}, {Offset: 1, Value: "m2"}, {Offset: 2, Value: "m4", Epoch: 1}}},
			},
		}},
		Messages: []scene.Message{
			{ID: 901, From: "p1", To: "2", Kind: "Produce", Partition: "orders-0", SentAt: 31199, DeliverAt: 31201},
			{ID: 902, From: "3", To: "2", Kind: "Fetch", Partition: "orders-0", SentAt: 31190, DeliverAt: 31192},
			{ID: 903, From: "2", To: "3", Kind: "FetchResponse", Partition: "orders-0", SentAt: 31199, DeliverAt: 31201},
			{ID: 904, From: "1", To: "2", Kind: "Fetch", Partition: "orders-0", SentAt: 31200, DeliverAt: 31202},
			{ID: 905, From: "c1", To: "2", Kind: "Fetch", Partition: "orders-0", SentAt: 31180, DeliverAt: 31182},
			{ID: 906, From: "2", To: "c1", Kind: "FetchResponse", Partition: "orders-0", SentAt: 31182, DeliverAt: 31184},
			{ID: 907, From: "c1", To: "2", Kind: "Heartbeat", SentAt: 31150, DeliverAt: 31152},
			{ID: 908, From: "2", To: "zk", Kind: "ZkSetData", SentAt: 31140, DeliverAt: 31142},
			{ID: 909, From: "2", To: "p1", Kind: "ProduceResponse", Partition: "orders-0", SentAt: 31160, DeliverAt: 31162},
		},
		Marks: []scene.Mark{
			{Kind: scene.MarkCrash, At: 1100, Broker: 1},
			{Kind: scene.MarkElection, At: 18000, Broker: 2, Partition: "orders-0", Epoch: 1},
			{Kind: scene.MarkRestart, At: 31100, Broker: 1},
			{Kind: scene.MarkTruncate, At: 31150, Broker: 1, Partition: "orders-0", Offset: 2, Cells: []scene.Cell{{Offset: 2, Value: "m3", Flags: scene.FlagLost}}},
			{Kind: scene.MarkISRExpand, At: 31190, Broker: 3, Partition: "orders-0"},
		},
		Selection: &scene.Ref{Kind: scene.KindRecord, Partition: "orders-0", Broker: 1, Offset: 2},
		View:      scene.ViewCluster,
		Span:      100,
		Counters:  scene.Counters{Produced: 5, Acked: 5, Consumed: 3, Lost: 1, Rate: 2},
	}
	return s
}

// Faults shows every broker state and fault mark at once: broker 1 crashed,
// 2 powered off, 3 paused, 4 cut off by a split, 5 the controller; an
// unclean election, ISR shrink, a duplicate and a reordered record at a
// consumer, a rebalance moving a partition.
func Faults() *scene.Scene {
	ep := func(int64) int32 { return 0 }
	s := &scene.Scene{
		V: scene.Version, Now: 5000, Metadata: "zk", Version: "2.8", Controller: 5,
		Brokers: []scene.Broker{
			{ID: 1, State: scene.StateCrashed},
			{ID: 2, State: scene.StatePoweredOff},
			{ID: 3, State: scene.StatePaused},
			{ID: 4, State: scene.StateAlive, Side: 2, Cut: true},
			{ID: 5, State: scene.StateAlive, Controller: true, Side: 1},
		},
		Producers: []scene.Producer{{Name: "p1", Acks: "all", Idempotent: false, Pending: 3, InFlight: 2, Sent: 40, Acked: 37, Rate: 10, Side: 1}},
		Consumers: []scene.Consumer{
			{Name: "c1", Group: "g", Alive: true, Assigned: []string{"t-0"}, Positions: map[string]int64{"t-0": 7}, Polled: 9, Side: 1,
				Recent: []scene.Got{{Partition: "t-0", Offset: 4, Value: "m5"}, {Partition: "t-0", Offset: 6, Value: "m8", OutOfOrder: true}, {Partition: "t-0", Offset: 5, Value: "m7"}, {Partition: "t-0", Offset: 4, Value: "m5", Dup: 2}}},
			{Name: "c2", Group: "g", Alive: true, Assigned: []string{"t-1"}, Positions: map[string]int64{"t-1": 3}, Polled: 3, Side: 1},
		},
		Groups: []scene.Group{{Name: "g", State: "Stable", Generation: 5, Coordinator: 5, Protocol: "range", Leader: "c1", Members: []string{"c1", "c2"}}},
		Partitions: []scene.Partition{
			{Name: "t-0", Topic: "t", Index: 0, Leader: 5, Epoch: 3, Unclean: true, ISR: []int{5}, Assignment: []int{4, 5, 1}, From: 2,
				Replicas: []scene.Replica{
					{Broker: 4, Role: scene.RoleLeader, Epoch: 2, LEO: 9, HW: 6, Flushed: 8, Cells: cells(2, 9, ep, mValue)},
					{Broker: 5, Role: scene.RoleLeader, Epoch: 3, InISR: true, LEO: 8, HW: 7, Flushed: 5,
						Cells: []scene.Cell{{Offset: 2, Value: "m3"}, {Offset: 3, Value: "m4"}, {Offset: 4, Value: "m5", Dup: 2}, {Offset: 5, Value: "m7"}, {Offset: 6, Value: "m8", Flags: scene.FlagOutOfOrder, Epoch: 3}, {Offset: 7, Value: "m9", Epoch: 3}}},
					{Broker: 1, Role: scene.RoleNone, LEO: 6, HW: 5, Flushed: 6, Cells: cells(2, 6, ep, mValue)},
				}},
			{Name: "t-1", Topic: "t", Index: 1, Leader: 5, Epoch: 1, ISR: []int{5, 3}, Assignment: []int{5, 3, 2}, From: 0,
				Replicas: []scene.Replica{
					{Broker: 5, Role: scene.RoleLeader, Epoch: 1, InISR: true, LEO: 4, HW: 3, Flushed: 1, Cells: cells(0, 4, ep, mValue)},
					{Broker: 3, Role: scene.RoleFollower, Epoch: 1, InISR: true, LEO: 3, HW: 3, Flushed: 3, Cells: cells(0, 3, ep, mValue)},
					{Broker: 2, Role: scene.RoleFollower, Epoch: 1, LEO: 1, HW: 1, Flushed: 1,
						Cells: []scene.Cell{{Offset: 0, Value: "m1"}, {Offset: 1, Value: "m2", Flags: scene.FlagLost}, {Offset: 2, Value: "m3", Flags: scene.FlagLost}}},
				}},
			// Topic old, marked for deletion: brokers 5 and 4 deleted their
			// replicas, crashed broker 1 still holds its own, so the
			// controller waits (TopicDeletionManager).
			{Name: "old-0", Topic: "old", Index: 0, Leader: -1, Epoch: 2, Deleting: true, ISR: []int{}, Assignment: []int{1, 5, 4}, From: 0,
				Replicas: []scene.Replica{
					{Broker: 1, Role: scene.RoleNone, Epoch: 1, LEO: 3, HW: 3, Flushed: 3, Cells: cells(0, 3, ep, mValue)},
				}},
		},
		Messages: []scene.Message{
			{ID: 1, From: "p1", To: "5", Kind: "Produce", Partition: "t-0", SentAt: 4999, DeliverAt: 5001},
			{ID: 2, From: "p1", To: "4", Kind: "Produce", Partition: "t-0", SentAt: 4990, DeliverAt: 4992, Dropped: true},
			{ID: 3, From: "5", To: "zk", Kind: "ZkSetData", SentAt: 4999, DeliverAt: 5002},
			{ID: 4, From: "c1", To: "5", Kind: "JoinGroup", SentAt: 4998, DeliverAt: 5000},
			{ID: 5, From: "c2", To: "5", Kind: "Heartbeat", SentAt: 5000, DeliverAt: 5002},
			{ID: 6, From: "5", To: "3", Kind: "LeaderAndIsr", SentAt: 4999, DeliverAt: 5001},
		},
		Marks: []scene.Mark{
			{Kind: scene.MarkCrash, At: 1000, Broker: 1},
			{Kind: scene.MarkPowerOff, At: 2000, Broker: 2},
			{Kind: scene.MarkLost, At: 2000, Broker: 2, Partition: "t-1", Cells: []scene.Cell{{Offset: 1, Value: "m2", Flags: scene.FlagLost}, {Offset: 2, Value: "m3", Flags: scene.FlagLost}}},
			{Kind: scene.MarkSplit, At: 3000, Text: "4 | 1,2,3,5,p1,c1,c2,zk"},
			{Kind: scene.MarkPause, At: 3500, Broker: 3},
			{Kind: scene.MarkISRShrink, At: 4000, Broker: 4, Partition: "t-0"},
			{Kind: scene.MarkElection, At: 4850, Broker: 5, Partition: "t-0", Epoch: 3, Unclean: true},
			{Kind: scene.MarkRebalance, At: 4900, Group: "g", Generation: 5},
			{Kind: scene.MarkMove, At: 4900, Group: "g", Partition: "t-1", From: "c1", To: "c2"},
			{Kind: scene.MarkReorder, At: 4950, Host: "c1", Partition: "t-0", Cells: []scene.Cell{{Offset: 6, Value: "m8"}}},
			{Kind: scene.MarkDup, At: 4980, Host: "c1", Partition: "t-0", Cells: []scene.Cell{{Offset: 4, Value: "m5", Dup: 2}}},
		},
		Highlights: []scene.Ref{{Kind: scene.KindPartition, Partition: "t-0"}},
		View:       scene.ViewBoth,
		Span:       6000,
		Counters:   scene.Counters{Produced: 40, Acked: 37, Consumed: 12, Lost: 2, Dups: 1, Reordered: 1, Rate: 10},
	}
	return s
}
