package kafka

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

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
