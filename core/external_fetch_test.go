package core

import (
	"strings"
	"testing"
)

// TestCheckFetchListedTwice: a Fetch that names a partition twice, by
// name or (v13+) by topic id, is refused; the same partition number of
// two topics is not a duplicate.
func TestCheckFetchListedTwice(t *testing.T) {
	a, b := [16]byte{1}, [16]byte{2}
	for _, c := range []struct {
		req  FetchRequest
		dup  bool
		name string
	}{
		{FetchRequest{Partitions: []FetchPartition{{Topic: "t", Partition: 0}, {Topic: "u", Partition: 0}, {Topic: "t", Partition: 1}}}, false, "by name, distinct"},
		{FetchRequest{Partitions: []FetchPartition{{Topic: "t", Partition: 0}, {Topic: "u", Partition: 0}, {Topic: "t", Partition: 0}}}, true, "by name, t-0 twice"},
		{FetchRequest{ByTopicID: true, Partitions: []FetchPartition{{TopicID: a, Partition: 0}, {TopicID: b, Partition: 0}}}, false, "by id, distinct"},
		{FetchRequest{ByTopicID: true, Partitions: []FetchPartition{{Topic: "x", TopicID: a, Partition: 3}, {Topic: "y", TopicID: a, Partition: 3}}}, true, "by id, the same id under two guessed names"},
	} {
		err := checkFetch(&c.req)
		if got := err != nil && strings.Contains(err.Error(), "listed twice"); got != c.dup {
			t.Errorf("%s: error %v, want a duplicate: %v", c.name, err, c.dup)
		}
	}
}
