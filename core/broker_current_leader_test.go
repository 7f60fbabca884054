package core

import "testing"

// TestTakeLeaderNeedsTheNode: a client takes a KIP-951 leader hint only
// for a leader whose node it can reach: one the response gave an
// endpoint for (a live leader), or one its last metadata answer listed
// (Metadata.updatePartitionLeadership skips "leader's node is missing").
func TestTakeLeaderNeedsTheNode(t *testing.T) {
	c, err := New(Options{Brokers: 3, Seed: 5, Version: "3.9"})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Apply(CreateTopic{Topic: "t", Partitions: 1, RF: 3}); err != nil {
		t.Fatal(err)
	}
	p := c.topics["t"].parts[0]
	take := func(nodes []int, h LeaderHint) bool {
		m := &metaView{c: c, leaders: map[*Partition]int{p: 2}, epochs: map[*Partition]int32{p: 0}, nodes: nodes}
		return m.takeLeader(p, &h)
	}
	if take([]int{2, 3}, LeaderHint{LeaderID: 1, LeaderEpoch: 1}) {
		t.Error("took broker 1, which the response gave no endpoint for and the client's metadata did not list")
	}
	if !take([]int{2, 3}, LeaderHint{LeaderID: 1, LeaderEpoch: 1, Live: true}) {
		t.Error("did not take broker 1 with its endpoint in the response")
	}
	if !take([]int{1, 2, 3}, LeaderHint{LeaderID: 1, LeaderEpoch: 1}) {
		t.Error("did not take broker 1, a node the client's metadata listed")
	}
	if take([]int{1, 2, 3}, LeaderHint{LeaderID: 1, LeaderEpoch: 0, Live: true}) {
		t.Error("took a hint whose epoch is not newer than the client's")
	}
}
