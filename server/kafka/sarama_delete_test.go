package kafka

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/kafkasim/kafkasim/core"
)

// TestSaramaDeleteTopic: sarama's ClusterAdmin deletes a topic in
// ZooKeeper mode (it sends DeleteTopics to the controller it finds in
// Metadata), then finds it gone, and a second delete is
// ErrUnknownTopicOrPartition.
func TestSaramaDeleteTopic(t *testing.T) {
	b := threeBrokers(t, "2.8", "zk", core.CreateTopic{Topic: "old", Partitions: 2, RF: 3})
	_, addr := startServer(t, b, 3)
	cfg := saramaConfig()
	cfg.Version = sarama.V2_8_0_0
	adm, err := sarama.NewClusterAdmin(addrs(addr, 3), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	if err := adm.DeleteTopic("old"); err != nil {
		t.Fatalf("DeleteTopic: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	waitUntil(t, ctx, "old deleted", func() bool {
		var gone bool
		b.Do(ctx, func(c *core.Cluster) { gone = c.Topic("old") == nil })
		return gone
	})
	topics, err := adm.ListTopics()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := topics["old"]; ok {
		t.Fatalf("ListTopics still has old: %v", topics)
	}
	if err := adm.DeleteTopic("old"); !errors.Is(err, sarama.ErrUnknownTopicOrPartition) {
		t.Fatalf("DeleteTopic again: %v, want ErrUnknownTopicOrPartition", err)
	}
}
