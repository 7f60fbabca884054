package kafka

import (
	"context"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestCreateTopicsBadCounts: only -1 asks for the cluster's default
// (KIP-464); -2 partitions or replication factor is refused, as
// ReplicationControlManager.createTopic does (they were taken as -1 and
// the topic created), and an explicit assignment whose partition indexes
// are not 0, 1, 2... is INVALID_REPLICA_ASSIGNMENT (partitions {0, 2}
// were renumbered 0 and 1 and created).
func TestCreateTopicsBadCounts(t *testing.T) {
	b := newWallBackend(t, core.Options{Brokers: 3, Seed: 1, Version: "3.9", Metadata: "kraft"})
	_, addr := startServer(t, b, 3)
	cl := versionClient(t, addr, 3, 0, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	topic := func(name string, parts int32, rf int16, assign ...[]int32) kmsg.CreateTopicsRequestTopic {
		rt := kmsg.NewCreateTopicsRequestTopic()
		rt.Topic, rt.NumPartitions, rt.ReplicationFactor = name, parts, rf
		for i, ids := range assign {
			a := kmsg.NewCreateTopicsRequestTopicReplicaAssignment()
			a.Partition, a.Replicas = int32(2*i), ids // 0, 2, 4...
			rt.ReplicaAssignment = append(rt.ReplicaAssignment, a)
		}
		return rt
	}
	req := kmsg.NewPtrCreateTopicsRequest()
	req.TimeoutMillis = 5000
	req.Topics = []kmsg.CreateTopicsRequestTopic{
		topic("rf-2", 1, -2), topic("parts-2", -2, 1), topic("gap", -1, -1, []int32{1}, []int32{2}), topic("ok", 1, -1),
	}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int16{"rf-2": 38, "parts-2": 37, "gap": 39, "ok": 0}
	for _, rt := range resp.Topics {
		if rt.ErrorCode != want[rt.Topic] {
			msg := ""
			if rt.ErrorMessage != nil {
				msg = *rt.ErrorMessage
			}
			t.Errorf("%s: error %d (%s), want %d", rt.Topic, rt.ErrorCode, msg, want[rt.Topic])
		}
	}
	b.Do(ctx, func(c *core.Cluster) {
		for _, name := range []string{"rf-2", "parts-2", "gap"} {
			if c.Topic(name) != nil {
				t.Errorf("%s was created", name)
			}
		}
		if c.Topic("ok") == nil {
			t.Error("ok was not created")
		}
	})
}
