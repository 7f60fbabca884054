package kafka

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

// kgoPresets are the presets the franz-go matrix tests run on: 3.9,
// the last with ZooKeeper and the old group coordinator, and 4.0, what
// `kafkasim serve` runs by default (KIP-896's removed versions, the new
// group coordinator).
var kgoPresets = []string{"3.9", "4.0"}

func threeBrokers(t *testing.T, version, mode string, topics ...core.CreateTopic) *wallBackend {
	var setup []core.Command
	for _, tp := range topics {
		setup = append(setup, tp)
	}
	return newWallBackend(t, core.Options{Brokers: 3, Seed: 1, Version: version, Metadata: mode}, setup...)
}

// served is a three-broker KRaft cluster of preset version with topics,
// each broker on a listener of its own: the backend and broker 1's
// address.
func served(t *testing.T, version string, topics ...core.CreateTopic) (*wallBackend, string) {
	t.Helper()
	b := threeBrokers(t, version, "kraft", topics...)
	_, addr := startServer(t, b, 3)
	return b, addr
}

// fetchClient is a client whose Fetch requests go out as version v at
// most (0: franz-go's own maximum, whatever the broker offers).
func fetchClient(t *testing.T, addr string, brokers int, v int16, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	return versionClient(t, addr, brokers, 1, v, opts...)
}

// versionClient is a client seeded with the listeners of brokers 1 to
// brokers whose requests of API key go out as version v at most (0:
// franz-go's own maximum, whatever the broker offers), closed when the
// test ends.
func versionClient(t *testing.T, addr string, brokers int, key, v int16, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	if v > 0 {
		vs := kversion.Stable()
		vs.SetMaxKeyVersion(key, v)
		opts = append(opts, kgo.MaxVersions(vs))
	}
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(addrs(addr, brokers)...)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// leaderOf is partition 0's leader and leader epoch, and its topic's id.
func leaderOf(t *testing.T, b *wallBackend, topic string) (leader int, epoch int32, id [16]byte) {
	t.Helper()
	b.Do(context.Background(), func(c *core.Cluster) {
		p, err := c.Partition(topic + "-0")
		if err != nil {
			t.Error(err)
			return
		}
		leader, epoch = p.Leader(), p.LeaderEpoch()
		id, _ = c.TopicID(topic)
	})
	return leader, epoch, id
}

// requestBroker sends req to broker on cl and waits up to 10 s for its
// response, which must be an R.
func requestBroker[R kmsg.Response](t *testing.T, cl *kgo.Client, broker int, req kmsg.Request) R {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := cl.Broker(broker).Request(ctx, req)
	if err != nil {
		t.Fatalf("%s to broker %d: %v", kmsg.NameForKey(req.Key()), broker, err)
	}
	r, ok := resp.(R)
	if !ok {
		t.Fatalf("%s to broker %d: answered %T", kmsg.NameForKey(req.Key()), broker, resp)
	}
	return r
}

// listOffsetsRequest asks for the offset of partition 0 of topic at ts
// (a timestamp, or -1 latest, -2 earliest, ...).
func listOffsetsRequest(topic string, ts int64) *kmsg.ListOffsetsRequest {
	req := kmsg.NewPtrListOffsetsRequest()
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewListOffsetsRequestTopicPartition()
	rp.Partition, rp.Timestamp = 0, ts
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	return req
}

// produceAll produces n records and waits for every ack.
func produceAll(t *testing.T, cl *kgo.Client, topic string, n int, prefix string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := 0; i < n; i++ {
		r := &kgo.Record{Topic: topic, Key: []byte(fmt.Sprint("k", i%7)), Value: []byte(fmt.Sprintf("%s%d", prefix, i))}
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatalf("produce %d: %v", i, err)
		}
	}
}

// consume reads until it has n records or the deadline passes.
func consume(t *testing.T, cl *kgo.Client, n int) []*kgo.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out []*kgo.Record
	for len(out) < n {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("consumed %d of %d records: %v", len(out), n, fs.Errors())
		}
		fs.EachRecord(func(r *kgo.Record) { out = append(out, r) })
	}
	return out
}

// TestFranzGoProduceConsume: franz-go produces with each acks and each
// codec against the simulated cluster and reads everything back.
func TestFranzGoProduceConsume(t *testing.T) {
	for _, version := range kgoPresets {
		t.Run(version, func(t *testing.T) { franzGoProduceConsume(t, version) })
	}
}

// franzGoProduceConsume is TestFranzGoProduceConsume on one preset.
func franzGoProduceConsume(t *testing.T, version string) {
	b := threeBrokers(t, version, "kraft", core.CreateTopic{Topic: "orders", Partitions: 3, RF: 3})
	_, addr := startServer(t, b, 3)
	codecs := map[string]kgo.CompressionCodec{"none": kgo.NoCompression(), "gzip": kgo.GzipCompression(),
		"snappy": kgo.SnappyCompression(), "lz4": kgo.Lz4Compression(), "zstd": kgo.ZstdCompression()}
	total := 0
	for _, acks := range []kgo.Acks{kgo.AllISRAcks(), kgo.LeaderAck(), kgo.NoAck()} {
		for name, codec := range codecs {
			opts := []kgo.Opt{kgo.SeedBrokers(addr), kgo.RequiredAcks(acks), kgo.ProducerBatchCompression(codec)}
			if acks != kgo.AllISRAcks() {
				opts = append(opts, kgo.DisableIdempotentWrite())
			}
			cl, err := kgo.NewClient(opts...)
			if err != nil {
				t.Fatal(err)
			}
			produceAll(t, cl, "orders", 20, name+"-")
			cl.Close()
			total += 20
		}
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumeTopics("orders"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	recs := consume(t, cl, total)
	if len(recs) != total {
		t.Fatalf("consumed %d, want %d", len(recs), total)
	}
}
