package core

import (
	"maps"
	"slices"
)

// Catalog is everything core accepts, as data: the one source of truth the
// scenario parser, the simulation tester and the JSON and websocket layers
// ask instead of keeping tables of their own. It is JSON-encodable (a
// page can build its forms from it) and a copy: changing it changes
// nothing.
type Catalog struct {
	DefaultVersion string        `json:"defaultVersion"`
	Versions       []VersionSpec `json:"versions"`      // in release order
	MetadataModes  []string      `json:"metadataModes"` // zk, kraft
	Configs        []ConfigSpec  `json:"configs"`       // sorted by name
	Assignors      []string      `json:"assignors"`     // partition.assignment.strategy names
	Partitioners   []string      `json:"partitioners"`  // the producer's partitioner= values
	Limits         Limits        `json:"limits"`
}

// VersionSpec is one version preset: the metadata modes it supports and
// the mechanisms and defaults it switches (preset.go).
type VersionSpec struct {
	Name            string   `json:"name"`
	Metadata        []string `json:"metadata"` // supported modes, zk before kraft
	DefaultMetadata string   `json:"defaultMetadata"`
	// Defaults are the config defaults that differ from ConfigSpec.Default
	// in this version.
	Defaults map[string]string `json:"defaults,omitempty"`
	// Partitioner is what partitioner=default means for keyless records:
	// roundrobin (<=2.3), sticky (2.4-3.2, KIP-480), uniform (3.3+, KIP-794).
	Partitioner string `json:"partitioner"`
	// LeaderEpochs: truncation by leader epoch (KIP-101, 0.11+) rather
	// than to the high watermark.
	LeaderEpochs bool `json:"leaderEpochs"`
	// Idempotence: the producer supports enable.idempotence (0.11+), with
	// at most MaxInFlightIdempotent requests in flight (0.11: 1, 1.0+: 5).
	Idempotence           bool `json:"idempotence"`
	MaxInFlightIdempotent int  `json:"maxInFlightIdempotent,omitempty"`
	// OffsetsInZooKeeper: the 0.8 consumer keeps group offsets in znodes.
	OffsetsInZooKeeper bool `json:"offsetsInZooKeeper"`
}

// Config scopes: what a key configures.
const (
	ScopeBroker   = "broker"
	ScopeTopic    = "topic" // a broker-wide default a topic may override
	ScopeProducer = "producer"
	ScopeConsumer = "consumer"
	ScopeClient   = "client" // producers and consumers
	ScopeSim      = "sim"    // the simulator's own: network and OS
)

// Config value types.
const (
	TypeInt    = "int"    // a whole number in [Min, Max]
	TypeBool   = "bool"   // true or false
	TypeEnum   = "enum"   // one of Values
	TypeList   = "list"   // a comma-separated list of Values
	TypeString = "string" // any text of at most MaxLen bytes
	TypeDouble = "double" // a decimal number in [0, 1] (a ratio)
)

// ConfigSpec is one configuration key Set, topic configs and client
// configs accept, by Kafka's own name.
type ConfigSpec struct {
	Name  string `json:"name"`
	Scope string `json:"scope"` // Scope*
	// Default is the base default; a version may change it
	// (VersionSpec.Defaults).
	Default string   `json:"default"`
	Type    string   `json:"type"` // Type*
	Min     int64    `json:"min"`  // TypeInt
	Max     int64    `json:"max"`  // TypeInt
	Values  []string `json:"values,omitempty"`
	MaxLen  int      `json:"maxLen,omitempty"` // TypeString
	// TopicName is the topic-level name of a broker-wide default
	// (segment.bytes for log.segment.bytes), accepted as well.
	TopicName string `json:"topicName,omitempty"`
}

// Check returns nil if value is valid for the key, else what is wrong
// (the message Apply would give, without the key's name).
func (s ConfigSpec) Check(value string) error {
	return s.valid().check(value)
}

func (s ConfigSpec) valid() valid {
	v := valid{min: s.Min, max: s.Max, values: s.Values, maxLen: s.MaxLen}
	switch s.Type {
	case TypeInt:
		v.kind = valInt
	case TypeBool:
		v.kind = valBool
	case TypeEnum:
		v.kind = valEnum
	case TypeList:
		v.kind = valList
	case TypeDouble:
		v.kind = valRatio
	default:
		v.kind = valString
	}
	return v
}

// Limits are the bounds Apply enforces (the constants of the same names).
type Limits struct {
	Brokers       int   `json:"brokers"`
	Topics        int   `json:"topics"`
	Partitions    int   `json:"partitions"` // over all topics
	Clients       int   `json:"clients"`    // producers + consumers
	Count         int   `json:"count"`      // records of one Produce, messages of one NetDrop
	ValueBytes    int   `json:"valueBytes"`
	WaitMs        int64 `json:"waitMs"` // one Wait or Settle
	PollTimeoutMs int64 `json:"pollTimeoutMs"`
	NetDelayMs    int64 `json:"netDelayMs"`
	ClientName    int   `json:"clientName"` // bytes in a client name
	History       int   `json:"history"`    // records kept in History.Sent and .Consumed
	CommandLog    int   `json:"commandLog"`
	CommandBytes  int   `json:"commandBytes"` // one JSON command
}

// Accepted returns the catalog of what core accepts.
func Accepted() Catalog {
	c := Catalog{
		DefaultVersion: DefaultVersion,
		MetadataModes:  []string{"zk", "kraft"},
		Assignors:      slices.Clone(assignors),
		Partitioners:   slices.Clone(partitioners),
		Limits: Limits{
			Brokers: MaxBrokers, Topics: MaxTopics, Partitions: MaxPartitions, Clients: MaxClients,
			Count: MaxCount, ValueBytes: MaxValueBytes, WaitMs: MaxWait, PollTimeoutMs: MaxPollTimeout,
			NetDelayMs: MaxNetDelay, ClientName: maxClientName, History: MaxHistory,
			CommandLog: MaxCommandLog, CommandBytes: MaxCommandBytes,
		},
	}
	for _, name := range versionOrder {
		v, _ := LookupVersion(name)
		c.Versions = append(c.Versions, v)
	}
	for _, name := range slices.Sorted(maps.Keys(knobs)) {
		s, _ := LookupConfig(name)
		c.Configs = append(c.Configs, s)
	}
	return c
}

// VersionNames lists the version presets in release order.
func VersionNames() []string { return slices.Clone(versionOrder) }

// LookupVersion returns the preset named name ("" is DefaultVersion).
func LookupVersion(name string) (VersionSpec, bool) {
	if name == "" {
		name = DefaultVersion
	}
	p, ok := presets[name]
	if !ok {
		return VersionSpec{}, false
	}
	v := VersionSpec{
		Name: p.name, DefaultMetadata: p.defaultMeta, Partitioner: p.partitioner,
		LeaderEpochs: p.leaderEpochs, Idempotence: p.idempotence, MaxInFlightIdempotent: p.maxInFlightIdem,
		OffsetsInZooKeeper: p.offsetsInZK,
	}
	if p.zk {
		v.Metadata = append(v.Metadata, "zk")
	}
	if p.kraft {
		v.Metadata = append(v.Metadata, "kraft")
	}
	if len(p.defaults) > 0 {
		v.Defaults = maps.Clone(p.defaults)
	}
	return v, true
}

// LookupConfig returns the key named name, by its own name or its
// topic-level name.
func LookupConfig(name string) (ConfigSpec, bool) {
	if k, ok := topicAliases[name]; ok {
		name = k
	}
	kn, ok := knobs[name]
	if !ok {
		return ConfigSpec{}, false
	}
	s := ConfigSpec{Name: name, Scope: kn.scope.String(), Default: kn.def,
		Min: kn.v.min, Max: kn.v.max, Values: slices.Clone(kn.v.values), MaxLen: kn.v.maxLen}
	switch kn.v.kind {
	case valInt:
		s.Type = TypeInt
	case valBool:
		s.Type = TypeBool
	case valEnum:
		s.Type = TypeEnum
	case valList:
		s.Type = TypeList
	case valRatio:
		s.Type = TypeDouble
	default:
		s.Type = TypeString
	}
	for alias, k := range topicAliases {
		if k == name {
			s.TopicName = alias
		}
	}
	return s, true
}

func (s scope) String() string {
	switch s {
	case scopeBroker:
		return ScopeBroker
	case scopeTopic:
		return ScopeTopic
	case scopeProducer:
		return ScopeProducer
	case scopeConsumer:
		return ScopeConsumer
	case scopeClient:
		return ScopeClient
	}
	return ScopeSim
}
