package kafka

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestSaramaValidateOnly: sarama's ClusterAdmin.CreateTopic with
// validateOnly gets the errors a creation would (Kafka runs every check
// and drops the records: ReplicationControlManager.createTopics), and
// creates nothing. It was answered success for any free name, so a
// replication factor of 5 on 3 brokers or 0 partitions "validated".
func TestSaramaValidateOnly(t *testing.T) {
	b, addr := served(t, "3.9")
	cfg := saramaConfig()
	cfg.Version = sarama.V2_8_0_0
	adm, err := sarama.NewClusterAdmin(addrs(addr, 3), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	for _, tc := range []struct {
		name  string
		parts int32
		rf    int16
		want  error
	}{
		{"rf5", 3, 5, sarama.ErrInvalidReplicationFactor},
		{"rf0", 3, 0, sarama.ErrInvalidReplicationFactor},
		{"zero-parts", 0, 1, sarama.ErrInvalidPartitions},
		{"bad/name", 1, 1, sarama.ErrInvalidTopic},
		{"fine", 3, 3, nil},
	} {
		err := adm.CreateTopic(tc.name, &sarama.TopicDetail{NumPartitions: tc.parts, ReplicationFactor: tc.rf}, true)
		if !errors.Is(err, tc.want) {
			t.Errorf("validate %s (%d partitions, RF %d): %v, want %v", tc.name, tc.parts, tc.rf, err, tc.want)
		}
	}
	var n int
	b.Do(context.Background(), func(c *core.Cluster) { n = len(c.Snapshot().Topics) })
	if n != 0 {
		t.Fatalf("validate_only created %d topic(s)", n)
	}
	// What validated is then created.
	if err := adm.CreateTopic("fine", &sarama.TopicDetail{NumPartitions: 3, ReplicationFactor: 3}, false); err != nil {
		t.Fatalf("create fine: %v", err)
	}
}

// TestKadmCreateTopics: kadm's CreateTopics is answered (v7) with the
// topic id Metadata then gives the topic (KIP-516; it was all zeros), and
// with -1 partitions and replication factor a topic gets the cluster's
// num.partitions and default.replication.factor as `set` made them, not
// the catalog's 1 and 1; its configs come back as DescribeConfigs has
// them (v5, KIP-525).
func TestKadmCreateTopics(t *testing.T) {
	b := newWallBackend(t, core.Options{Brokers: 3, Seed: 1, Version: "4.0", Metadata: "kraft"},
		core.Set{Configs: map[string]string{"num.partitions": "4", "default.replication.factor": "2"}})
	_, addr := startServer(t, b, 3)
	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs(addr, 3)...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	resp, err := adm.CreateTopic(ctx, -1, -1, map[string]*string{"retention.ms": kadm.StringPtr("60000")}, "defaults")
	if err != nil || resp.Err != nil {
		t.Fatalf("create: %v %+v", err, resp)
	}
	if resp.NumPartitions != 4 || resp.ReplicationFactor != 2 {
		t.Errorf("created with %d partitions, RF %d: want the cluster's 4 and 2", resp.NumPartitions, resp.ReplicationFactor)
	}
	var id [16]byte
	b.Do(ctx, func(c *core.Cluster) { id, _ = c.TopicID("defaults") })
	if resp.ID != kadm.TopicID(id) || id == ([16]byte{}) {
		t.Errorf("CreateTopics answered topic id %v, the topic's is %v", resp.ID, kadm.TopicID(id))
	}
	if v := resp.Configs["retention.ms"]; v.Value == nil || *v.Value != "60000" || v.Source != 1 {
		t.Errorf("retention.ms in the answer: %+v, want 60000 from the topic (DYNAMIC_TOPIC_CONFIG)", v)
	}
	md, err := adm.Metadata(ctx, "defaults")
	if err != nil {
		t.Fatal(err)
	}
	td := md.Topics["defaults"]
	if td.ID != resp.ID || len(td.Partitions) != 4 || len(td.Partitions[0].Replicas) != 2 {
		t.Errorf("metadata: id %v, %d partitions: want id %v, 4 partitions of 2 replicas", td.ID, len(td.Partitions), resp.ID)
	}
	// A refused topic is answered -1 and -1, and no id.
	again, err := adm.CreateTopic(ctx, 1, 1, nil, "defaults")
	if !errors.Is(err, kerr.TopicAlreadyExists) || again.NumPartitions != -1 || again.ReplicationFactor != -1 || again.ID != (kadm.TopicID{}) {
		t.Errorf("create again: %v %+v, want TOPIC_ALREADY_EXISTS with -1, -1 and no id", err, again)
	}
}

// TestSaramaValidateCreatePartitions: sarama's CreatePartitions with
// validateOnly gets what the change would (Kafka validates and drops the
// records: QuorumController.createPartitions) and changes nothing; it was
// answered success for anything, a count that is no increase and a topic
// that does not exist included.
func TestSaramaValidateCreatePartitions(t *testing.T) {
	b, addr := served(t, "4.0", core.CreateTopic{Topic: "grow", Partitions: 3, RF: 3})
	cfg := saramaConfig()
	cfg.Version = sarama.V2_8_0_0
	adm, err := sarama.NewClusterAdmin(addrs(addr, 3), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	for _, tc := range []struct {
		topic string
		count int32
		want  error
	}{
		{"grow", 3, sarama.ErrInvalidPartitions},
		{"grow", 2, sarama.ErrInvalidPartitions},
		{"missing", 4, sarama.ErrUnknownTopicOrPartition},
		{"grow", 5, nil},
	} {
		if err := adm.CreatePartitions(tc.topic, tc.count, nil, true); !errors.Is(err, tc.want) {
			t.Errorf("validate %s to %d partitions: %v, want %v", tc.topic, tc.count, err, tc.want)
		}
	}
	var n int
	b.Do(context.Background(), func(c *core.Cluster) { n = len(c.Topic("grow").Partitions()) })
	if n != 3 {
		t.Fatalf("grow has %d partitions after validate_only, want 3", n)
	}
}
