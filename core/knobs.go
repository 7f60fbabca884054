package core

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// scope says which part of the model a knob configures.
type scope uint8

const (
	scopeBroker scope = iota + 1
	scopeTopic        // broker-wide default, overridable per topic
	scopeProducer
	scopeConsumer
	scopeClient // both producers and consumers
	scopeSim    // the simulator's own (network, OS)
)

// knob is one configuration key: Kafka's name, its base default (a preset
// may override it) and the values it accepts.
type knob struct {
	scope scope
	def   string
	v     valid
}

// valueKind is the type of a config value.
type valueKind uint8

const (
	valInt    valueKind = iota + 1 // a whole number in [min, max]
	valBool                        // true or false
	valEnum                        // one of values
	valList                        // a comma-separated list of values
	valString                      // any text up to maxLen bytes
	valRatio                       // a decimal in [0, 1] (ConfigDef DOUBLE, between(0, 1))
)

// valid describes the values a knob accepts.
type valid struct {
	kind     valueKind
	min, max int64
	values   []string
	maxLen   int
}

const never = "9223372036854775807" // Long.MAX_VALUE: Kafka's "never" for flush settings

func intIn(lo, hi int64) valid { return valid{kind: valInt, min: lo, max: hi} }

func oneOf(vals ...string) valid { return valid{kind: valEnum, values: vals} }

func listOf(vals ...string) valid { return valid{kind: valList, values: vals} }

// check returns nil if s is a valid value, else what is wrong.
func (v valid) check(s string) error {
	switch v.kind {
	case valInt:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return fmt.Errorf("want an integer, got %q", s)
		}
		if n < v.min || n > v.max {
			return fmt.Errorf("%d out of range [%d, %d]", n, v.min, v.max)
		}
	case valBool, valEnum:
		if !slices.Contains(v.values, s) {
			return fmt.Errorf("got %q, want one of %s", s, strings.Join(v.values, ", "))
		}
	case valList:
		for _, a := range strings.Split(s, ",") {
			if !slices.Contains(v.values, a) {
				return fmt.Errorf("got %q, want one of %s", a, strings.Join(v.values, ", "))
			}
		}
	case valRatio:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(f) {
			return fmt.Errorf("want a number, got %q", s)
		}
		if f < 0 || f > 1 {
			return fmt.Errorf("%s out of range [0, 1]", s)
		}
	case valString:
		if len(s) > v.maxLen {
			return fmt.Errorf("longer than %d bytes", v.maxLen)
		}
	}
	return nil
}

// Assignors are the partition.assignment.strategy names the consumer
// accepts; partitioners the producer's partitioner names: "default" is
// the version's own (VersionSpec.Partitioner), the others force one.
var (
	assignors    = []string{"range", "roundrobin", "sticky", "cooperative-sticky"}
	partitioners = []string{"default", "roundrobin", "sticky", "uniform"}
)

var (
	isBool   = valid{kind: valBool, values: []string{"true", "false"}}
	ms       = intIn(0, math.MaxInt64)
	posInt   = intIn(1, math.MaxInt32)
	bytesCfg = intIn(1, math.MaxInt32)
	anyLong  = intIn(-1, math.MaxInt64)
	text255  = valid{kind: valString, maxLen: 255}
	day7     = "604800000"
)

// knobs is every key `set`, topic configs and client configs accept.
var knobs = map[string]knob{
	// brokers and topics
	"min.insync.replicas":            {scopeTopic, "1", posInt},
	"unclean.leader.election.enable": {scopeTopic, "false", isBool},
	"log.segment.bytes":              {scopeTopic, "1073741824", intIn(14, math.MaxInt32)},
	"log.index.interval.bytes":       {scopeTopic, "4096", intIn(0, math.MaxInt32)},
	"log.roll.ms":                    {scopeTopic, day7, intIn(1, math.MaxInt64)},
	"log.retention.ms":               {scopeTopic, day7, anyLong},
	"log.retention.bytes":            {scopeTopic, "-1", anyLong},
	"log.flush.interval.messages":    {scopeTopic, never, intIn(1, math.MaxInt64)},
	"log.flush.interval.ms":          {scopeTopic, never, ms},
	"log.message.timestamp.type":     {scopeTopic, "CreateTime", oneOf("CreateTime", "LogAppendTime")},
	"log.cleanup.policy":             {scopeTopic, "delete", listOf("delete", "compact")},
	// log compaction (LogCleaner, CleanerConfig@3.9, LogConfig@3.9)
	"log.cleaner.min.cleanable.ratio":               {scopeTopic, "0.5", valid{kind: valRatio}},
	"log.cleaner.delete.retention.ms":               {scopeTopic, "86400000", ms},
	"log.cleaner.min.compaction.lag.ms":             {scopeTopic, "0", ms},
	"log.cleaner.max.compaction.lag.ms":             {scopeTopic, never, intIn(1, math.MaxInt64)},
	"log.cleaner.enable":                            {scopeBroker, "true", isBool},
	"log.cleaner.backoff.ms":                        {scopeBroker, "15000", intIn(1, math.MaxInt32)},
	"replica.lag.time.max.ms":                       {scopeBroker, "30000", intIn(1, math.MaxInt32)},
	"replica.lag.max.messages":                      {scopeBroker, "0", intIn(0, math.MaxInt32)},
	"replica.fetch.wait.max.ms":                     {scopeBroker, "500", intIn(0, math.MaxInt32)},
	"replica.fetch.max.bytes":                       {scopeBroker, "1048576", bytesCfg},
	"replica.high.watermark.checkpoint.interval.ms": {scopeBroker, "5000", intIn(1, math.MaxInt32)},
	"log.retention.check.interval.ms":               {scopeBroker, "300000", intIn(1, math.MaxInt32)},
	"log.initial.task.delay.ms":                     {scopeBroker, "30000", intIn(0, math.MaxInt32)},
	"auto.leader.rebalance.enable":                  {scopeBroker, "true", isBool},
	"leader.imbalance.check.interval.seconds":       {scopeBroker, "300", intIn(1, math.MaxInt32)},
	"unclean.leader.election.interval.ms":           {scopeBroker, "300000", intIn(1, math.MaxInt32)},
	"leader.imbalance.per.broker.percentage":        {scopeBroker, "10", intIn(0, 100)},
	"zookeeper.session.timeout.ms":                  {scopeBroker, "18000", intIn(1, math.MaxInt32)},
	"broker.session.timeout.ms":                     {scopeBroker, "9000", intIn(1, math.MaxInt32)},
	"broker.heartbeat.interval.ms":                  {scopeBroker, "2000", intIn(1, math.MaxInt32)},
	"offsets.topic.num.partitions":                  {scopeBroker, "50", intIn(1, 1000)},
	"offsets.topic.replication.factor":              {scopeBroker, "3", intIn(1, 64)},
	"offsets.topic.segment.bytes":                   {scopeBroker, "104857600", intIn(14, math.MaxInt32)},
	"offsets.commit.timeout.ms":                     {scopeBroker, "5000", intIn(1, math.MaxInt32)},
	"offsets.retention.minutes":                     {scopeBroker, "10080", intIn(1, math.MaxInt32)},
	"offset.metadata.max.bytes":                     {scopeBroker, "4096", intIn(0, math.MaxInt32)},
	"offsets.retention.check.interval.ms":           {scopeBroker, "600000", intIn(1, math.MaxInt32)},
	"group.initial.rebalance.delay.ms":              {scopeBroker, "3000", intIn(0, math.MaxInt32)},
	"group.min.session.timeout.ms":                  {scopeBroker, "6000", intIn(0, math.MaxInt32)},
	"group.max.session.timeout.ms":                  {scopeBroker, "1800000", intIn(0, math.MaxInt32)},
	"num.partitions":                                {scopeBroker, "1", intIn(1, 10000)},
	"default.replication.factor":                    {scopeBroker, "1", intIn(1, 64)},
	"auto.create.topics.enable":                     {scopeBroker, "true", isBool},
	"delete.topic.enable":                           {scopeBroker, "true", isBool}, // false before 1.0 (KAFKA-5384)
	// Read by the Kafka listener (server/kafka), not by the core: the
	// fetch sessions real clients open (KIP-227, 1.1+; ServerConfigs).
	"max.incremental.fetch.session.cache.slots": {scopeBroker, "1000", intIn(0, math.MaxInt32)},
	// clients
	"request.timeout.ms":                    {scopeClient, "30000", intIn(1, math.MaxInt32)},
	"retry.backoff.ms":                      {scopeClient, "100", intIn(0, math.MaxInt32)},
	"retry.backoff.max.ms":                  {scopeProducer, "1000", intIn(0, math.MaxInt32)}, // KIP-580 (3.7+); the producer's batch retries only
	"metadata.max.age.ms":                   {scopeClient, "300000", intIn(0, math.MaxInt32)},
	"acks":                                  {scopeProducer, "all", oneOf("0", "1", "all", "-1")},
	"retries":                               {scopeProducer, "2147483647", intIn(0, math.MaxInt32)},
	"max.in.flight.requests.per.connection": {scopeProducer, "5", posInt},
	"enable.idempotence":                    {scopeProducer, "true", isBool},
	"linger.ms":                             {scopeProducer, "0", intIn(0, math.MaxInt32)},
	"batch.size":                            {scopeProducer, "16384", intIn(0, math.MaxInt32)},
	"delivery.timeout.ms":                   {scopeProducer, "120000", intIn(0, math.MaxInt32)},
	"max.block.ms":                          {scopeProducer, "60000", intIn(0, math.MaxInt32)}, // 0.8.2: metadata.fetch.timeout.ms, the same 60 s
	"partitioner":                           {scopeProducer, "default", oneOf(partitioners...)},
	"partition.assignment.strategy":         {scopeConsumer, "range", listOf(assignors...)},
	"enable.auto.commit":                    {scopeConsumer, "true", isBool},
	"auto.commit.interval.ms":               {scopeConsumer, "5000", intIn(0, math.MaxInt32)},
	"auto.offset.reset":                     {scopeConsumer, "latest", oneOf("earliest", "latest", "none")},
	"session.timeout.ms":                    {scopeConsumer, "45000", intIn(1, math.MaxInt32)},
	"heartbeat.interval.ms":                 {scopeConsumer, "3000", intIn(1, math.MaxInt32)},
	"max.poll.interval.ms":                  {scopeConsumer, "300000", intIn(1, math.MaxInt32)},
	"max.poll.records":                      {scopeConsumer, "500", posInt},
	"default.api.timeout.ms":                {scopeConsumer, "60000", intIn(1, MaxPollTimeout)}, // KIP-266 (2.0+): commitSync()'s timer
	"fetch.max.wait.ms":                     {scopeConsumer, "500", intIn(0, math.MaxInt32)},
	"fetch.min.bytes":                       {scopeConsumer, "1", intIn(0, math.MaxInt32)},
	"max.partition.fetch.bytes":             {scopeConsumer, "1048576", bytesCfg},
	"group.instance.id":                     {scopeConsumer, "", text255},
	"poll":                                  {scopeConsumer, "auto", oneOf("auto", "manual")},
	// the simulator's own
	"net.latency.ms": {scopeSim, "2", intIn(1, 3600000)}, // >= 1: every round trip takes virtual time
	// net.client.latency.ms is a real client's links' one-way latency:
	// -1 is net.latency.ms's; 0 leaves the real link's own (a TCP
	// connection's) as the only latency. A real client sends its next
	// request only after it read an answer over that link, so no
	// round trip can repeat within one virtual instant.
	"net.client.latency.ms":    {scopeSim, "-1", intIn(-1, 3600000)},
	"net.jitter.ms":            {scopeSim, "0", intIn(0, 3600000)},
	"os.dirty.expire.ms":       {scopeSim, "30000", intIn(0, math.MaxInt32)},
	"os.writeback.interval.ms": {scopeSim, "5000", intIn(1, math.MaxInt32)},
}

// topicAliases maps topic-level config names to their broker-wide defaults.
var topicAliases = map[string]string{
	"segment.bytes":             "log.segment.bytes",
	"index.interval.bytes":      "log.index.interval.bytes",
	"segment.ms":                "log.roll.ms",
	"retention.ms":              "log.retention.ms",
	"retention.bytes":           "log.retention.bytes",
	"flush.messages":            "log.flush.interval.messages",
	"flush.ms":                  "log.flush.interval.ms",
	"message.timestamp.type":    "log.message.timestamp.type",
	"cleanup.policy":            "log.cleanup.policy",
	"min.cleanable.dirty.ratio": "log.cleaner.min.cleanable.ratio",
	"delete.retention.ms":       "log.cleaner.delete.retention.ms",
	"min.compaction.lag.ms":     "log.cleaner.min.compaction.lag.ms",
	"max.compaction.lag.ms":     "log.cleaner.max.compaction.lag.ms",
}

// canonical resolves aliases and validates key and value for the scopes allowed.
func canonical(key, value string, allowed ...scope) (string, error) {
	if k, ok := topicAliases[key]; ok {
		key = k
	}
	kn, ok := knobs[key]
	if !ok {
		return "", fmt.Errorf("unknown config %q", key)
	}
	if len(allowed) > 0 && !scopeIn(kn.scope, allowed) {
		return "", fmt.Errorf("config %q cannot be set here", key)
	}
	if err := kn.v.check(value); err != nil {
		return "", fmt.Errorf("config %s: %v", key, err)
	}
	return key, nil
}

func scopeIn(s scope, allowed []scope) bool {
	return slices.ContainsFunc(allowed, func(a scope) bool {
		return s == a || (a == scopeProducer || a == scopeConsumer) && s == scopeClient
	})
}

// settings is a resolved set of config values: defaults, then the preset,
// then `set`, then per-entity overrides. Values are always valid.
type settings map[string]string

func baseSettings(p *preset) settings {
	s := settings{}
	for k, kn := range knobs {
		s[k] = kn.def
	}
	for k, v := range p.defaults {
		s[k] = v
	}
	return s
}

// with returns a copy of s with validated overrides applied in sorted order.
func (s settings) with(over map[string]string, allowed ...scope) (settings, error) {
	out := maps.Clone(s)
	for _, k := range slices.Sorted(maps.Keys(over)) {
		ck, err := canonical(k, over[k], allowed...)
		if err != nil {
			return nil, err
		}
		out[ck] = over[k]
	}
	return out, nil
}

func (s settings) int(k string) int64 {
	v, _ := strconv.ParseInt(s[k], 10, 64)
	return v
}

func (s settings) bool(k string) bool { return s[k] == "true" }

func (s settings) float(k string) float64 {
	v, _ := strconv.ParseFloat(s[k], 64)
	return v
}
