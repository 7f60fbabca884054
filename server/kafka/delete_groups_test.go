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

// TestKadmDeleteGroups: kadm's DeleteGroups (DeleteGroups v2, KIP-229)
// refuses a group with a member (NON_EMPTY_GROUP), deletes it once the
// member has left, and then the group is gone: no offsets, GROUP_ID_NOT_FOUND
// when deleted again, and, its tombstones being in __consumer_offsets,
// still gone at the coordinator that takes over after the old one
// crashes. The API was not served: every admin client (kadm, sarama,
// kafka-python, kafkajs) failed with "broker does not support".
func TestKadmDeleteGroups(t *testing.T) {
	for _, preset := range kgoPresets {
		t.Run(preset, func(t *testing.T) {
			b, addr := served(t, preset, core.CreateTopic{Topic: "dg", Partitions: 2, RF: 3})
			adm := kadm.NewClient(versionClient(t, addr, 3, 0, 0))
			ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
			defer cancel()
			mem := versionClient(t, addr, 3, 0, 0, kgo.ConsumerGroup("doomed"), kgo.ConsumeTopics("dg"))
			go mem.PollFetches(ctx) // joins the group
			var coord int32
			waitUntil(t, ctx, "a Stable group", func() bool {
				gs, err := adm.DescribeGroups(ctx, "doomed")
				coord = gs["doomed"].Coordinator.NodeID
				return err == nil && gs["doomed"].State == "Stable"
			})
			commit := kadm.Offsets{}
			commit.Add(kadm.Offset{Topic: "dg", Partition: 0, At: 0, LeaderEpoch: -1})
			if _, err := adm.CommitOffsets(ctx, "other", commit); err != nil {
				t.Fatal(err)
			}
			res, err := adm.DeleteGroup(ctx, "doomed")
			if !errors.Is(err, kerr.NonEmptyGroup) {
				t.Fatalf("delete with a member: %v %+v, want NON_EMPTY_GROUP", err, res)
			}
			mem.Close() // leaves the group
			waitUntil(t, ctx, "the group deleted", func() bool {
				_, err := adm.DeleteGroup(ctx, "doomed")
				return err == nil
			})
			if _, err := adm.DeleteGroup(ctx, "doomed"); !errors.Is(err, kerr.GroupIDNotFound) {
				t.Fatalf("delete again: %v, want GROUP_ID_NOT_FOUND", err)
			}
			if err := b.Apply(ctx, core.CrashBroker{Broker: int(coord)}); err != nil {
				t.Fatal(err)
			}
			// A fresh client each time: kgo keeps a crashed coordinator
			// cached while it cannot dial it.
			waitUntil(t, ctx, "a new coordinator that does not have the group", func() bool {
				time.Sleep(100 * time.Millisecond)
				fresh, err := kgo.NewClient(kgo.SeedBrokers(addrs(addr, 3)...))
				if err != nil {
					t.Fatal(err)
				}
				defer fresh.Close()
				adm := kadm.NewClient(fresh)
				gs, err := adm.DescribeGroups(ctx, "doomed")
				if err != nil || gs["doomed"].Coordinator.NodeID == coord {
					return false
				}
				fo, err := adm.FetchOffsets(ctx, "doomed")
				return err == nil && len(fo) == 0 && gs["doomed"].State == "Dead"
			})
		})
	}
}

// TestSaramaDeleteConsumerGroup: sarama's ClusterAdmin deletes a group
// that only committed offsets (a standalone consumer's, generation 0),
// after which it has none; a group that does not exist is
// GROUP_ID_NOT_FOUND.
func TestSaramaDeleteConsumerGroup(t *testing.T) {
	_, addr := served(t, "3.9", core.CreateTopic{Topic: "sdg", Partitions: 1, RF: 3})
	cfg := saramaConfig()
	cfg.Version = sarama.V2_8_0_0
	cl, err := sarama.NewClient(addrs(addr, 3), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	saramaCommit(t, cl, "standalone", "sdg", 3, "m")
	adm, err := sarama.NewClusterAdminFromClient(cl)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := adm.ListConsumerGroupOffsets("standalone", nil); err != nil || r.Blocks["sdg"][0].Offset != 3 {
		t.Fatalf("offsets before: %v %+v, want 3", err, r)
	}
	if err := adm.DeleteConsumerGroup("standalone"); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if r, err := adm.ListConsumerGroupOffsets("standalone", nil); err != nil || len(r.Blocks) != 0 {
		t.Fatalf("offsets after: %v %+v, want none", err, r)
	}
	if err := adm.DeleteConsumerGroup("never"); !errors.Is(err, sarama.ErrGroupIDNotFound) {
		t.Fatalf("delete a group that never was: %v, want GROUP_ID_NOT_FOUND", err)
	}
}

// saramaCommit commits offset (with metadata) for topic's partition 0 in
// group as sarama's OffsetManager does for a consumer outside any
// generation (what kafka-consumer-groups --reset-offsets writes).
func saramaCommit(t *testing.T, cl sarama.Client, group, topic string, offset int64, metadata string) {
	t.Helper()
	om, err := sarama.NewOffsetManagerFromClient(group, cl)
	if err != nil {
		t.Fatal(err)
	}
	pom, err := om.ManagePartition(topic, 0)
	if err != nil {
		t.Fatal(err)
	}
	pom.MarkOffset(offset, metadata)
	om.Commit()
	pom.Close()
	om.Close()
}
