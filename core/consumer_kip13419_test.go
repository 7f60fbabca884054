package core

import "testing"

// TestIllegalGenerationKeepsMemberID: a Heartbeat answered
// ILLEGAL_GENERATION resets a 3.9 consumer's generation but not its
// member id (KAFKA-13419, 3.2+), so its JoinGroup is the known member's:
// the coordinator hands it the current generation again and it is Stable
// at once. A 2.8 consumer takes a new member id, and the rebalance that
// starts waits for the old one to rejoin until the rebalance timeout
// (max.poll.interval.ms), so it is still joining seconds later.
func TestIllegalGenerationKeepsMemberID(t *testing.T) {
	for _, v := range []string{"2.8", "3.9"} {
		c, err := New(Options{Brokers: 1, Seed: 1, Version: v})
		if err != nil {
			t.Fatal(err)
		}
		for _, cmd := range []Command{
			Set{Configs: map[string]string{"group.initial.rebalance.delay.ms": "0", "offsets.topic.replication.factor": "1", "offsets.topic.num.partitions": "1"}},
			CreateTopic{Topic: "t", Partitions: 1, RF: 1},
			NewConsumer{Name: "c1", Group: "g", Topics: []string{"t"}},
		} {
			if err := c.Exec(cmd); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := c.Advance(5000); err != nil {
			t.Fatal(err)
		}
		m := c.consumers["c1"].member.(*member)
		if !m.stable() {
			t.Fatalf("%s: c1 did not join", v)
		}
		id := m.id
		m.onHeartbeat("ILLEGAL_GENERATION")
		if _, err := c.Advance(5000); err != nil {
			t.Fatal(err)
		}
		switch {
		case v == "3.9" && (m.id != id || !m.stable()):
			t.Errorf("3.9: after ILLEGAL_GENERATION c1 has member id %q (stable %v), want %q kept and Stable", m.id, m.stable(), id)
		case v == "2.8" && (m.id == id || m.stable()):
			t.Errorf("2.8: after ILLEGAL_GENERATION c1 has member id %q (stable %v), want a new one still waiting for the old %q to leave", m.id, m.stable(), id)
		}
	}
}
