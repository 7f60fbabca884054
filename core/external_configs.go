package core

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
)

// Config sources, by the names of Kafka's DescribeConfigsResponse
// ConfigSource. A `set` stands for the brokers' server.properties, so
// what it changed is STATIC_BROKER_CONFIG; a topic's own override is
// DYNAMIC_TOPIC_CONFIG; everything else is the version's
// DEFAULT_CONFIG.
const (
	SourceDynamicTopic = "DYNAMIC_TOPIC_CONFIG"
	SourceStaticBroker = "STATIC_BROKER_CONFIG"
	SourceDefault      = "DEFAULT_CONFIG"
)

// Kafka's ConfigDef types, as DescribeConfigs v3+ reports them.
const (
	ConfigTypeBoolean = "BOOLEAN"
	ConfigTypeString  = "STRING"
	ConfigTypeInt     = "INT"
	ConfigTypeLong    = "LONG"
	ConfigTypeList    = "LIST"
	ConfigTypeDouble  = "DOUBLE"
)

// ConfigEntry is one config of a topic or broker as DescribeConfigs
// shows it: its value in effect, where that value comes from, whether
// it can be changed without a restart (ReadOnly: not a dynamic config in
// Kafka), its type, and its synonyms in precedence order (the entry's
// own source first, DEFAULT_CONFIG last).
type ConfigEntry struct {
	Name     string          `json:"name"`
	Value    string          `json:"value"`
	Source   string          `json:"source"`
	ReadOnly bool            `json:"readOnly"`
	Type     string          `json:"type"`
	Synonyms []ConfigSynonym `json:"synonyms"`
}

// ConfigSynonym is one place a config's value may come from: a topic
// override of retention.ms, the brokers' log.retention.ms, its default.
type ConfigSynonym struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Source string `json:"source"`
}

// TopicConfigs describes every config of topic the simulated brokers
// model, by topic-level names (retention.ms, not log.retention.ms),
// sorted by name. Topic configs are never read-only.
func (c *Cluster) TopicConfigs(topic string) ([]ConfigEntry, error) {
	t := c.topics[topic]
	if t == nil {
		return nil, fmt.Errorf("UNKNOWN_TOPIC_OR_PARTITION: no topic %q", topic)
	}
	own := map[string]string{}
	for k, v := range t.overrides {
		if ck, err := canonical(k, v); err == nil {
			own[ck] = v
		}
	}
	var out []ConfigEntry
	for _, k := range slices.Sorted(maps.Keys(knobs)) {
		if knobs[k].scope != scopeTopic {
			continue
		}
		name := topicName(k)
		e := c.brokerEntry(k)
		e.Name, e.ReadOnly = name, false
		if v, ok := own[k]; ok {
			e.Value, e.Source = v, SourceDynamicTopic
			e.Synonyms = append([]ConfigSynonym{{Name: name, Value: v, Source: SourceDynamicTopic}}, e.Synonyms...)
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b ConfigEntry) int { return cmp.Compare(a.Name, b.Name) })
	return out, nil
}

// BrokerConfigs describes the configs of broker id the simulation
// models, by broker names, sorted by name: broker.id, the broker-wide
// ones (read-only: Kafka needs a restart to change them) and the
// defaults of topic configs (log.retention.ms, ...: dynamic in Kafka).
func (c *Cluster) BrokerConfigs(id int) ([]ConfigEntry, error) {
	if c.Broker(id) == nil {
		return nil, fmt.Errorf("no broker %d", id)
	}
	id32 := strconv.Itoa(id)
	out := []ConfigEntry{{Name: "broker.id", Value: id32, Source: SourceStaticBroker, ReadOnly: true, Type: ConfigTypeInt,
		Synonyms: []ConfigSynonym{{Name: "broker.id", Value: id32, Source: SourceStaticBroker}}}}
	for _, k := range slices.Sorted(maps.Keys(knobs)) {
		if s := knobs[k].scope; s == scopeBroker || s == scopeTopic {
			out = append(out, c.brokerEntry(k))
		}
	}
	slices.SortFunc(out, func(a, b ConfigEntry) int { return cmp.Compare(a.Name, b.Name) })
	return out, nil
}

// brokerEntry is broker config k: the value `set` gave it (static), else
// the version's default.
func (c *Cluster) brokerEntry(k string) ConfigEntry {
	kn := knobs[k]
	def := kn.def
	if v, ok := c.preset.defaults[k]; ok {
		def = v
	}
	e := ConfigEntry{Name: k, Value: def, Source: SourceDefault, ReadOnly: kn.scope != scopeTopic, Type: kafkaType(kn.v)}
	if v, ok := c.userSet[k]; ok {
		e.Value, e.Source = v, SourceStaticBroker
		e.Synonyms = append(e.Synonyms, ConfigSynonym{Name: k, Value: v, Source: SourceStaticBroker})
	}
	e.Synonyms = append(e.Synonyms, ConfigSynonym{Name: k, Value: def, Source: SourceDefault})
	return e
}

// topicName is the topic-level name of broker default k.
func topicName(k string) string {
	for alias, b := range topicAliases {
		if b == k {
			return alias
		}
	}
	return k
}

// kafkaType is the ConfigDef type Kafka declares for a value of this
// kind (a range beyond int32 is a LONG).
func kafkaType(v valid) string {
	switch v.kind {
	case valBool:
		return ConfigTypeBoolean
	case valList:
		return ConfigTypeList
	case valRatio:
		return ConfigTypeDouble
	case valInt:
		if v.max > math.MaxInt32 || v.min < math.MinInt32 {
			return ConfigTypeLong
		}
		return ConfigTypeInt
	}
	return ConfigTypeString
}
