package kafka

import (
	"context"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestOffsetFetchRequireStable: a real client's OffsetFetch with
// require_stable (KIP-447), v7 and v9 (the batched form, KIP-709), while
// another commit of the group is still being written. The coordinator's
// followers are paused, so the commit's acks=all append waits for them;
// meanwhile a 3.9 broker answers that partition UNSTABLE_OFFSET_COMMIT
// (88) with offset -1, and a fetch without require_stable the offset
// committed before. Once the followers resume the commit completes and
// the stable fetch answers the new offset. The fetches go to the
// coordinator directly: franz-go's sharded OffsetFetch v8+ looks the
// response's topics up in a Metadata request to any broker, which a
// paused one would hold.
func TestOffsetFetchRequireStable(t *testing.T) {
	b := threeBrokers(t, "3.9", "kraft", core.CreateTopic{Topic: "t", Partitions: 1, RF: 3})
	_, addr := startServer(t, b, 3)
	// Separate clients: a broker reads a connection's next request only
	// after answering the one before (SocketServer mutes the channel),
	// so a fetch behind the commit on one connection would wait for it.
	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs(addr, 3)...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	readers := map[int16]*kgo.Client{7: versionClient(t, addr, 3, 9, 7), 9: versionClient(t, addr, 3, 9, 0)}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	commit := func(off int64) error {
		req := kmsg.NewPtrOffsetCommitRequest()
		req.Group, req.Generation = "g", -1
		rt := kmsg.NewOffsetCommitRequestTopic()
		rt.Topic = "t"
		rp := kmsg.NewOffsetCommitRequestTopicPartition()
		rp.Offset = off
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
		resp, err := req.RequestWith(ctx, cl)
		if err == nil && resp.Topics[0].Partitions[0].ErrorCode != 0 {
			t.Errorf("commit %d: code %d", off, resp.Topics[0].Partitions[0].ErrorCode)
		}
		return err
	}
	if err := commit(2); err != nil {
		t.Fatal(err)
	}
	fc := kmsg.NewPtrFindCoordinatorRequest()
	fc.CoordinatorKey = "g"
	fcr, err := fc.RequestWith(ctx, cl)
	if err != nil || fcr.ErrorCode != 0 {
		t.Fatalf("find coordinator: %v %+v", err, fcr)
	}
	fetch := func(v int16, stable bool) kmsg.OffsetFetchResponseTopicPartition {
		t.Helper()
		req := kmsg.NewPtrOffsetFetchRequest()
		req.Group, req.RequireStable = "g", stable
		rt := kmsg.NewOffsetFetchRequestTopic()
		rt.Topic, rt.Partitions = "t", []int32{0}
		req.Topics = append(req.Topics, rt)
		g := kmsg.NewOffsetFetchRequestGroup()
		gt := kmsg.NewOffsetFetchRequestGroupTopic()
		gt.Topic, gt.Partitions = "t", []int32{0}
		g.Group, g.Topics = "g", []kmsg.OffsetFetchRequestGroupTopic{gt}
		req.Groups = append(req.Groups, g)
		resp := requestBroker[*kmsg.OffsetFetchResponse](t, readers[v], int(fcr.NodeID), req)
		if resp.Version != v {
			t.Fatalf("OffsetFetch went out as v%d, want v%d", resp.Version, v)
		}
		topics, code := resp.Topics, resp.ErrorCode
		if v >= 8 {
			if len(resp.Groups) != 1 {
				t.Fatalf("v%d: %d groups", v, len(resp.Groups))
			}
			code = resp.Groups[0].ErrorCode
			topics = nil
			for _, gt := range resp.Groups[0].Topics {
				rt := kmsg.NewOffsetFetchResponseTopic()
				rt.Topic = gt.Topic
				for _, gp := range gt.Partitions {
					rt.Partitions = append(rt.Partitions, kmsg.OffsetFetchResponseTopicPartition{Partition: gp.Partition, Offset: gp.Offset, ErrorCode: gp.ErrorCode})
				}
				topics = append(topics, rt)
			}
		}
		if code != 0 || len(topics) != 1 || len(topics[0].Partitions) != 1 {
			t.Fatalf("offset fetch v%d: code %d, %+v", v, code, topics)
		}
		return topics[0].Partitions[0]
	}
	// Both readers have their connections to the coordinator before its
	// followers stop (a split would lose the followers' fetches until
	// replica.socket.timeout.ms, past offsets.commit.timeout.ms).
	for v := range readers {
		if p := fetch(v, false); p.Offset != 2 {
			t.Fatalf("v%d: committed offset %d, want 2", v, p.Offset)
		}
	}
	var paused []int
	for id := 1; id <= 3; id++ {
		if int32(id) != fcr.NodeID {
			paused = append(paused, id)
			if err := b.Apply(ctx, core.Pause{Broker: id}); err != nil {
				t.Fatal(err)
			}
		}
	}
	done := make(chan error, 1)
	go func() { done <- commit(5) }()
	var p kmsg.OffsetFetchResponseTopicPartition
	waitUntil(t, ctx, "an UNSTABLE_OFFSET_COMMIT answer", func() bool {
		p = fetch(7, true)
		return p.ErrorCode != 0
	})
	for v := range readers {
		if v != 7 {
			p = fetch(v, true)
		}
		if p.ErrorCode != 88 || p.Offset != -1 {
			t.Fatalf("v%d require_stable during the write: code %d offset %d, want 88 and -1", v, p.ErrorCode, p.Offset)
		}
		if p := fetch(v, false); p.ErrorCode != 0 || p.Offset != 2 {
			t.Fatalf("v%d without require_stable during the write: code %d offset %d, want 0 and 2", v, p.ErrorCode, p.Offset)
		}
	}
	for _, id := range paused {
		if err := b.Apply(ctx, core.Resume{Broker: id}); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for v := range readers {
		if p := fetch(v, true); p.ErrorCode != 0 || p.Offset != 5 {
			t.Fatalf("v%d require_stable after the write: code %d offset %d, want 0 and 5", v, p.ErrorCode, p.Offset)
		}
	}
}
