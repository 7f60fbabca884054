package kafka

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kgo"
)

func threeBrokers(t *testing.T, version, mode string, topics ...core.CreateTopic) *wallBackend {
	var setup []core.Command
	for _, tp := range topics {
		setup = append(setup, tp)
	}
	return newWallBackend(t, core.Options{Brokers: 3, Seed: 1, Version: version, Metadata: mode}, setup...)
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
	b := threeBrokers(t, "3.9", "kraft", core.CreateTopic{Topic: "orders", Partitions: 3, RF: 3})
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
