package assign

import (
	"strings"
	"testing"
)

func TestByName(t *testing.T) {
	for _, name := range []string{"range", "roundrobin", "sticky", "cooperative-sticky"} {
		a, err := ByName(name)
		if err != nil || a.Name() != name {
			t.Errorf("ByName(%q) = %v, %v", name, a, err)
		}
	}
	a, err := ByName("org.apache.kafka.clients.consumer.CooperativeStickyAssignor")
	if err != nil || a.Name() != "cooperative-sticky" || a.Protocol() != Cooperative {
		t.Errorf("ByName(class name) = %v, %v", a, err)
	}
	for _, name := range []string{"range", "roundrobin", "sticky"} {
		if a, _ := ByName(name); a.Protocol() != Eager {
			t.Errorf("%s protocol = %s, want eager", name, a.Protocol())
		}
	}
	_, err = ByName("uniform")
	if err == nil {
		t.Fatal("ByName(uniform) succeeded")
	}
	for _, name := range Names() {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not list %q", err, name)
		}
	}
}

// javadocMembers are C0 and C1 subscribed to t0 and t1 (RangeAssignor and
// RoundRobinAssignor javadoc).
var javadocMembers = []Member{mem("C0", topics("t0", "t1"), -1), mem("C1", topics("t0", "t1"), -1)}

func TestEmptyInputs(t *testing.T) {
	for _, a := range all {
		if got := a.Assign(map[string]int{"t": 3}, nil); len(got) != 0 {
			t.Errorf("%s with no members = %v", a.Name(), got)
		}
		got := a.Assign(map[string]int{"t": 0}, []Member{mem("m", topics("t", "gone"), -1)})
		wantAssignment(t, got, map[string][]string{"m": {}})
	}
}

func TestInputsNotModified(t *testing.T) {
	ppt := map[string]int{"t0": 3, "t1": 2}
	members := []Member{
		mem("b", topics("t1", "t0", "t1"), 3, "t0-2", "t1-0", "t0-2"),
		mem("a", topics("t0"), 2, "t0-1"),
	}
	for _, a := range all {
		a.Assign(ppt, members)
		if len(members[0].Topics) != 3 || members[0].Topics[0] != "t1" || len(members[0].Owned) != 3 ||
			members[0].Owned[0] != (TopicPartition{"t0", 2}) || members[1].ID != "a" || len(ppt) != 2 {
			t.Fatalf("%s modified its input: %+v %v", a.Name(), members, ppt)
		}
	}
}
