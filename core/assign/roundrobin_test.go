package assign

import "testing"

func TestRoundRobinJavadocExample(t *testing.T) {
	got := RoundRobin{}.Assign(map[string]int{"t0": 3, "t1": 3}, javadocMembers)
	wantAssignment(t, got, map[string][]string{
		"C0": {"t0-0", "t0-2", "t1-1"},
		"C1": {"t0-1", "t1-0", "t1-2"},
	})
}

// RoundRobinAssignor javadoc: unequal subscriptions give an unbalanced result.
func TestRoundRobinJavadocUnequalSubscriptions(t *testing.T) {
	members := []Member{
		mem("C0", topics("t0"), -1),
		mem("C1", topics("t0", "t1"), -1),
		mem("C2", topics("t0", "t1", "t2"), -1),
	}
	got := RoundRobin{}.Assign(map[string]int{"t0": 1, "t1": 2, "t2": 3}, members)
	wantAssignment(t, got, map[string][]string{
		"C0": {"t0-0"},
		"C1": {"t1-0"},
		"C2": {"t1-1", "t2-0", "t2-1", "t2-2"},
	})
}

func TestRoundRobinStaticMembersFirst(t *testing.T) {
	members := []Member{
		{ID: "a", Topics: topics("t")},
		{ID: "b", InstanceID: "i2", Topics: topics("t")},
		{ID: "c", InstanceID: "i1", Topics: topics("t")},
	}
	wantAssignment(t, RoundRobin{}.Assign(map[string]int{"t": 4}, members), map[string][]string{
		"c": {"t-0", "t-3"}, "b": {"t-1"}, "a": {"t-2"},
	})
}
