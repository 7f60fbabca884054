package core

import "testing"

// DrainEvents hands over what Events would, in order, once; the next
// drain sees only newer events, though the buffer is reused.
func TestDrainEventsReusesTheBuffer(t *testing.T) {
	c, err := New(Options{Brokers: 3, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Apply(CreateTopic{Topic: "t", Partitions: 2, RF: 3}); err != nil {
		t.Fatal(err)
	}
	var first []uint64
	c.DrainEvents(func(e *Event) { first = append(first, e.Seq) })
	if len(first) == 0 {
		t.Fatal("no events drained after a topic was created")
	}
	for i := 1; i < len(first); i++ {
		if first[i] != first[i-1]+1 {
			t.Fatalf("seq %d after %d: not in order", first[i], first[i-1])
		}
	}
	buf := cap(c.events)
	if _, err := c.Advance(2000); err != nil {
		t.Fatal(err)
	}
	var second []uint64
	c.DrainEvents(func(e *Event) { second = append(second, e.Seq) })
	if len(second) == 0 || second[0] != first[len(first)-1]+1 {
		t.Fatalf("second drain starts at seq %v, want %d", second[:min(1, len(second))], first[len(first)-1]+1)
	}
	if buf == 0 {
		t.Error("the buffer was not kept after the first drain")
	}
	n := 0
	c.DrainEvents(func(*Event) { n++ })
	if n != 0 {
		t.Errorf("a third drain with nothing new saw %d events", n)
	}
	if got := len(c.Events()); got != 0 {
		t.Errorf("Events after a drain: %d events", got)
	}
}
