package assign

import (
	"reflect"
	"testing"
)

// Expected values in this file come from Kafka's AbstractStickyAssignorTest
// (apache/kafka clients/src/test/.../internals, 3.5+ version, non-rack
// configuration) unless the comment says otherwise. Kafka's tests use
// generation 1 (generationId) for owned partitions.

// stickyCase runs Sticky on one case, checks the result and returns it.
func stickyCase(t *testing.T, ppt map[string]int, members []Member, want map[string][]string) Assignment {
	t.Helper()
	got := Sticky{}.Assign(ppt, members)
	wantAssignment(t, got, want)
	return got
}

// StickyAssignor javadoc example 1: on a fresh group sticky equals roundrobin;
// when C1 leaves, sticky keeps every partition of C0 and C2 while roundrobin
// moves half of them.
func TestStickyJavadocExample1(t *testing.T) {
	ppt := map[string]int{"t0": 2, "t1": 2, "t2": 2, "t3": 2}
	all4 := topics("t0", "t1", "t2", "t3")
	members := []Member{mem("C0", all4, -1), mem("C1", all4, -1), mem("C2", all4, -1)}
	want1 := map[string][]string{
		"C0": {"t0-0", "t1-1", "t3-0"},
		"C1": {"t0-1", "t2-0", "t3-1"},
		"C2": {"t1-0", "t2-1"},
	}
	first := stickyCase(t, ppt, members, want1)
	wantAssignment(t, RoundRobin{}.Assign(ppt, members), want1)

	left := owning([]Member{members[0], members[2]}, first, 1)
	wantAssignment(t, RoundRobin{}.Assign(ppt, left), map[string][]string{
		"C0": {"t0-0", "t1-0", "t2-0", "t3-0"},
		"C2": {"t0-1", "t1-1", "t2-1", "t3-1"},
	})
	// The javadoc (written for the 0.11 algorithm) gives C0 t2p0 and C2 t0p1;
	// Kafka 2.3+'s constrained algorithm deals the freed partitions
	// t0p1, t2p0, t3p1 round-robin to C0, C2, C2 instead. Both keep all
	// previously owned partitions.
	stickyCase(t, ppt, left, map[string][]string{
		"C0": {"t0-0", "t1-1", "t3-0", "t0-1"},
		"C2": {"t1-0", "t2-1", "t2-0", "t3-1"},
	})
}

// StickyAssignor javadoc example 2 (unequal subscriptions, general algorithm).
func TestStickyJavadocExample2(t *testing.T) {
	ppt := map[string]int{"t0": 1, "t1": 2, "t2": 3}
	members := []Member{
		mem("C0", topics("t0"), -1),
		mem("C1", topics("t0", "t1"), -1),
		mem("C2", topics("t0", "t1", "t2"), -1),
	}
	first := stickyCase(t, ppt, members, map[string][]string{
		"C0": {"t0-0"}, "C1": {"t1-0", "t1-1"}, "C2": {"t2-0", "t2-1", "t2-2"},
	})
	left := owning(members[1:], first, 1)
	stickyCase(t, ppt, left, map[string][]string{
		"C1": {"t1-0", "t1-1", "t0-0"}, "C2": {"t2-0", "t2-1", "t2-2"},
	})
	wantAssignment(t, RoundRobin{}.Assign(ppt, left), map[string][]string{
		"C1": {"t0-0", "t1-1"}, "C2": {"t1-0", "t2-0", "t2-1", "t2-2"},
	})
}

func TestStickyTwoConsumersTwoTopicsSixPartitions(t *testing.T) {
	both := topics("topic1", "topic2")
	stickyCase(t, map[string]int{"topic1": 3, "topic2": 3},
		[]Member{mem("consumer1", both, -1), mem("consumer2", both, -1)},
		map[string][]string{
			"consumer1": {"topic1-0", "topic1-2", "topic2-1"},
			"consumer2": {"topic1-1", "topic2-0", "topic2-2"},
		})
}

func TestStickyMultipleConsumersMixedTopicSubscriptions(t *testing.T) {
	stickyCase(t, map[string]int{"topic1": 3, "topic2": 2},
		[]Member{
			mem("consumer1", topics("topic1"), -1),
			mem("consumer2", topics("topic1", "topic2"), -1),
			mem("consumer3", topics("topic1"), -1),
		},
		map[string][]string{
			"consumer1": {"topic1-0", "topic1-2"},
			"consumer2": {"topic2-0", "topic2-1"},
			"consumer3": {"topic1-1"},
		})
}

func TestStickyConsumerOwningMinQuotaExpectedMaxQuota(t *testing.T) {
	both := topics("topic1", "topic2")
	stickyCase(t, map[string]int{"topic1": 2, "topic2": 3},
		[]Member{
			mem("consumer1", both, 1, "topic1-0", "topic2-1"),
			mem("consumer2", both, 1, "topic1-1", "topic2-2"),
		},
		map[string][]string{
			"consumer1": {"topic1-0", "topic2-1", "topic2-0"},
			"consumer2": {"topic1-1", "topic2-2"},
		})
}

// Two members own maxQuota but only one may keep it. Kafka visits members in
// HashMap order (consumer3, consumer2, consumer1), so consumer2 keeps both.
func TestStickyMaxQuotaConsumerMoreThanNumExpectedMaxCapacityMembers(t *testing.T) {
	both := topics("topic1", "topic2")
	ppt := map[string]int{"topic1": 2, "topic2": 2}
	members := []Member{
		mem("consumer1", both, 1, "topic1-0", "topic2-0"),
		mem("consumer2", both, 1, "topic1-1", "topic2-1"),
		mem("consumer3", both, 1),
	}
	stickyCase(t, ppt, members, map[string][]string{
		"consumer1": {"topic1-0"},
		"consumer2": {"topic1-1", "topic2-1"},
		"consumer3": {"topic2-0"},
	})
	_, transferring := stickyAssign(newGroup(ppt, members))
	if want := map[TopicPartition]string{{"topic2", 0}: "consumer3"}; !reflect.DeepEqual(transferring, want) {
		t.Errorf("partitionsTransferringOwnership = %v, want %v", transferring, want)
	}
}

func TestStickyAllConsumersAreUnderMinQuota(t *testing.T) {
	both := topics("topic1", "topic2")
	stickyCase(t, map[string]int{"topic1": 2, "topic2": 3},
		[]Member{
			mem("consumer1", both, 1, "topic1-0"),
			mem("consumer2", both, 1, "topic1-1"),
			mem("consumer3", both, 1),
		},
		map[string][]string{
			"consumer1": {"topic1-0", "topic2-1"},
			"consumer2": {"topic1-1", "topic2-2"},
			"consumer3": {"topic2-0"},
		})
}

func TestStickyAddRemoveConsumerOneTopic(t *testing.T) {
	ppt := map[string]int{"topic": 3}
	one := []Member{mem("consumer1", topics("topic"), -1)}
	first := stickyCase(t, ppt, one, map[string][]string{"consumer1": {"topic-0", "topic-1", "topic-2"}})
	two := append(owning(one, first, 1), mem("consumer2", topics("topic"), 1))
	second := stickyCase(t, ppt, two, map[string][]string{
		"consumer1": {"topic-0", "topic-1"}, "consumer2": {"topic-2"},
	})
	stickyCase(t, ppt, owning(two[1:], second, 1), map[string][]string{
		"consumer2": {"topic-0", "topic-1", "topic-2"},
	})
}

func TestStickyAddRemoveTwoConsumersTwoTopics(t *testing.T) {
	ppt := map[string]int{"topic1": 3, "topic2": 4}
	both := topics("topic1", "topic2")
	two := []Member{mem("consumer1", both, -1), mem("consumer2", both, -1)}
	first := stickyCase(t, ppt, two, map[string][]string{
		"consumer1": {"topic1-0", "topic1-2", "topic2-1", "topic2-3"},
		"consumer2": {"topic1-1", "topic2-0", "topic2-2"},
	})
	four := append(owning(two, first, 1), mem("consumer3", both, 1), mem("consumer4", both, 1))
	second := stickyCase(t, ppt, four, map[string][]string{
		"consumer1": {"topic1-0", "topic2-1"},
		"consumer2": {"topic2-0", "topic1-1"},
		"consumer3": {"topic1-2", "topic2-3"},
		"consumer4": {"topic2-2"},
	})
	_, transferring := stickyAssign(newGroup(ppt, four))
	wantT := map[TopicPartition]string{{"topic1", 2}: "consumer3", {"topic2", 3}: "consumer3", {"topic2", 2}: "consumer4"}
	if !reflect.DeepEqual(transferring, wantT) {
		t.Errorf("partitionsTransferringOwnership = %v, want %v", transferring, wantT)
	}
	stickyCase(t, ppt, owning(four[2:], second, 1), map[string][]string{
		"consumer3": {"topic1-2", "topic2-3", "topic1-0", "topic2-1"},
		"consumer4": {"topic2-2", "topic1-1", "topic2-0"},
	})
}

func TestStickyAllConsumersReachExpectedQuotaAndAreConsideredFilled(t *testing.T) {
	stickyCase(t, map[string]int{"topic": 4},
		[]Member{
			mem("consumer1", topics("topic"), 1, "topic-0", "topic-1"),
			mem("consumer2", topics("topic"), 1, "topic-2"),
			mem("consumer3", topics("topic"), 1),
		},
		map[string][]string{"consumer1": {"topic-0", "topic-1"}, "consumer2": {"topic-2"}, "consumer3": {"topic-3"}})
}

func TestStickyOwnedPartitionsInvalidatedForStaleOrNoGeneration(t *testing.T) {
	both := topics("topic", "topic2")
	for _, staleGen := range []int{9, -1} {
		stickyCase(t, map[string]int{"topic": 3, "topic2": 3},
			[]Member{
				mem("consumer1", both, 10, "topic-0", "topic-2", "topic2-1"),
				mem("consumer2", both, staleGen, "topic-0", "topic-2", "topic2-1"),
			},
			map[string][]string{
				"consumer1": {"topic-0", "topic-2", "topic2-1"},
				"consumer2": {"topic-1", "topic2-0", "topic2-2"},
			})
	}
}

func TestStickyPartitionClaimedByMultipleConsumersInSameGeneration(t *testing.T) {
	ppt := map[string]int{"topic": 3}
	members := []Member{
		mem("consumer1", topics("topic"), 1, "topic-0", "topic-1"),
		mem("consumer2", topics("topic"), 1, "topic-0", "topic-2"),
		mem("consumer3", topics("topic"), 1),
	}
	stickyCase(t, ppt, members, map[string][]string{
		"consumer1": {"topic-1"}, "consumer2": {"topic-2"}, "consumer3": {"topic-0"},
	})
	_, transferring := stickyAssign(newGroup(ppt, members))
	if want := map[TopicPartition]string{{"topic", 0}: "consumer3"}; !reflect.DeepEqual(transferring, want) {
		t.Errorf("partitionsTransferringOwnership = %v, want %v", transferring, want)
	}
}

func TestStickyEnsurePartitionsAssignedToHighestGeneration(t *testing.T) {
	all3 := topics("topic", "topic2", "topic3")
	stickyCase(t, map[string]int{"topic": 3, "topic2": 3, "topic3": 3},
		[]Member{
			mem("consumer1", all3, 10, "topic-0", "topic2-0", "topic3-0"),
			mem("consumer2", all3, 9, "topic-1", "topic2-1", "topic3-1"),
			mem("consumer3", all3, 8, "topic2-1", "topic3-0", "topic3-2"),
		},
		map[string][]string{
			"consumer1": {"topic-0", "topic2-0", "topic3-0"},
			"consumer2": {"topic-1", "topic2-1", "topic3-1"},
			"consumer3": {"topic-2", "topic2-2", "topic3-2"},
		})
}

func TestStickyNoReassignmentOnCurrentMembers(t *testing.T) {
	all4 := topics("topic", "topic2", "topic3", "topic1")
	got := Sticky{}.Assign(map[string]int{"topic": 3, "topic1": 3, "topic2": 3, "topic3": 3},
		[]Member{
			mem("consumer1", all4, -1),
			mem("consumer2", all4, 9, "topic-0", "topic2-0", "topic1-0"),
			mem("consumer3", all4, 8, "topic3-2", "topic2-2", "topic1-1"),
			mem("consumer4", all4, 7, "topic3-1", "topic-1", "topic-2"),
		})
	if want := sorted("topic1-2", "topic2-1", "topic3-0"); !reflect.DeepEqual(got["consumer1"], want) {
		t.Errorf("consumer1 = %v, want %v", got["consumer1"], want)
	}
}

func TestStickyOnlyAssignsPartitionsFromSubscribedTopics(t *testing.T) {
	stickyCase(t, map[string]int{"topic": 2, "other": 2},
		[]Member{mem("consumer", topics("topic"), 1, "topic-0", "topic-1", "other-0", "other-1")},
		map[string][]string{"consumer": {"topic-0", "topic-1"}})
}
