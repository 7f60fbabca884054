package core

import (
	"reflect"
	"testing"
)

// TestPlaceReplicas checks the placement against Kafka's own test vectors
// (AdminUtilsTest.testReplicaAssignment and
// AdminRackAwareTest.testGetRackAlternatedBrokerListAndAssignReplicasToBrokers,
// fixed start index 0).
func TestPlaceReplicas(t *testing.T) {
	got := placeReplicas([]int{0, 1, 2, 3, 4}, nil, 10, 3, 0, 0, newRNG(1))
	want := [][]int{{0, 1, 2}, {1, 2, 3}, {2, 3, 4}, {3, 4, 0}, {4, 0, 1}, {0, 2, 3}, {1, 3, 4}, {2, 4, 0}, {3, 0, 1}, {4, 1, 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rack-unaware:\n got %v\nwant %v", got, want)
	}
	racks := map[int]string{0: "rack1", 1: "rack3", 2: "rack3", 3: "rack2", 4: "rack2", 5: "rack1"}
	if l, n := rackAlternated([]int{0, 1, 2, 3, 4, 5}, racks); !reflect.DeepEqual(l, []int{0, 3, 1, 5, 4, 2}) || n != 3 {
		t.Errorf("rack-alternated list %v (%d racks), want [0 3 1 5 4 2] (3)", l, n)
	}
	got = placeReplicas([]int{0, 1, 2, 3, 4, 5}, racks, 7, 3, 0, 0, newRNG(1))
	want = [][]int{{0, 3, 1}, {3, 1, 5}, {1, 5, 4}, {5, 4, 2}, {4, 2, 0}, {2, 0, 3}, {0, 4, 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rack-aware:\n got %v\nwant %v", got, want)
	}
}

// TestSplitPartitionName checks that SplitPartitionName undoes
// partitionName for topics with dashes and digits in their names, and
// accepts nothing partitionName would not have written.
func TestSplitPartitionName(t *testing.T) {
	for _, c := range []struct {
		topic string
		id    int
	}{{"orders", 0}, {"my-topic-2", 12}, {"a", 2147483646}, {"__consumer_offsets", 49}, {"x-1-", 3}} {
		name := partitionName(c.topic, c.id)
		topic, id, ok := SplitPartitionName(name)
		if !ok || topic != c.topic || id != c.id {
			t.Errorf("SplitPartitionName(%q) = %q, %d, %v; want %q, %d, true", name, topic, id, ok, c.topic, c.id)
		}
	}
	for _, name := range []string{"", "orders", "-1", "orders-", "orders-x", "orders-1-", "orders-+1", "orders-01", "orders- 1"} {
		if topic, id, ok := SplitPartitionName(name); ok {
			t.Errorf("SplitPartitionName(%q) = %q, %d, true; want not ok", name, topic, id)
		}
	}
}
