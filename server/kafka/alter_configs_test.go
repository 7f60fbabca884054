package kafka

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// topicConfig is one config of topic as kadm describes it.
func topicConfig(t *testing.T, ctx context.Context, adm *kadm.Client, topic, key string) kadm.Config {
	t.Helper()
	rcs, err := adm.DescribeTopicConfigs(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := rcs.On(topic, nil)
	if err != nil || rc.Err != nil {
		t.Fatalf("describe %s: %v %v", topic, err, rc.Err)
	}
	for _, c := range rc.Configs {
		if c.Key == key {
			return c
		}
	}
	t.Fatalf("%s has no config %s", topic, key)
	return kadm.Config{}
}

// alterErr takes an alter's answer and returns its one resource's error.
func alterErr(t *testing.T) func(rs kadm.AlterConfigsResponses, err error) error {
	return func(rs kadm.AlterConfigsResponses, err error) error {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) != 1 {
			t.Fatalf("responses %+v", rs)
		}
		return rs[0].Err
	}
}

// TestKadmAlterTopicConfigs: kadm's AlterTopicConfigs
// (IncrementalAlterConfigs) sets retention.ms and min.insync.replicas
// of a live topic, which DescribeConfigs then reports as
// DYNAMIC_TOPIC_CONFIG and the core applies (the topic's
// min.insync.replicas in effect); DELETE puts the default back;
// validate_only changes nothing; APPEND on a non-list config, an unknown
// key, a bad value, an unknown topic and a broker resource get Kafka's
// answers; AlterTopicConfigsState (AlterConfigs) replaces the whole set,
// deleting what it does not name. Neither API was served: every admin
// client failed with "broker does not support".
func TestKadmAlterTopicConfigs(t *testing.T) {
	for _, mode := range []string{"kraft", "zk"} {
		t.Run(mode, func(t *testing.T) {
			b := threeBrokers(t, "3.9", mode, core.CreateTopic{Topic: "ac", Partitions: 1, RF: 3})
			_, addr := startServer(t, b, 3)
			adm := kadm.NewClient(versionClient(t, addr, 3, 0, 0))
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			set := []kadm.AlterConfig{{Name: "retention.ms", Value: kadm.StringPtr("60000")}, {Name: "min.insync.replicas", Value: kadm.StringPtr("2")}}
			if err := alterErr(t)(adm.ValidateAlterTopicConfigs(ctx, set, "ac")); err != nil {
				t.Fatalf("validate: %v", err)
			}
			if c := topicConfig(t, ctx, adm, "ac", "retention.ms"); c.Source != kmsg.ConfigSourceDefaultConfig {
				t.Fatalf("validate_only changed retention.ms: %+v", c)
			}
			if err := alterErr(t)(adm.AlterTopicConfigs(ctx, set, "ac")); err != nil {
				t.Fatalf("alter: %v", err)
			}
			if c := topicConfig(t, ctx, adm, "ac", "retention.ms"); *c.Value != "60000" || c.Source != kmsg.ConfigSourceDynamicTopicConfig {
				t.Errorf("retention.ms after SET: %+v", c)
			}
			if got := minISR(t, b, "ac"); got != 2 {
				t.Errorf("the core's min.insync.replicas = %d, want 2", got)
			}
			del := []kadm.AlterConfig{{Op: kadm.DeleteConfig, Name: "retention.ms"}}
			if err := alterErr(t)(adm.AlterTopicConfigs(ctx, del, "ac")); err != nil {
				t.Fatalf("delete: %v", err)
			}
			if c := topicConfig(t, ctx, adm, "ac", "retention.ms"); *c.Value != "604800000" || c.Source != kmsg.ConfigSourceDefaultConfig {
				t.Errorf("retention.ms after DELETE: %+v", c)
			}
			for _, bad := range []struct {
				cfg  kadm.AlterConfig
				want error
			}{
				{kadm.AlterConfig{Op: kadm.AppendConfig, Name: "retention.ms", Value: kadm.StringPtr("1")}, kerr.InvalidConfig},
				{kadm.AlterConfig{Name: "no.such.config", Value: kadm.StringPtr("1")}, kerr.InvalidConfig},
				{kadm.AlterConfig{Name: "log.retention.ms", Value: kadm.StringPtr("1")}, kerr.InvalidConfig},
				{kadm.AlterConfig{Name: "min.insync.replicas", Value: kadm.StringPtr("zero")}, kerr.InvalidConfig},
			} {
				if err := alterErr(t)(adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{bad.cfg}, "ac")); !errors.Is(err, bad.want) {
					t.Errorf("%+v: %v, want %v", bad.cfg, err, bad.want)
				}
			}
			if err := alterErr(t)(adm.AlterTopicConfigs(ctx, set, "nope")); !errors.Is(err, kerr.UnknownTopicOrPartition) {
				t.Errorf("unknown topic: %v", err)
			}
			if err := alterErr(t)(adm.AlterBrokerConfigs(ctx, set[:1], 1)); !errors.Is(err, kerr.InvalidRequest) {
				t.Errorf("broker resource: %v", err)
			}
			state := []kadm.AlterConfig{{Name: "segment.ms", Value: kadm.StringPtr("3600000")}}
			if err := alterErr(t)(adm.AlterTopicConfigsState(ctx, state, "ac")); err != nil {
				t.Fatalf("alter state: %v", err)
			}
			if c := topicConfig(t, ctx, adm, "ac", "min.insync.replicas"); c.Source == kmsg.ConfigSourceDynamicTopicConfig {
				t.Errorf("AlterConfigs kept min.insync.replicas: %+v", c)
			}
			if c := topicConfig(t, ctx, adm, "ac", "segment.ms"); *c.Value != "3600000" || c.Source != kmsg.ConfigSourceDynamicTopicConfig {
				t.Errorf("segment.ms after AlterConfigs: %+v", c)
			}
		})
	}
}

// minISR is the core's min.insync.replicas of topic.
func minISR(t *testing.T, b *wallBackend, topic string) int {
	t.Helper()
	var n int
	b.Do(context.Background(), func(c *core.Cluster) { n = c.MinInSyncReplicas(topic) })
	return n
}

// TestAlterConfigsDuplicateResource: a resource named twice in one
// request is INVALID_REQUEST for both, and a null value outside DELETE
// is INVALID_REQUEST (ConfigAdminManager.preprocess).
func TestAlterConfigsDuplicateResource(t *testing.T) {
	b := threeBrokers(t, "3.9", "kraft", core.CreateTopic{Topic: "ac", Partitions: 1, RF: 3})
	_, addr := startServer(t, b, 3)
	cl := versionClient(t, addr, 3, 0, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	for _, v := range []*string{kadm.StringPtr("1000"), kadm.StringPtr("2000")} {
		r := kmsg.NewIncrementalAlterConfigsRequestResource()
		r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeTopic, "ac"
		c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		c.Name, c.Value = "retention.ms", v
		r.Configs = append(r.Configs, c)
		req.Resources = append(req.Resources, r)
	}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Resources) != 2 || resp.Resources[0].ErrorCode != 42 || resp.Resources[1].ErrorCode != 42 {
		t.Errorf("duplicate resources: %+v", resp.Resources)
	}
	req.Resources = req.Resources[:1]
	req.Resources[0].Configs[0].Value = nil
	resp, err = req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Resources) != 1 || resp.Resources[0].ErrorCode != 42 {
		t.Errorf("null SET: %+v", resp.Resources)
	}
}
