package kafka

import (
	"context"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestAdminRequests: topics are created and grown through the wire
// protocol with Kafka's errors, deleted by topic id (DeleteTopics v6;
// kgo_delete_test.go has the rest of deletion), and groups are listed and described
// by their coordinator.
func TestAdminRequests(t *testing.T) {
	b := threeBrokers(t, "3.9", "kraft")
	_, addr := startServer(t, b, 3)
	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs(addr, 3)...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	create := func(name string, parts int32, rf int16) *kmsg.CreateTopicsResponseTopic {
		req := kmsg.NewPtrCreateTopicsRequest()
		rt := kmsg.NewCreateTopicsRequestTopic()
		rt.Topic, rt.NumPartitions, rt.ReplicationFactor = name, parts, rf
		req.Topics = append(req.Topics, rt)
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			t.Fatal(err)
		}
		return &resp.Topics[0]
	}
	if r := create("made", 4, 3); r.ErrorCode != 0 {
		t.Fatalf("create: %+v", r)
	}
	if r := create("made", 4, 3); r.ErrorCode != 36 {
		t.Fatalf("create twice: code %d, want TOPIC_ALREADY_EXISTS", r.ErrorCode)
	}
	if r := create("big", 1, 5); r.ErrorCode != 38 || r.ErrorMessage == nil {
		t.Fatalf("RF 5 on 3 brokers: %+v, want INVALID_REPLICATION_FACTOR", r)
	}
	cp := kmsg.NewPtrCreatePartitionsRequest()
	cpt := kmsg.NewCreatePartitionsRequestTopic()
	cpt.Topic, cpt.Count = "made", 6
	cp.Topics = append(cp.Topics, cpt)
	if resp, err := cp.RequestWith(ctx, cl); err != nil || resp.Topics[0].ErrorCode != 0 {
		t.Fatalf("create partitions: %v %+v", err, resp)
	}
	var n int
	b.Do(ctx, func(c *core.Cluster) {
		for _, tv := range c.Snapshot().Topics {
			if tv.Name == "made" {
				n = len(tv.Partitions)
			}
		}
	})
	if n != 6 {
		t.Fatalf("made has %d partitions, want 6", n)
	}
	// DeleteTopics v6 names topics by id (KIP-516): an id no topic has is
	// UNKNOWN_TOPIC_ID; a known one deletes its topic.
	if r := create("byid", 1, 3); r.ErrorCode != 0 {
		t.Fatalf("create byid: %+v", r)
	}
	var id [16]byte
	b.Do(ctx, func(c *core.Cluster) { id, _ = c.TopicID("byid") })
	dt := kmsg.NewPtrDeleteTopicsRequest()
	dt.Version, dt.TimeoutMillis = 6, 5000
	for _, x := range [][16]byte{{1, 2, 3}, id} {
		rt := kmsg.NewDeleteTopicsRequestTopic()
		rt.TopicID = x
		dt.Topics = append(dt.Topics, rt)
	}
	resp, err := dt.RequestWith(ctx, cl)
	if err != nil || len(resp.Topics) != 2 || resp.Topics[0].ErrorCode != 100 || resp.Topics[1].ErrorCode != 0 || resp.Topics[1].Topic == nil || *resp.Topics[1].Topic != "byid" {
		t.Fatalf("delete by id: %v %+v, want UNKNOWN_TOPIC_ID then byid deleted", err, resp)
	}
	var left bool
	b.Do(ctx, func(c *core.Cluster) { left = c.Topic("byid") != nil })
	if left {
		t.Fatal("byid still exists after its deletion by id")
	}

	// A group member, then ListGroups and DescribeGroups at its coordinator.
	mem, err := kgo.NewClient(kgo.SeedBrokers(addrs(addr, 3)...), kgo.ConsumerGroup("adm"), kgo.ConsumeTopics("made"), kgo.ClientID("reader"))
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	go mem.PollFetches(ctx)
	fc := kmsg.NewPtrFindCoordinatorRequest()
	fc.CoordinatorKey = "adm"
	waitUntil(t, ctx, "a Stable group", func() bool {
		resp, err := fc.RequestWith(ctx, cl)
		if err != nil || resp.ErrorCode != 0 {
			return false
		}
		dg := kmsg.NewPtrDescribeGroupsRequest()
		dg.Groups = []string{"adm"}
		dresp, err := cl.Broker(int(resp.NodeID)).RetriableRequest(ctx, dg)
		if err != nil {
			return false
		}
		g := dresp.(*kmsg.DescribeGroupsResponse).Groups[0]
		if g.State != "Stable" || len(g.Members) != 1 || g.Members[0].ClientID != "reader" {
			return false
		}
		lg := kmsg.NewPtrListGroupsRequest()
		lresp, err := cl.Broker(int(resp.NodeID)).RetriableRequest(ctx, lg)
		return err == nil && len(lresp.(*kmsg.ListGroupsResponse).Groups) == 1
	})

	// A group nobody joined: Dead at its coordinator (no error: "does not
	// exist" for the admin tools), NOT_COORDINATOR at the others.
	fc.CoordinatorKey = "nobody"
	fresp, err := fc.RequestWith(ctx, cl)
	if err != nil || fresp.ErrorCode != 0 {
		t.Fatalf("find coordinator of nobody: %v %+v", err, fresp)
	}
	for id := int32(1); id <= 3; id++ {
		dg := kmsg.NewPtrDescribeGroupsRequest()
		dg.Groups = []string{"nobody"}
		dresp, err := cl.Broker(int(id)).RetriableRequest(ctx, dg)
		if err != nil {
			t.Fatal(err)
		}
		g := dresp.(*kmsg.DescribeGroupsResponse).Groups[0]
		want := kmsg.DescribeGroupsResponseGroup{Group: "nobody", ErrorCode: 16}
		if id == fresp.NodeID {
			want = kmsg.DescribeGroupsResponseGroup{Group: "nobody", State: "Dead"}
		}
		if g.ErrorCode != want.ErrorCode || g.State != want.State || len(g.Members) != 0 {
			t.Fatalf("describe nobody at broker %d (coordinator %d): %+v, want error %d state %q", id, fresp.NodeID, g, want.ErrorCode, want.State)
		}
	}
}
