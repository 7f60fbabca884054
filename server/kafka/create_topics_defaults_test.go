package kafka

import (
	"context"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// createOne sends a CreateTopics for one topic through a client of b's
// brokers and returns its answer.
func createOne(t *testing.T, b Backend, topic string, parts int32, rf int16, assign [][]int32) kmsg.CreateTopicsResponseTopic {
	t.Helper()
	_, addr := startServer(t, b, 3)
	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs(addr, 3)...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req := kmsg.NewPtrCreateTopicsRequest()
	req.TimeoutMillis = 5000
	rt := kmsg.NewCreateTopicsRequestTopic()
	rt.Topic, rt.NumPartitions, rt.ReplicationFactor = topic, parts, rf
	for i, ids := range assign {
		a := kmsg.NewCreateTopicsRequestTopicReplicaAssignment()
		a.Partition, a.Replicas = int32(i), ids
		rt.ReplicaAssignment = append(rt.ReplicaAssignment, a)
	}
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil || len(resp.Topics) != 1 {
		t.Fatalf("CreateTopics: %v %+v", err, resp)
	}
	return resp.Topics[0]
}

// TestCreateTopicsDefaultsBeforeKIP464: -1 partitions or replication
// factor takes the broker's defaults only from 2.4 (KIP-464); 0.11's
// AdminUtils.assignReplicasToBrokers refuses it as any count below 1.
func TestCreateTopicsDefaultsBeforeKIP464(t *testing.T) {
	for _, c := range []struct {
		parts int32
		rf    int16
		code  int16
	}{{-1, 1, 37}, {1, -1, 38}, {-1, -1, 37}} {
		b := newWallBackend(t, core.Options{Brokers: 3, Seed: 1, Version: "0.11", Metadata: "zk"})
		if got := createOne(t, b, "t", c.parts, c.rf, nil); got.ErrorCode != c.code {
			t.Errorf("0.11, %d partitions RF %d: error %d, want %d", c.parts, c.rf, got.ErrorCode, c.code)
		}
	}
	b := newWallBackend(t, core.Options{Brokers: 3, Seed: 1, Version: "2.8", Metadata: "zk"})
	if got := createOne(t, b, "t", -1, -1, nil); got.ErrorCode != 0 {
		t.Errorf("2.8, -1 and -1: error %d, want the defaults", got.ErrorCode)
	}
}

// TestCreateTopicsAssignmentWithCounts: an explicit assignment with
// partitions or a replication factor other than -1 is INVALID_REQUEST,
// in ZooKeeper mode (ZkAdminManager.createTopics) and KRaft
// (ReplicationControlManager.createTopic, replication factor first), each
// with its own message; it was created from the assignment.
func TestCreateTopicsAssignmentWithCounts(t *testing.T) {
	assign := [][]int32{{1, 2}, {2, 3}}
	for _, c := range []struct {
		version, meta string
		parts         int32
		rf            int16
		msg           string
	}{
		{"0.11", "zk", 2, -1, "Both numPartitions or replicationFactor and replicasAssignments were set. Both cannot be used at the same time."},
		{"3.9", "zk", -1, 2, "Both numPartitions or replicationFactor and replicasAssignments were set. Both cannot be used at the same time."},
		{"3.9", "kraft", 2, 2, "A manual partition assignment was specified, but replication factor was not set to -1."},
		{"3.9", "kraft", 2, -1, "A manual partition assignment was specified, but numPartitions was not set to -1."},
	} {
		b := newWallBackend(t, core.Options{Brokers: 3, Seed: 1, Version: c.version, Metadata: c.meta})
		got := createOne(t, b, "t", c.parts, c.rf, assign)
		if got.ErrorCode != 42 || got.ErrorMessage == nil || *got.ErrorMessage != c.msg {
			t.Errorf("%s %s, %d partitions RF %d with an assignment: %d %v, want 42 %q", c.version, c.meta, c.parts, c.rf, got.ErrorCode, got.ErrorMessage, c.msg)
		}
	}
	b := newWallBackend(t, core.Options{Brokers: 3, Seed: 1, Version: "3.9", Metadata: "kraft"})
	if got := createOne(t, b, "t", -1, -1, assign); got.ErrorCode != 0 {
		t.Errorf("3.9 kraft, -1 and -1 with an assignment: error %d, want it created", got.ErrorCode)
	}
}
