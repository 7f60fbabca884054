package kafka

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafkasim/kafkasim/core"
)

// TestFranzGoCompactedTopicNeedsKeys: a record with no key produced to a
// cleanup.policy=compact topic is refused INVALID_RECORD
// (LogValidator.validateKey: "Compacted topic cannot accept message
// without key"), however the client compressed its batch; a keyed batch
// is taken, and its records read back.
func TestFranzGoCompactedTopicNeedsKeys(t *testing.T) {
	_, addr := served(t, "3.9", core.CreateTopic{Topic: "kv", Partitions: 1, RF: 3, Configs: map[string]string{"cleanup.policy": "compact"}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, codec := range []kgo.CompressionCodec{kgo.NoCompression(), kgo.SnappyCompression(), kgo.ZstdCompression()} {
		prod := fetchClient(t, addr, 3, 0, kgo.ProducerBatchCompression(codec), kgo.RecordRetries(0),
			kgo.ProducerLinger(20*time.Millisecond))
		err := prod.ProduceSync(ctx, &kgo.Record{Topic: "kv", Key: []byte("k"), Value: []byte("a")},
			&kgo.Record{Topic: "kv", Value: []byte("no key")}).FirstErr()
		if !errors.Is(err, kerr.InvalidRecord) {
			t.Errorf("codec %v: a batch with a keyless record answered %v, want INVALID_RECORD", codec, err)
		}
		if err := prod.ProduceSync(ctx, &kgo.Record{Topic: "kv", Key: []byte("k"), Value: []byte("b")}).FirstErr(); err != nil {
			t.Errorf("codec %v: a keyed record: %v", codec, err)
		}
	}
	cons := fetchClient(t, addr, 3, 0, kgo.ConsumeTopics("kv"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	for i, r := range consume(t, cons, 3) {
		if string(r.Key) != "k" || string(r.Value) != "b" {
			t.Errorf("record %d: %q=%q, want k=b (only the keyed batches were taken)", i, r.Key, r.Value)
		}
	}
}

// TestFetchShowsDeleteHorizon: once the log cleaner has kept a tombstone
// it gives the tombstone's batch a delete horizon (KIP-534, 3.1+), and a
// Fetch returns that batch as Kafka's cleaner rebuilt it: attributes bit
// 6 set, the horizon (the clean's time plus delete.retention.ms, on the
// clients' clock) as the base timestamp, and the record's delta re-based
// on it, so the record still reads the timestamp it was produced with.
func TestFetchShowsDeleteHorizon(t *testing.T) {
	const retention = 600_000 // delete.retention.ms
	b := newWallBackend(t, core.Options{Brokers: 3, Seed: 1, Version: "3.9", Metadata: "kraft"},
		core.Set{Configs: map[string]string{"log.cleaner.backoff.ms": "50"}},
		core.CreateTopic{Topic: "kv", Partitions: 1, RF: 3, Configs: map[string]string{"cleanup.policy": "compact",
			"segment.bytes": "100", "min.cleanable.dirty.ratio": "0.01", "delete.retention.ms": strconv.Itoa(retention)}})
	_, addr := startServer(t, b, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	prod := fetchClient(t, addr, 3, 0, kgo.ProducerBatchCompression(kgo.NoCompression()))
	stamp := time.UnixMilli(time.Now().UnixMilli() - 5000) // not the clean's time: the delta must carry it
	for _, r := range []*kgo.Record{
		{Topic: "kv", Key: []byte("k"), Value: []byte("v1")},
		{Topic: "kv", Key: []byte("k"), Timestamp: stamp}, // the tombstone
		{Topic: "kv", Key: []byte("x"), Value: []byte("1")},
		{Topic: "kv", Key: []byte("y"), Value: []byte("1")},
	} {
		if err := prod.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now().UnixMilli()
	cl := fetchClient(t, addr, 3, 12)
	for ctx.Err() == nil {
		for broker := int32(1); broker <= 3; broker++ {
			req := kmsg.NewPtrFetchRequest()
			req.MaxWaitMillis, req.MaxBytes = 0, 1<<20
			rt := kmsg.NewFetchRequestTopic()
			rt.Topic = "kv"
			rp := kmsg.NewFetchRequestTopicPartition()
			rp.PartitionMaxBytes, rp.CurrentLeaderEpoch = 1<<20, -1
			rt.Partitions = append(rt.Partitions, rp)
			req.Topics = append(req.Topics, rt)
			resp := requestBroker[*kmsg.FetchResponse](t, cl, int(broker), req)
			p := resp.Topics[0].Partitions[0]
			if p.ErrorCode != 0 {
				continue
			}
			for raw := p.RecordBatches; len(raw) > 0; {
				var rb kmsg.RecordBatch
				if err := rb.ReadFrom(raw); err != nil {
					t.Fatal(err)
				}
				raw = raw[12+int(rb.Length):]
				if rb.Attributes&0x40 == 0 {
					continue
				}
				if rb.FirstTimestamp < start+retention-2000 || rb.FirstTimestamp > time.Now().UnixMilli()+retention+2000 {
					t.Fatalf("delete horizon %d, want about %d (the clean's time plus delete.retention.ms)", rb.FirstTimestamp, start+retention)
				}
				var rec kmsg.Record
				if err := rec.ReadFrom(rb.Records); rb.NumRecords != 1 || err != nil {
					t.Fatalf("horizon batch: %d records (%v), want the tombstone alone", rb.NumRecords, err)
				}
				if rec.Value != nil || rb.FirstTimestamp+rec.TimestampDelta64 != stamp.UnixMilli() || rb.MaxTimestamp != stamp.UnixMilli() {
					t.Fatalf("horizon batch: value %q, record timestamp %d, max %d; want a tombstone at %d",
						rec.Value, rb.FirstTimestamp+rec.TimestampDelta64, rb.MaxTimestamp, stamp.UnixMilli())
				}
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("no batch with a delete horizon came back in 30 s")
}
