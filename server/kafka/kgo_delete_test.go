package kafka

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

// deleteClient is a client whose DeleteTopics requests go out as version
// v at most (kgo sends the highest version both sides speak).
func deleteClient(t *testing.T, addr string, v int16) *kgo.Client {
	t.Helper()
	vs := kversion.Stable()
	vs.SetMaxKeyVersion(20, v)
	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs(addr, 1)...), kgo.MaxVersions(vs))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// topicNames lists the topics a fresh Metadata request names.
func topicNames(t *testing.T, ctx context.Context, adm *kadm.Client) []string {
	t.Helper()
	md, err := adm.Metadata(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return md.Topics.Names()
}

// TestFranzGoDeleteTopic: in each metadata mode kadm deletes a topic a
// producer wrote to; Metadata no longer lists it, a produce to it fails
// with UNKNOWN_TOPIC_OR_PARTITION, and a topic created again with the
// name has a new topic id (franz-go refuses it until purged, as it does
// against Kafka) and takes records from offset 0.
func TestFranzGoDeleteTopic(t *testing.T) {
	for _, mode := range []string{"zk", "kraft"} {
		t.Run(mode, func(t *testing.T) {
			b := threeBrokers(t, "3.9", mode, core.CreateTopic{Topic: "gone", Partitions: 2, RF: 3})
			b.Apply(context.Background(), core.Set{Configs: map[string]string{"auto.create.topics.enable": "false"}})
			_, addr := startServer(t, b, 3)
			cl, err := kgo.NewClient(kgo.SeedBrokers(addrs(addr, 3)...), kgo.DefaultProduceTopic("gone"),
				kgo.RecordDeliveryTimeout(3*time.Second), kgo.RecordRetries(3))
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			adm := kadm.NewClient(cl)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			produceAll(t, cl, "gone", 5, "old")
			before, err := adm.ListTopics(ctx, "gone")
			if err != nil || before["gone"].Err != nil {
				t.Fatalf("list gone: %v %v", err, before)
			}

			resp, err := adm.DeleteTopics(ctx, "gone")
			if err != nil {
				t.Fatal(err)
			}
			if r := resp["gone"]; r.Err != nil {
				t.Fatalf("delete: %v", r.Err)
			}
			if names := topicNames(t, ctx, adm); slices.Contains(names, "gone") {
				t.Fatalf("Metadata still lists the deleted topic: %v", names)
			}
			var stillThere bool
			b.Do(ctx, func(c *core.Cluster) { stillThere = c.Topic("gone") != nil })
			if stillThere && mode == "kraft" {
				t.Fatal("KRaft: the topic is still in the cluster after DeleteTopics answered")
			}
			waitUntil(t, ctx, "the deletion to complete", func() bool {
				var gone bool
				b.Do(ctx, func(c *core.Cluster) { gone = c.Topic("gone") == nil })
				return gone
			})
			// Again: it no longer exists.
			resp, err = adm.DeleteTopics(ctx, "gone")
			if err != nil {
				t.Fatal(err)
			}
			if r := resp["gone"]; !errors.Is(r.Err, kerr.UnknownTopicOrPartition) {
				t.Fatalf("delete again: %v, want UNKNOWN_TOPIC_OR_PARTITION", r.Err)
			}
			err = cl.ProduceSync(ctx, &kgo.Record{Topic: "gone", Value: []byte("late")}).FirstErr()
			if !errors.Is(err, kerr.UnknownTopicOrPartition) {
				t.Fatalf("produce to the deleted topic: %v, want UNKNOWN_TOPIC_OR_PARTITION", err)
			}

			cr, err := adm.CreateTopic(ctx, 1, 3, nil, "gone")
			if err != nil || cr.Err != nil {
				t.Fatalf("create again: %v %v", err, cr.Err)
			}
			waitUntil(t, ctx, "the new topic's leader", func() bool {
				l, err := adm.ListTopics(ctx, "gone")
				return err == nil && l["gone"].Err == nil && len(l["gone"].Partitions) == 1 && l["gone"].Partitions[0].Leader >= 0
			})
			after, _ := adm.ListTopics(ctx, "gone")
			if after["gone"].ID == before["gone"].ID {
				t.Fatalf("the topic created again kept the old topic id %v", before["gone"].ID)
			}
			// franz-go (1.22+) notices the new topic id for a topic it holds:
			// the topic was deleted and created again, and it refuses the
			// topic (UNKNOWN_TOPIC_ID) until the application purges it.
			var err2 error
			waitUntil(t, ctx, "franz-go to see the new topic id", func() bool {
				err2 = cl.ProduceSync(ctx, &kgo.Record{Topic: "gone", Value: []byte("new")}).FirstErr()
				return errors.Is(err2, kerr.UnknownTopicID) || err2 == nil
			})
			if err2 == nil {
				t.Fatal("franz-go produced to the topic created again without noticing its new id")
			}
			cl.PurgeTopicsFromClient("gone")
			rec, err := cl.ProduceSync(ctx, &kgo.Record{Topic: "gone", Value: []byte("new")}).First()
			if err != nil || rec.Partition != 0 || rec.Offset != 0 {
				t.Fatalf("produce to the new topic: %+v %v, want partition 0 offset 0", rec, err)
			}
		})
	}
}

// TestDeleteTopicWaitsForBroker: in ZooKeeper mode a deletion waits for a
// replica on a crashed broker. DeleteTopics answers once the answering
// broker's metadata has dropped the topic (DelayedDeleteTopics), so the
// answer comes while the deletion still waits: /admin/delete_topics/T and
// /brokers/topics/T stay, the name cannot be taken, and the deletion
// completes when the broker is back. A request with timeout 0 is answered
// REQUEST_TIMED_OUT and the deletion goes on.
func TestDeleteTopicWaitsForBroker(t *testing.T) {
	b := threeBrokers(t, "3.9", "zk", core.CreateTopic{Topic: "w", Partitions: 1, RF: 3, Assign: [][]int{{1, 2, 3}}},
		core.CreateTopic{Topic: "z", Partitions: 1, RF: 1, Assign: [][]int{{1}}})
	_, addr := startServer(t, b, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b.Apply(ctx, core.CrashBroker{Broker: 3})
	// Broker 1 is the controller: ask it directly.
	cl := deleteClient(t, addr, 4)
	if _, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl); err != nil {
		t.Fatal(err) // the client learns every broker's address
	}
	znode := func(path string) bool {
		var ok bool
		b.Do(ctx, func(c *core.Cluster) {
			for _, zn := range c.ZNodes() {
				ok = ok || zn[0] == path
			}
		})
		return ok
	}
	req := kmsg.NewPtrDeleteTopicsRequest()
	req.TimeoutMillis = 5000
	req.TopicNames = []string{"w", "w", "nope"}
	resp, err := req.RequestWith(ctx, cl.Broker(1))
	if err != nil {
		t.Fatal(err)
	}
	codes := map[string]int16{}
	for _, rt := range resp.Topics {
		codes[*rt.Topic] = rt.ErrorCode
	}
	if len(resp.Topics) != 2 || codes["w"] != kerr.InvalidRequest.Code || codes["nope"] != kerr.UnknownTopicOrPartition.Code {
		t.Fatalf("duplicate and unknown: %+v, want w INVALID_REQUEST, nope UNKNOWN_TOPIC_OR_PARTITION", codes)
	}
	req.TopicNames = []string{"w"}
	resp, err = req.RequestWith(ctx, cl.Broker(2))
	if err != nil || resp.Topics[0].ErrorCode != kerr.NotController.Code {
		t.Fatalf("to broker 2 (not the controller): %v %+v, want NOT_CONTROLLER", err, resp)
	}
	resp, err = req.RequestWith(ctx, cl.Broker(1))
	if err != nil || resp.Topics[0].ErrorCode != 0 {
		t.Fatalf("delete w: %v %+v", err, resp)
	}
	if !znode("/admin/delete_topics/w") || !znode("/brokers/topics/w") {
		t.Fatal("the deletion should wait for broker 3: /admin/delete_topics/w and /brokers/topics/w should still be there")
	}
	cr := kmsg.NewPtrCreateTopicsRequest()
	ct := kmsg.NewCreateTopicsRequestTopic()
	ct.Topic, ct.NumPartitions, ct.ReplicationFactor = "w", 1, 2
	cr.Topics = append(cr.Topics, ct)
	if cresp, err := cr.RequestWith(ctx, cl.Broker(1)); err != nil || cresp.Topics[0].ErrorCode != kerr.TopicAlreadyExists.Code {
		t.Fatalf("create w while marked for deletion: %v %+v, want TOPIC_ALREADY_EXISTS", err, cresp)
	}
	req.TopicNames, req.TimeoutMillis = []string{"z"}, 0
	resp, err = req.RequestWith(ctx, cl.Broker(1))
	if err != nil || resp.Topics[0].ErrorCode != kerr.RequestTimedOut.Code {
		t.Fatalf("delete z with timeout 0: %v %+v, want REQUEST_TIMED_OUT", err, resp)
	}
	waitUntil(t, ctx, "z deleted anyway", func() bool { return !znode("/brokers/topics/z") })
	time.Sleep(200 * time.Millisecond)
	if !znode("/admin/delete_topics/w") {
		t.Fatal("w's deletion completed while broker 3 was down")
	}
	b.Apply(ctx, core.Restart{Broker: 3})
	waitUntil(t, ctx, "w deleted once broker 3 is back", func() bool {
		return !znode("/admin/delete_topics/w") && !znode("/brokers/topics/w")
	})
}

// TestDeleteTopicsDisabled: with delete.topic.enable=false (the default
// of the 0.11 preset, or set) DeleteTopics is refused from 2.1 (KIP-322):
// TOPIC_DELETION_DISABLED from v3, INVALID_REQUEST before (no such code
// then). 0.11 had no refusal: the answer waited out the timeout,
// REQUEST_TIMED_OUT (KAFKA-5975), and a timeout of 0 or less got it at
// once (AdminManager.deleteTopics@0.11.0.2). The topic stays either way.
func TestDeleteTopicsDisabled(t *testing.T) {
	for _, tc := range []struct {
		version string
		set     bool  // set delete.topic.enable=false
		v       int16 // DeleteTopics version
		timeout int32
		want    int16
	}{
		{"0.11", false, 1, 1000, kerr.RequestTimedOut.Code}, // 0.11's default, before KIP-322
		{"0.11", false, 1, 0, kerr.RequestTimedOut.Code},
		{"3.9", true, 2, 1000, kerr.InvalidRequest.Code},
		{"3.9", true, 5, 1000, kerr.TopicDeletionDisabled.Code},
	} {
		b := threeBrokers(t, tc.version, "zk", core.CreateTopic{Topic: "kept", Partitions: 1, RF: 1})
		if tc.set {
			b.Apply(context.Background(), core.Set{Configs: map[string]string{"delete.topic.enable": "false"}})
		}
		_, addr := startServer(t, b, 3)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cl := deleteClient(t, addr, tc.v)
		req := kmsg.NewPtrDeleteTopicsRequest()
		req.TimeoutMillis, req.TopicNames = tc.timeout, []string{"kept"}
		resp, err := req.RequestWith(ctx, cl)
		if err != nil || len(resp.Topics) != 1 || resp.Version != tc.v || resp.Topics[0].ErrorCode != tc.want {
			t.Fatalf("%s v%d timeout %d: %v %+v, want code %d", tc.version, tc.v, tc.timeout, err, resp, tc.want)
		}
		var kept bool
		b.Do(ctx, func(c *core.Cluster) { kept = c.Topic("kept") != nil })
		cancel()
		if !kept {
			t.Fatalf("%s: the topic was deleted with delete.topic.enable=false", tc.version)
		}
	}
}
