package assign

import "testing"

func TestRangeJavadocExample(t *testing.T) {
	got := Range{}.Assign(map[string]int{"t0": 3, "t1": 3}, javadocMembers)
	wantAssignment(t, got, map[string][]string{
		"C0": {"t0-0", "t0-1", "t1-0", "t1-1"},
		"C1": {"t0-2", "t1-2"},
	})
}

// Static members sort by group.instance.id (RangeAssignor javadoc: I0 gets
// [t0p0, t0p1, t1p0, t1p1] whatever the member ids), and before dynamic ones.
func TestRangeStaticMembersOrderByInstanceID(t *testing.T) {
	members := []Member{
		{ID: "C0-uuid", InstanceID: "I1", Topics: topics("t0", "t1")},
		{ID: "C1-uuid", InstanceID: "I0", Topics: topics("t0", "t1")},
	}
	got := Range{}.Assign(map[string]int{"t0": 3, "t1": 3}, members)
	wantAssignment(t, got, map[string][]string{
		"C1-uuid": {"t0-0", "t0-1", "t1-0", "t1-1"},
		"C0-uuid": {"t0-2", "t1-2"},
	})
	mixed := []Member{
		{ID: "a-dynamic", Topics: topics("t")},
		{ID: "z-static", InstanceID: "zz", Topics: topics("t")},
	}
	wantAssignment(t, Range{}.Assign(map[string]int{"t": 3}, mixed), map[string][]string{
		"z-static": {"t-0", "t-1"}, "a-dynamic": {"t-2"},
	})
}

func TestRangePerTopicSubscribers(t *testing.T) {
	members := []Member{
		mem("c1", topics("t1"), -1),
		mem("c2", topics("t1", "t2"), -1),
		mem("c3", topics("t2", "missing"), -1),
		mem("c4", nil, -1),
	}
	got := Range{}.Assign(map[string]int{"t1": 5, "t2": 1, "unsubscribed": 4}, members)
	wantAssignment(t, got, map[string][]string{
		"c1": {"t1-0", "t1-1", "t1-2"},
		"c2": {"t1-3", "t1-4", "t2-0"},
		"c3": {},
		"c4": {},
	})
}
