package core_test

import (
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core"
)

func znodeExists(c *core.Cluster, path string) bool {
	for _, zn := range c.ZNodes() {
		if zn[0] == path {
			return true
		}
	}
	return false
}

// TestDeletionSurvivesControllerFailover: a ZooKeeper-mode deletion that
// waits for an offline broker is taken over by the next controller (it
// reads /admin/delete_topics, TopicDeletionManager.init) and completes
// when the broker returns; meanwhile the topic takes no elections.
func TestDeletionSurvivesControllerFailover(t *testing.T) {
	c, err := core.New(core.Options{Brokers: 4, Seed: 2, Version: "3.9", Metadata: "zk"})
	if err != nil {
		t.Fatal(err)
	}
	apply(t, c, core.Set{Configs: map[string]string{"zookeeper.session.timeout.ms": "6000"}})
	apply(t, c, core.CreateTopic{Topic: "t", Partitions: 2, RF: 3, Assign: [][]int{{1, 2, 3}, {2, 3, 4}}})
	advance(t, c, 1000)
	apply(t, c, core.CrashBroker{Broker: 3})
	advance(t, c, 10_000)
	parts := c.Topic("t").Partitions()
	apply(t, c, core.DeleteTopic{Topic: "t"})
	advance(t, c, 1000)
	if !znodeExists(c, "/admin/delete_topics/t") || c.Topic("t") == nil || !c.Topic("t").Deleting() {
		t.Fatal("the deletion should wait for broker 3")
	}
	if err := c.Apply(core.DeleteTopic{Topic: "t"}); err == nil || !strings.Contains(err.Error(), "already marked") {
		t.Fatalf("second delete: %v", err)
	}
	if c.Controller() != 1 {
		t.Fatalf("controller %d, want 1", c.Controller())
	}
	apply(t, c, core.CrashBroker{Broker: 1}) // the controller
	advance(t, c, 10_000)
	if c.Controller() != 2 {
		t.Fatalf("controller %d after broker 1 died, want 2", c.Controller())
	}
	if !znodeExists(c, "/admin/delete_topics/t") {
		t.Fatal("the new controller dropped the deletion")
	}
	apply(t, c, core.Restart{Broker: 3})
	advance(t, c, 5000)
	// Broker 1 deleted its replica before it died, but the new controller
	// cannot know: replicas on offline brokers start ReplicaDeletionIneligible
	// (ReplicaStateMachine.initializeReplicaState), so it waits for 1 too.
	if !znodeExists(c, "/admin/delete_topics/t") || !znodeExists(c, "/brokers/topics/t") {
		t.Fatal("the deletion completed while broker 1 was down")
	}
	if d, _ := c.Describe(""); !strings.Contains(d, "waiting for broker(s) 1") {
		t.Fatalf("print: %s", d)
	}
	apply(t, c, core.Restart{Broker: 1})
	advance(t, c, 5000)
	if znodeExists(c, "/admin/delete_topics/t") || znodeExists(c, "/brokers/topics/t") || c.Topic("t") != nil {
		t.Fatal("every broker is back, the deletion should have completed")
	}
	for _, b := range c.Brokers() {
		for _, p := range parts {
			if b.Replica(p) != nil {
				t.Fatalf("broker %d still has a replica of the deleted %s", b.ID, p.Name)
			}
		}
	}
	// The name is free: a new topic, a new id.
	apply(t, c, core.CreateTopic{Topic: "t", Partitions: 1, RF: 3})
	if c.Topic("t").Generation() != 1 {
		t.Fatalf("generation %d, want 1", c.Topic("t").Generation())
	}
}
