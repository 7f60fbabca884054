package kafka

import (
	"context"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

// describeConfigs sends one DescribeConfigs request of the given
// version (kgo sends the highest version both sides support, up to the
// client's MaxVersions, and routes a broker resource to that broker).
func describeConfigs(t *testing.T, cl *kgo.Client, version int16, synonyms bool, res ...kmsg.DescribeConfigsRequestResource) []kmsg.DescribeConfigsResponseResource {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req := kmsg.NewPtrDescribeConfigsRequest()
	req.Version, req.IncludeSynonyms, req.Resources = version, synonyms, res
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	return resp.Resources
}

func resource(typ kmsg.ConfigResourceType, name string, configs ...string) kmsg.DescribeConfigsRequestResource {
	r := kmsg.NewDescribeConfigsRequestResource()
	r.ResourceType, r.ResourceName, r.ConfigNames = typ, name, configs
	return r
}

func configsByName(r kmsg.DescribeConfigsResponseResource) map[string]kmsg.DescribeConfigsResponseResourceConfig {
	out := map[string]kmsg.DescribeConfigsResponseResourceConfig{}
	for _, c := range r.Configs {
		out[c.Name] = c
	}
	return out
}

// TestDescribeConfigs: a topic's override is DYNAMIC_TOPIC_CONFIG with
// the broker default as a synonym, what `set` changed is
// STATIC_BROKER_CONFIG, the rest is the preset's DEFAULT_CONFIG (0.11's
// replica.lag.time.max.ms is 10000, 2.8's 30000); broker-wide keys are
// read-only, topic defaults are not; v0 says IsDefault; a named subset,
// an unknown topic, another broker's id and a bad name get Kafka's
// answers.
func TestDescribeConfigs(t *testing.T) {
	b := newWallBackend(t, core.Options{Brokers: 3, Seed: 1, Version: "2.8", Metadata: "zk"},
		core.Set{Configs: map[string]string{"min.insync.replicas": "2"}},
		core.CreateTopic{Topic: "orders", Partitions: 1, RF: 3, Configs: map[string]string{"retention.ms": "60000"}})
	_, addr := startServer(t, b, 3)
	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs(addr, 3)...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()

	rs := describeConfigs(t, cl, 4, true, resource(kmsg.ConfigResourceTypeTopic, "orders"), resource(kmsg.ConfigResourceTypeBroker, "2"))
	if len(rs) != 2 || rs[0].ErrorCode != 0 || rs[1].ErrorCode != 0 {
		t.Fatalf("resources %+v", rs)
	}
	topic, broker := configsByName(rs[0]), configsByName(rs[1])
	if rs[0].ResourceType != kmsg.ConfigResourceTypeTopic {
		topic, broker = broker, topic
	}
	ret := topic["retention.ms"]
	if *ret.Value != "60000" || ret.Source != kmsg.ConfigSourceDynamicTopicConfig || ret.ReadOnly || ret.ConfigType != kmsg.ConfigTypeLong ||
		len(ret.ConfigSynonyms) != 2 || ret.ConfigSynonyms[1].Name != "log.retention.ms" || *ret.ConfigSynonyms[1].Value != "604800000" ||
		ret.ConfigSynonyms[1].Source != kmsg.ConfigSourceDefaultConfig {
		t.Errorf("topic retention.ms: %+v", ret)
	}
	if m := topic["min.insync.replicas"]; *m.Value != "2" || m.Source != kmsg.ConfigSourceStaticBrokerConfig {
		t.Errorf("topic min.insync.replicas: %+v", m)
	}
	if s := topic["segment.bytes"]; *s.Value != "1073741824" || s.Source != kmsg.ConfigSourceDefaultConfig || s.ConfigType != kmsg.ConfigTypeInt {
		t.Errorf("topic segment.bytes: %+v", s)
	}
	if _, ok := topic["log.retention.ms"]; ok {
		t.Error("topic configs carry broker names")
	}
	if l := broker["replica.lag.time.max.ms"]; *l.Value != "30000" || l.Source != kmsg.ConfigSourceDefaultConfig || !l.ReadOnly {
		t.Errorf("broker replica.lag.time.max.ms: %+v", l)
	}
	if l := broker["log.retention.ms"]; *l.Value != "604800000" || l.ReadOnly {
		t.Errorf("broker log.retention.ms: %+v", l)
	}
	if id := broker["broker.id"]; *id.Value != "2" || !id.ReadOnly {
		t.Errorf("broker.id: %+v", id)
	}
	if u := broker["unclean.leader.election.enable"]; *u.Value != "false" || u.ConfigType != kmsg.ConfigTypeBoolean {
		t.Errorf("unclean.leader.election.enable: %+v", u)
	}

	// v0: IsDefault; a named subset (an unknown name is left out); no
	// synonyms unless asked.
	vs := kversion.Stable()
	vs.SetMaxKeyVersion(32, 0)
	cl0, err := kgo.NewClient(kgo.SeedBrokers(addrs(addr, 3)...), kgo.MaxVersions(vs))
	if err != nil {
		t.Fatal(err)
	}
	defer cl0.Close()
	rs = describeConfigs(t, cl0, 0, false, resource(kmsg.ConfigResourceTypeTopic, "orders", "retention.ms", "segment.bytes", "no.such.config"))
	if len(rs[0].Configs) != 2 {
		t.Fatalf("named subset: %+v", rs[0].Configs)
	}
	v0 := configsByName(rs[0])
	if v0["retention.ms"].IsDefault || !v0["segment.bytes"].IsDefault || len(v0["segment.bytes"].ConfigSynonyms) != 0 {
		t.Errorf("v0: %+v", rs[0].Configs)
	}

	rs = describeConfigs(t, cl, 4, false, resource(kmsg.ConfigResourceTypeTopic, "missing"), resource(kmsg.ConfigResourceTypeTopic, "bad/name"),
		resource(kmsg.ConfigResourceTypeBroker, "seven"))
	codes := map[string]int16{}
	for _, r := range rs {
		codes[r.ResourceName] = r.ErrorCode
	}
	if codes["missing"] != 3 || codes["bad/name"] != 17 || codes["seven"] != 42 {
		t.Errorf("error codes %v, want missing 3, bad/name 17, seven 42", codes)
	}

	// A 0.11 cluster: DescribeConfigs v0 only (kgo negotiates it), and
	// 0.11's own default.
	old := newWallBackend(t, core.Options{Brokers: 1, Seed: 1, Version: "0.11", Metadata: "zk"})
	_, oldAddr := startServer(t, old, 1)
	clOld, err := kgo.NewClient(kgo.SeedBrokers(oldAddr))
	if err != nil {
		t.Fatal(err)
	}
	defer clOld.Close()
	rs = describeConfigs(t, clOld, 4, false, resource(kmsg.ConfigResourceTypeBroker, "1", "replica.lag.time.max.ms"))
	if len(rs) != 1 || len(rs[0].Configs) != 1 || *rs[0].Configs[0].Value != "10000" || !rs[0].Configs[0].IsDefault {
		t.Errorf("0.11 broker: %+v", rs)
	}
}
