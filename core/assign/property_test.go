package assign

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
)

// rng is splitmix64: a tiny seeded PRNG so the property tests are
// reproducible on every platform without math/rand.
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// intn returns a value in [0, n).
func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

// shuffle permutes l in place (Fisher-Yates).
func shuffle[T any](r *rng, l []T) {
	for i := len(l) - 1; i > 0; i-- {
		j := r.intn(i + 1)
		l[i], l[j] = l[j], l[i]
	}
}

// randomGroup returns a small random group: up to 6 topics of up to 8
// partitions and up to 9 members.
func randomGroup(r *rng, equal bool) (map[string]int, []Member) {
	return randomGroupSized(r, equal, 6, 8, 9)
}

// randomGroupSized returns topic sizes and members with random (or, if
// equal, identical) non-empty subscriptions and no ownership.
func randomGroupSized(r *rng, equal bool, maxTopics, maxPartitions, maxMembers int) (map[string]int, []Member) {
	ppt := map[string]int{}
	var names []string
	for i := range 1 + r.intn(maxTopics) {
		name := fmt.Sprintf("topic%d", i)
		names = append(names, name)
		ppt[name] = 1 + r.intn(maxPartitions)
	}
	var members []Member
	for i := range 1 + r.intn(maxMembers) {
		m := Member{ID: fmt.Sprintf("consumer-%d-%08x", i, uint32(r.next())), Generation: -1}
		if r.intn(4) == 0 {
			m.InstanceID = fmt.Sprintf("instance-%d", r.intn(100))
		}
		for _, t := range names {
			if equal || r.intn(2) == 0 {
				m.Topics = append(m.Topics, t)
			}
		}
		if len(m.Topics) == 0 {
			m.Topics = []string{names[r.intn(len(names))]}
		}
		members = append(members, m)
	}
	return ppt, members
}

// permuted returns a deep copy of members with members, topics and owned
// partitions in a random order.
func permuted(r *rng, members []Member) []Member {
	out := make([]Member, len(members))
	for i, m := range members {
		m.Topics, m.Owned = slices.Clone(m.Topics), slices.Clone(m.Owned)
		shuffle(r, m.Topics)
		shuffle(r, m.Owned)
		out[i] = m
	}
	shuffle(r, out)
	return out
}

// checkValid asserts the assignment invariants: an entry per member, sorted
// lists, each partition at most once and only to a subscriber, and, if
// complete, every partition of every subscribed topic assigned.
func checkValid(t *testing.T, name string, ppt map[string]int, members []Member, a Assignment, complete bool) {
	t.Helper()
	if len(a) != len(members) {
		t.Fatalf("%s: %d entries for %d members", name, len(a), len(members))
	}
	seen := map[TopicPartition]string{}
	subscribed := map[string]bool{}
	for _, m := range members {
		l, ok := a[m.ID]
		if !ok || l == nil {
			t.Fatalf("%s: no list for %s", name, m.ID)
		}
		if !slices.IsSortedFunc(l, compareTP) {
			t.Fatalf("%s: %s's list unsorted: %v", name, m.ID, l)
		}
		for _, tp := range l {
			if !slices.Contains(m.Topics, tp.Topic) || tp.Partition < 0 || tp.Partition >= ppt[tp.Topic] {
				t.Fatalf("%s: %s got %v outside its subscription", name, m.ID, tp)
			}
			if other, dup := seen[tp]; dup {
				t.Fatalf("%s: %v assigned to %s and %s", name, tp, other, m.ID)
			}
			seen[tp] = m.ID
		}
		for _, topic := range m.Topics {
			subscribed[topic] = true
		}
	}
	if complete {
		for topic := range subscribed {
			for p := range ppt[topic] {
				if _, ok := seen[TopicPartition{topic, p}]; !ok {
					t.Fatalf("%s: %s-%d unassigned: %s", name, topic, p, show(a))
				}
			}
		}
	}
}

// checkSpread asserts that partition counts differ by at most one.
func checkSpread(t *testing.T, name string, a Assignment) {
	t.Helper()
	lo, hi := -1, 0
	for _, l := range a {
		if lo < 0 || len(l) < lo {
			lo = len(l)
		}
		hi = max(hi, len(l))
	}
	if hi-lo > 1 {
		t.Fatalf("%s: unbalanced counts %d..%d: %s", name, lo, hi, show(a))
	}
}

// checkStickyBalance is AbstractStickyAssignorTest.verifyValidityAndBalance's
// balance rule: a member holding two or more partitions fewer than another
// must not be subscribed to the topic of any of that member's partitions.
func checkStickyBalance(t *testing.T, name string, members []Member, a Assignment) {
	t.Helper()
	for _, small := range members {
		for _, big := range members {
			if len(a[big.ID])-len(a[small.ID]) < 2 {
				continue
			}
			for _, tp := range a[big.ID] {
				if slices.Contains(small.Topics, tp.Topic) {
					t.Fatalf("%s: %v could move from %s to %s: %s", name, tp, big.ID, small.ID, show(a))
				}
			}
		}
	}
}

const propertyRounds = 300

func TestPropertyValidityAndDeterminism(t *testing.T) {
	r := &rng{s: 1}
	for round := range propertyRounds {
		ppt, members := randomGroup(r, round%2 == 0)
		for _, a := range all {
			name := fmt.Sprintf("round %d %s", round, a.Name())
			got := a.Assign(ppt, members)
			checkValid(t, name, ppt, members, got, true)
			if again := a.Assign(ppt, permuted(r, members)); !reflect.DeepEqual(got, again) {
				t.Fatalf("%s: result depends on input order:\n%s\n%s", name, show(got), show(again))
			}
		}
	}
}

func TestPropertyBalance(t *testing.T) {
	r := &rng{s: 2}
	for round := range propertyRounds {
		equal := round%2 == 0
		ppt, members := randomGroup(r, equal)
		name := fmt.Sprintf("round %d", round)
		sticky := Sticky{}.Assign(ppt, members)
		checkStickyBalance(t, name+" sticky", members, sticky)
		if equal {
			checkSpread(t, name+" sticky", sticky)
			checkSpread(t, name+" roundrobin", RoundRobin{}.Assign(ppt, members))
		}
	}
}

// After a member leaves a balanced sticky group with equal subscriptions,
// every remaining member keeps all its partitions.
func TestPropertyStickyKeepsPartitionsWhenMemberLeaves(t *testing.T) {
	r := &rng{s: 3}
	for round := range propertyRounds {
		ppt, members := randomGroup(r, true)
		if len(members) < 2 {
			continue
		}
		first := Sticky{}.Assign(ppt, members)
		leaver := r.intn(len(members))
		rest := owning(slices.Delete(slices.Clone(members), leaver, leaver+1), first, 1)
		second := Sticky{}.Assign(ppt, rest)
		checkValid(t, "second", ppt, rest, second, true)
		checkSpread(t, "second", second)
		for _, m := range rest {
			for _, tp := range m.Owned {
				if !slices.Contains(second[m.ID], tp) {
					t.Fatalf("round %d: %s lost %v: %s -> %s", round, m.ID, tp, show(first), show(second))
				}
			}
		}
	}
}

// Random membership and subscription changes, as in Kafka's
// testReassignmentWithRandomSubscriptionsAndChanges, then cooperative
// rebalances until nothing is revoked (CooperativeStickyAssignorTest's
// verifyValidityAndBalance): no partition may be revoked and assigned in
// the same round, at most 4 follow-ups are needed, and the result is valid.
func TestPropertyCooperativeConverges(t *testing.T) {
	r := &rng{s: 4}
	for round := range propertyRounds {
		ppt, members := randomGroup(r, round%2 == 0)
		prev := Sticky{}.Assign(ppt, members)
		gen := 1
		members = owning(members, prev, gen)
		members = mutate(r, members, ppt, round%2 == 0)
		for rebalances := 0; ; rebalances++ {
			if rebalances > 4 {
				t.Fatalf("round %d: no convergence after 4 follow-ups", round)
			}
			next := CooperativeSticky{}.Assign(ppt, members)
			checkValid(t, fmt.Sprintf("round %d/%d", round, rebalances), ppt, members, next, false)
			checkNoSimultaneousMove(t, members, next)
			revoked := false
			for _, m := range members {
				for _, tp := range m.Owned {
					revoked = revoked || !slices.Contains(next[m.ID], tp)
				}
			}
			gen++
			members = owning(members, next, gen)
			if !revoked {
				checkValid(t, fmt.Sprintf("round %d final", round), ppt, members, next, true)
				checkStickyBalance(t, fmt.Sprintf("round %d final", round), members, next)
				break
			}
		}
	}
}

// mutate drops and adds members and, unless equal, changes subscriptions.
func mutate(r *rng, members []Member, ppt map[string]int, equal bool) []Member {
	var out []Member
	for _, m := range members {
		if r.intn(4) != 0 {
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		out = append(out, members[0])
	}
	var names []string
	for t := range ppt {
		names = append(names, t)
	}
	slices.Sort(names)
	for i := range r.intn(3) {
		out = append(out, Member{ID: fmt.Sprintf("joiner-%d-%d", i, r.intn(1000)), Topics: slices.Clone(out[0].Topics), Generation: -1})
	}
	if !equal {
		for i := range out {
			if r.intn(3) == 0 {
				out[i].Topics = []string{names[r.intn(len(names))]}
			}
		}
	}
	return out
}

// checkNoSimultaneousMove asserts that no partition is added to one member
// while being revoked from another in the same cooperative round.
func checkNoSimultaneousMove(t *testing.T, members []Member, a Assignment) {
	t.Helper()
	added, revoked := map[TopicPartition]bool{}, map[TopicPartition]bool{}
	for _, m := range members {
		for _, tp := range a[m.ID] {
			if !slices.Contains(m.Owned, tp) {
				added[tp] = true
			}
		}
		for _, tp := range m.Owned {
			if !slices.Contains(a[m.ID], tp) {
				revoked[tp] = true
			}
		}
	}
	for tp := range added {
		if revoked[tp] {
			t.Fatalf("%v revoked and reassigned in one round: %s", tp, show(a))
		}
	}
}

// Larger groups through a full eager-then-cooperative cycle.
func TestPropertyLargeGroups(t *testing.T) {
	r := &rng{s: 5}
	for round := range 12 {
		equal := round%2 == 0
		ppt, members := randomGroupSized(r, equal, 12, 24, 30)
		name := fmt.Sprintf("large round %d", round)
		first := Sticky{}.Assign(ppt, members)
		checkValid(t, name, ppt, members, first, true)
		checkStickyBalance(t, name, members, first)
		if equal {
			checkSpread(t, name, first)
		}
		members = mutate(r, owning(members, first, 1), ppt, equal)
		for gen := 2; gen < 8; gen++ {
			next := CooperativeSticky{}.Assign(ppt, members)
			checkValid(t, name, ppt, members, next, false)
			checkNoSimultaneousMove(t, members, next)
			prev := Assignment{}
			for _, m := range members {
				prev[m.ID] = m.Owned
			}
			members = owning(members, next, gen)
			if len(Revoked(prev, next)) == 0 {
				checkValid(t, name+" final", ppt, members, next, true)
				checkStickyBalance(t, name+" final", members, next)
				break
			}
			if gen == 7 {
				t.Fatalf("%s: no convergence", name)
			}
		}
	}
}
