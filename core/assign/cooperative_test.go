package assign

import (
	"reflect"
	"testing"
)

// CooperativeStickyAssignorTest: topic-0 is claimed by consumer1 and
// consumer2 in the same generation, so it is "owned" and withheld until both
// have revoked it.
func TestCooperativeClaimedByMultipleConsumersInSameGeneration(t *testing.T) {
	for n, want := range map[int]map[string][]string{
		3: {"consumer1": {"topic-1"}, "consumer2": {"topic-2"}, "consumer3": {}},
		4: {"consumer1": {"topic-1", "topic-3"}, "consumer2": {"topic-2"}, "consumer3": {}},
	} {
		got := CooperativeSticky{}.Assign(map[string]int{"topic": n}, []Member{
			mem("consumer1", topics("topic"), 1, "topic-0", "topic-1"),
			mem("consumer2", topics("topic"), 1, "topic-0", "topic-2"),
			mem("consumer3", topics("topic"), 1),
		})
		wantAssignment(t, got, want)
	}
}

// A partition that moves is withheld for one round; the follow-up round,
// in which the old owner no longer claims it, hands it over.
func TestCooperativeWithholdsThenAssignsMovedPartitions(t *testing.T) {
	both := topics("topic1", "topic2")
	ppt := map[string]int{"topic1": 2, "topic2": 2}
	members := []Member{
		mem("consumer1", both, 1, "topic1-0", "topic2-0"),
		mem("consumer2", both, 1, "topic1-1", "topic2-1"),
		mem("consumer3", both, 1),
	}
	round1 := CooperativeSticky{}.Assign(ppt, members)
	wantAssignment(t, round1, map[string][]string{
		"consumer1": {"topic1-0"}, "consumer2": {"topic1-1", "topic2-1"}, "consumer3": {},
	})
	prev := Assignment{}
	for _, m := range members {
		prev[m.ID] = m.Owned
	}
	if got, want := Revoked(prev, round1), map[string][]TopicPartition{"consumer1": tps("topic2-0")}; !reflect.DeepEqual(got, want) {
		t.Errorf("Revoked = %v, want %v", got, want)
	}
	round2 := CooperativeSticky{}.Assign(ppt, owning(members, round1, 2))
	wantAssignment(t, round2, map[string][]string{
		"consumer1": {"topic1-0"}, "consumer2": {"topic1-1", "topic2-1"}, "consumer3": {"topic2-0"},
	})
	if got := Revoked(round1, round2); len(got) != 0 {
		t.Errorf("follow-up round revokes %v", got)
	}
}

// Two consumers join (AbstractStickyAssignorTest.testAddRemoveTwoConsumersTwoTopics
// run cooperatively): round 1 withholds the three moving partitions, round 2
// reaches the eager sticky result.
func TestCooperativeTwoConsumersJoin(t *testing.T) {
	ppt := map[string]int{"topic1": 3, "topic2": 4}
	both := topics("topic1", "topic2")
	members := []Member{
		mem("consumer1", both, 1, "topic1-0", "topic1-2", "topic2-1", "topic2-3"),
		mem("consumer2", both, 1, "topic1-1", "topic2-0", "topic2-2"),
		mem("consumer3", both, 1),
		mem("consumer4", both, 1),
	}
	round1 := CooperativeSticky{}.Assign(ppt, members)
	wantAssignment(t, round1, map[string][]string{
		"consumer1": {"topic1-0", "topic2-1"}, "consumer2": {"topic2-0", "topic1-1"},
		"consumer3": {}, "consumer4": {},
	})
	round2 := CooperativeSticky{}.Assign(ppt, owning(members, round1, 2))
	wantAssignment(t, round2, map[string][]string{
		"consumer1": {"topic1-0", "topic2-1"}, "consumer2": {"topic2-0", "topic1-1"},
		"consumer3": {"topic1-2", "topic2-3"}, "consumer4": {"topic2-2"},
	})
}

// Unequal subscriptions take the general path, where the moved partitions
// are found by comparing Owned with the new assignment.
func TestCooperativeGeneralPathWithholds(t *testing.T) {
	ppt := map[string]int{"t1": 4, "t2": 2}
	members := []Member{
		mem("c1", topics("t1", "t2"), 1, "t1-0", "t1-1", "t1-2", "t1-3", "t2-0", "t2-1"),
		mem("c2", topics("t1"), 1),
	}
	wantAssignment(t, Sticky{}.Assign(ppt, members), map[string][]string{
		"c1": {"t1-3", "t2-0", "t2-1"}, "c2": {"t1-0", "t1-1", "t1-2"},
	})
	round1 := CooperativeSticky{}.Assign(ppt, members)
	wantAssignment(t, round1, map[string][]string{"c1": {"t1-3", "t2-0", "t2-1"}, "c2": {}})
	round2 := CooperativeSticky{}.Assign(ppt, owning(members, round1, 2))
	wantAssignment(t, round2, map[string][]string{"c1": {"t1-3", "t2-0", "t2-1"}, "c2": {"t1-0", "t1-1", "t1-2"}})
}

func TestRevoked(t *testing.T) {
	prev := Assignment{"a": tps("t-2", "t-0", "t-1"), "b": tps("t-3"), "c": tps()}
	next := Assignment{"a": tps("t-1"), "c": tps("t-3")}
	want := map[string][]TopicPartition{"a": tps("t-0", "t-2"), "b": tps("t-3")}
	if got := Revoked(prev, next); !reflect.DeepEqual(got, want) {
		t.Errorf("Revoked = %v, want %v", got, want)
	}
}
