package core

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// unmodelledTopicConfigs are Kafka's other topic configs (TopicConfig):
// Kafka takes them, kafkasim does not simulate them, so it refuses them
// rather than pretend.
var unmodelledTopicConfigs = []string{
	"compression.type", "file.delete.delay.ms",
	"follower.replication.throttled.replicas", "leader.replication.throttled.replicas",
	"local.retention.bytes", "local.retention.ms", "max.message.bytes",
	"message.downconversion.enable", "message.format.version", "message.timestamp.after.max.ms",
	"message.timestamp.before.max.ms", "message.timestamp.difference.max.ms",
	"preallocate", "remote.storage.enable", "segment.index.bytes",
	"segment.jitter.ms",
}

// topicConfigKey resolves a topic-level config name to the knob it sets,
// or says why it cannot be altered: Kafka's LogConfig.validateNames
// refuses a name it does not know ("Unknown topic config name"), and a
// broker-level name (log.retention.ms) is not a topic config.
func topicConfigKey(name string) (string, error) {
	k := name
	if b, ok := topicAliases[name]; ok {
		k = b
	} else if topicName(name) != name {
		return "", fmt.Errorf("INVALID_CONFIG: Unknown topic config name: %s", name)
	}
	if kn, ok := knobs[k]; ok && kn.scope == scopeTopic {
		return k, nil
	}
	if slices.Contains(unmodelledTopicConfigs, name) {
		return "", fmt.Errorf("INVALID_CONFIG: kafkasim does not simulate topic config %s", name)
	}
	return "", fmt.Errorf("INVALID_CONFIG: Unknown topic config name: %s", name)
}

// checkAlterTopicConfigs is the controller's validation, in Kafka's order
// (ConfigurationControlManager.validateAlterConfig: the configs, then the
// topic's existence): it returns the topic and its overrides after x.
func (c *Cluster) checkAlterTopicConfigs(x AlterTopicConfigs) (*Topic, map[string]string, error) {
	if len(x.Set) == 0 && len(x.Delete) == 0 {
		return nil, nil, fmt.Errorf("topic config %s: nothing to change", x.Topic)
	}
	for _, k := range slices.Sorted(maps.Keys(x.Set)) {
		ck, err := topicConfigKey(k)
		if err != nil {
			return nil, nil, err
		}
		if slices.Contains(x.Delete, k) {
			return nil, nil, fmt.Errorf("INVALID_REQUEST: Error due to duplicate config keys")
		}
		if err := knobs[ck].v.check(x.Set[k]); err != nil {
			return nil, nil, fmt.Errorf("INVALID_CONFIG: Invalid value %s for configuration %s: %v", x.Set[k], k, err)
		}
	}
	t := c.topics[x.Topic]
	if t == nil || t.deleted {
		return nil, nil, fmt.Errorf("UNKNOWN_TOPIC_OR_PARTITION: The topic '%s' does not exist.", x.Topic)
	}
	over := maps.Clone(t.overrides)
	if over == nil {
		over = map[string]string{}
	}
	// A DELETE of a key the topic does not override, or that Kafka
	// does not know, writes nothing and succeeds: the validator sees
	// the configs without it.
	for _, k := range x.Delete {
		dropOverride(over, k)
	}
	for k, v := range x.Set {
		dropOverride(over, k)
		over[k] = v
	}
	return t, over, nil
}

// dropOverride removes every override of the knob name sets, by its
// topic name or its broker alias (a topic create may have used either).
func dropOverride(over map[string]string, name string) {
	knob := func(k string) string {
		if b, ok := topicAliases[k]; ok {
			return b
		}
		return k
	}
	for k := range over {
		if knob(k) == knob(name) {
			delete(over, k)
		}
	}
}

// ValidateAlterTopicConfigs answers whether x would be applied, with the
// error alterTopicConfigs would give, and changes nothing: validate_only
// (Kafka runs the same validation and drops the records).
func (c *Cluster) ValidateAlterTopicConfigs(x AlterTopicConfigs) error {
	_, _, err := c.checkAlterTopicConfigs(x)
	return err
}

// alterTopicConfigs applies x: the topic's overrides and typed config
// change, the controller records it, and, when unclean leader election
// is turned on, the ZooKeeper controller elects a leader for each of the
// topic's offline partitions at once (KafkaController
// .processTopicUncleanLeaderElectionEnable, fed by TopicConfigHandler).
// The KRaft controller elects them at its next unclean election check
// (controller_unclean_check.go; 3.9+, KAFKA-12670: 2.8's did no unclean
// elections at all, preset kraftUnclean).
func (c *Cluster) alterTopicConfigs(x AlterTopicConfigs) error {
	t, over, err := c.checkAlterTopicConfigs(x)
	if err != nil {
		return err
	}
	s, err := c.conf.with(over)
	if err != nil {
		return fmt.Errorf("INVALID_CONFIG: %v", err)
	}
	old := t.overrides
	if maps.Equal(old, over) || len(old) == 0 && len(over) == 0 {
		// Nothing changes (a DELETE of a key the topic does not
		// override, a SET of the value it has): Kafka writes no
		// ConfigRecord (incrementalAlterConfigResource compares the
		// values).
		return nil
	}
	wasUnclean := t.conf.unclean
	t.overrides = over
	t.conf = newTopicConf(s, c.preset)
	c.updateTopicLogs(t)
	c.md.topicConfigChanged(t, old)
	c.emit(Event{Type: EvTopicConfig, Topic: t.Name, Detail: fmt.Sprintf("%s configs now %s", t.Name, formatOverrides(over))})
	if !wasUnclean && t.conf.unclean && !t.gone() && c.md.controllerUp() && !c.md.kraft {
		var changed []*Partition
		for _, p := range t.parts {
			if p.state.leader == -1 && c.md.elect(p, "unclean.leader.election.enable set on the topic") {
				changed = append(changed, p)
			}
		}
		c.md.propagate(changed, nil)
	}
	return nil
}

// updateTopicLogs gives every replica's log of t the topic's log config:
// each broker's TopicConfigHandler calls LogManager.updateTopicConfig,
// which updates every log of the topic it has (UnifiedLog.updateConfig),
// so a live topic's new retention.ms or segment.bytes applies to the logs
// it already has, not only to new ones. A broker that is down gets it as
// it starts (it reads the topic's configs then), so every replica is
// updated now.
func (c *Cluster) updateTopicLogs(t *Topic) {
	for _, p := range t.parts {
		for _, b := range c.brokers {
			if r := b.replicas[p]; r != nil {
				r.log.SetConfig(t.conf.log)
			}
		}
	}
}

// formatOverrides is a topic's overrides as KEY=VALUE,... sorted, or "defaults".
func formatOverrides(over map[string]string) string {
	if len(over) == 0 {
		return "the defaults"
	}
	var w []string
	for _, k := range slices.Sorted(maps.Keys(over)) {
		w = append(w, k+"="+over[k])
	}
	return strings.Join(w, ",")
}

// topicConfigChanged is the controller's record of a topic's new
// overrides: KRaft writes a ConfigRecord per key whose value changed (a
// null value for a removed key); ZooKeeper mode writes the topic's whole
// config to /config/topics/NAME, which the brokers' TopicConfigHandler
// applies (the change-notification znode that tells them is not modelled).
func (m *metadata) topicConfigChanged(t *Topic, old map[string]string) {
	if m.kraft {
		keys := slices.Sorted(maps.Keys(maps.Collect(func(yield func(string, bool) bool) {
			for k := range old {
				yield(k, true)
			}
			for k := range t.overrides {
				yield(k, true)
			}
		})))
		for _, k := range keys {
			v, ok := t.overrides[k]
			if ov, was := old[k]; was == ok && ov == v {
				continue
			}
			val := "null"
			if ok {
				val = v
			}
			m.log(fmt.Sprintf("ConfigRecord resourceType=TOPIC resourceName=%s name=%s value=%s", t.Name, k, val))
		}
		return
	}
	var b strings.Builder
	b.WriteString(`{"version":1,"config":{`)
	for i, k := range slices.Sorted(maps.Keys(t.overrides)) {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%q", k, t.overrides[k])
	}
	b.WriteString("}}")
	m.zk.set("/config/topics/"+t.Name, b.String())
}
