package kafka

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestProduceSizeIsTheWireBatch: max.message.bytes (1048588 by default)
// bounds a batch as the client sent it. A 3 MB value gzipped into a few
// KB is stored (it was MESSAGE_TOO_LARGE: the check counted the inflated
// records); the same value uncompressed is refused.
func TestProduceSizeIsTheWireBatch(t *testing.T) {
	_, addr := served(t, "3.9", core.CreateTopic{Topic: "t", Partitions: 1, RF: 3})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	big := bytes.Repeat([]byte("c"), 3<<20)
	for _, tc := range []struct {
		codec kgo.CompressionCodec
		want  error
	}{{kgo.GzipCompression(), nil}, {kgo.NoCompression(), kerr.MessageTooLarge}} {
		cl := versionClient(t, addr, 3, 0, 0, kgo.DefaultProduceTopic("t"), kgo.ProducerBatchMaxBytes(16<<20),
			kgo.ProducerBatchCompression(tc.codec), kgo.RecordRetries(2))
		err := cl.ProduceSync(ctx, &kgo.Record{Value: big}).FirstErr()
		if !errors.Is(err, tc.want) && !(tc.want == nil && err == nil) {
			t.Errorf("%v: produce: %v, want %v", tc.codec, err, tc.want)
		}
	}
}
