package check_test

import (
	"slices"
	"testing"

	"github.com/kafkasim/kafkasim/core/check"
	"github.com/kafkasim/kafkasim/core/scenario"
)

// TestDeletedWithFewerPartitions: records of a deleted topic count as
// deleted, not lost, also on a partition the topic created again with the
// same name no longer has.
func TestDeletedWithFewerPartitions(t *testing.T) {
	src := `cluster brokers=3 seed=5 version=3.9 metadata=kraft
topic create orders partitions=2 rf=3
producer p1 acks=all
produce p1 orders value=a partition=0
produce p1 orders value=b partition=1
wait 2s
topic delete orders
wait 1s
topic create orders partitions=1 rf=3
wait 2s
`
	s, err := scenario.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	r := scenario.NewRunner(scenario.RunOptions{})
	for i := range s.Steps {
		if err := r.Step(&s.Steps[i]); err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
	}
	c := r.Cluster()
	var got []string
	for _, s := range check.Deleted(c) {
		got = append(got, s.Value)
	}
	if !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("Deleted = %v, want [a b]", got)
	}
	if lost := check.LostRecords(c); len(lost) != 0 {
		t.Errorf("LostRecords = %v, want none", lost)
	}
}
