package core

import (
	"fmt"
	"testing"
)

// TestOffsetsTopicCleanupPolicy: __consumer_offsets is created with
// cleanup.policy=compact (GroupMetadataManager.offsetsTopicConfigs), a
// config of its own that DescribeConfigs shows as the topic's
// (DYNAMIC_TOPIC_CONFIG) and that keeps retention off its log; it was
// skipped by name, and DescribeConfigs showed the default delete.
func TestOffsetsTopicCleanupPolicy(t *testing.T) {
	c, err := New(Options{Brokers: 3, Seed: 1, Version: "3.9"})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.createOffsetsTopic(); err != nil {
		t.Fatal(err)
	}
	es, err := c.TopicConfigs(offsetsTopic)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range es {
		if e.Name == "cleanup.policy" {
			found = true
			if e.Value != "compact" || e.Source != SourceDynamicTopic {
				t.Errorf("cleanup.policy of %s: %q source %v, want compact from the topic", offsetsTopic, e.Value, e.Source)
			}
		}
	}
	if !found {
		t.Errorf("DescribeConfigs of %s has no cleanup.policy", offsetsTopic)
	}
	if c.topics[offsetsTopic].conf.deleteRetention {
		t.Errorf("%s would have its segments deleted by retention", offsetsTopic)
	}
}

// TestCleanupPolicyRetention: retention.ms and retention.bytes apply
// only when cleanup.policy has delete (LogConfig.delete,
// UnifiedLog.deleteOldSegments): "delete" and "compact,delete" yes,
// "compact" no.
func TestCleanupPolicyRetention(t *testing.T) {
	c, err := New(Options{Brokers: 1, Seed: 1, Version: "3.9"})
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range []struct {
		policy string
		want   bool
	}{{"delete", true}, {"compact", false}, {"compact,delete", true}, {"delete,compact", true}} {
		policy, want, name := tc.policy, tc.want, fmt.Sprintf("t%d", i)
		if err := c.createTopic(CreateTopic{Topic: name, Partitions: 1, RF: 1, Configs: map[string]string{"cleanup.policy": policy}}, true); err != nil {
			t.Fatalf("%s: %v", policy, err)
		}
		if got := c.topics[name].conf.deleteRetention; got != want {
			t.Errorf("cleanup.policy=%s: retention applies %v, want %v", policy, got, want)
		}
	}
	if err := c.createTopic(CreateTopic{Topic: "bad", Partitions: 1, RF: 1, Configs: map[string]string{"cleanup.policy": "purge"}}, true); err == nil {
		t.Errorf("cleanup.policy=purge was accepted")
	}
}
