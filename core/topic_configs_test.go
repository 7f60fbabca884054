package core

import (
	"strings"
	"testing"
)

// TestAlterTopicConfigsRecords: KRaft writes a ConfigRecord per key whose
// value changed (null for a deleted one) and nothing for a change that
// changes nothing; an override given at creation by its broker name is
// deleted by its topic name; the configs are checked before the topic
// (ConfigurationControlManager.validateAlterConfig), so an unknown key on
// an unknown topic is INVALID_CONFIG.
func TestAlterTopicConfigsRecords(t *testing.T) {
	c, err := New(Options{Brokers: 3, Seed: 1, Version: "3.9", Metadata: "kraft"})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Apply(CreateTopic{Topic: "t", Partitions: 1, RF: 3, Configs: map[string]string{"log.retention.ms": "1000"}}); err != nil {
		t.Fatal(err)
	}
	configRecords := func() []string {
		var out []string
		for _, r := range c.MetadataLog() {
			if strings.Contains(r, "ConfigRecord") {
				out = append(out, r[strings.Index(r, "ConfigRecord"):])
			}
		}
		return out
	}
	steps := []struct {
		cmd  AlterTopicConfigs
		want []string
	}{
		{AlterTopicConfigs{Topic: "t", Set: map[string]string{"min.insync.replicas": "2"}, Delete: []string{"retention.ms"}}, []string{
			"ConfigRecord resourceType=TOPIC resourceName=t name=log.retention.ms value=null",
			"ConfigRecord resourceType=TOPIC resourceName=t name=min.insync.replicas value=2"}},
		{AlterTopicConfigs{Topic: "t", Set: map[string]string{"min.insync.replicas": "2"}, Delete: []string{"segment.bytes"}}, nil},
	}
	for _, s := range steps {
		before := len(configRecords())
		if err := c.Apply(s.cmd); err != nil {
			t.Fatal(err)
		}
		got := configRecords()[before:]
		if strings.Join(got, "\n") != strings.Join(s.want, "\n") {
			t.Errorf("%+v: records %q, want %q", s.cmd, got, s.want)
		}
	}
	if got := c.MinInSyncReplicas("t"); got != 2 {
		t.Errorf("min.insync.replicas %d, want 2", got)
	}
	for _, tc := range []struct {
		cmd  AlterTopicConfigs
		want string
	}{
		{AlterTopicConfigs{Topic: "nope", Set: map[string]string{"no.such": "1"}}, "INVALID_CONFIG: Unknown topic config name: no.such"},
		{AlterTopicConfigs{Topic: "nope", Set: map[string]string{"retention.ms": "1"}}, "UNKNOWN_TOPIC_OR_PARTITION"},
		{AlterTopicConfigs{Topic: "t", Set: map[string]string{"max.message.bytes": "2000000"}}, "INVALID_CONFIG: kafkasim does not simulate"},
		{AlterTopicConfigs{Topic: "t", Set: map[string]string{"retention.ms": "soon"}}, "INVALID_CONFIG: Invalid value soon for configuration retention.ms"},
		{AlterTopicConfigs{Topic: "t", Set: map[string]string{"retention.ms": "1"}, Delete: []string{"retention.ms"}}, "INVALID_REQUEST"},
		{AlterTopicConfigs{Topic: "t"}, "nothing to change"},
	} {
		if err := c.Apply(tc.cmd); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.cmd, err, tc.want)
		}
	}
}

// TestAlterTopicConfigsNoChange: in ZooKeeper mode a change that changes
// nothing (a DELETE of a key the topic does not override) writes no
// znode and reports nothing, as Kafka writes no config for it.
func TestAlterTopicConfigsNoChange(t *testing.T) {
	c, err := New(Options{Brokers: 3, Seed: 1, Version: "3.9", Metadata: "zk"})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Apply(CreateTopic{Topic: "t", Partitions: 1, RF: 3}); err != nil {
		t.Fatal(err)
	}
	c.Events()
	writes := c.ZKWrites()
	if err := c.Apply(AlterTopicConfigs{Topic: "t", Delete: []string{"retention.ms"}}); err != nil {
		t.Fatal(err)
	}
	if w := c.ZKWrites(); w != writes {
		t.Errorf("%d znode writes for no change", w-writes)
	}
	if err := c.Apply(AlterTopicConfigs{Topic: "t", Set: map[string]string{"retention.ms": "1000"}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.ZNode("/config/topics/t"); got != `{"version":1,"config":{"retention.ms":"1000"}}` {
		t.Errorf("/config/topics/t = %s", got)
	}
}
