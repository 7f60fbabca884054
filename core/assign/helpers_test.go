package assign

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// tps parses "topic-partition" strings (split at the last '-').
func tps(specs ...string) []TopicPartition {
	out := []TopicPartition{}
	for _, s := range specs {
		i := strings.LastIndexByte(s, '-')
		p, err := strconv.Atoi(s[i+1:])
		if err != nil {
			panic(s)
		}
		out = append(out, TopicPartition{s[:i], p})
	}
	return out
}

// sorted returns tps(specs...) sorted as assignors return lists.
func sorted(specs ...string) []TopicPartition {
	l := tps(specs...)
	slices.SortFunc(l, compareTP)
	return l
}

// mem builds a member subscribed to topics and owning owned in generation gen.
func mem(id string, topics []string, gen int, owned ...string) Member {
	return Member{ID: id, Topics: topics, Owned: tps(owned...), Generation: gen}
}

// topics is a readability helper for []string literals.
func topics(ts ...string) []string { return ts }

// wantAssignment compares got with want (member -> partition specs, any order).
func wantAssignment(t *testing.T, got Assignment, want map[string][]string) {
	t.Helper()
	exp := Assignment{}
	for id, specs := range want {
		exp[id] = sorted(specs...)
	}
	if !reflect.DeepEqual(got, exp) {
		t.Errorf("assignment mismatch\n got: %s\nwant: %s", show(got), show(exp))
	}
}

// show renders an assignment deterministically.
func show(a Assignment) string {
	ids := make([]string, 0, len(a))
	for id := range a {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var b strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&b, "%s:[", id)
		for i, tp := range a[id] {
			if i > 0 {
				b.WriteString(" ")
			}
			fmt.Fprintf(&b, "%s-%d", tp.Topic, tp.Partition)
		}
		b.WriteString("] ")
	}
	return b.String()
}

// owning returns members with Owned set from a (generation gen).
func owning(members []Member, a Assignment, gen int) []Member {
	out := make([]Member, len(members))
	for i, m := range members {
		m.Owned = slices.Clone(a[m.ID])
		m.Generation = gen
		out[i] = m
	}
	return out
}
