package kafka

import (
	"context"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestMetadataTopicNames: Metadata for an illegal topic name is
// INVALID_TOPIC_EXCEPTION (Topic.validate in KafkaApis.getTopicMetadata
// and AutoTopicCreationManager), so a client fails at once instead of
// retrying UNKNOWN_TOPIC_OR_PARTITION; a legal name starting with '_'
// is auto-created like any other (it was never created).
func TestMetadataTopicNames(t *testing.T) {
	b := newWallBackend(t, core.Options{Brokers: 3, Seed: 1, Version: "3.9", Metadata: "kraft"})
	_, addr := startServer(t, b, 3)
	cl := versionClient(t, addr, 3, 0, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req := kmsg.NewPtrMetadataRequest()
	req.AllowAutoTopicCreation = true
	for _, name := range []string{"bad name!", "_schemas"} {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(name)
		req.Topics = append(req.Topics, rt)
	}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int16{"bad name!": 17, "_schemas": 5} // INVALID_TOPIC_EXCEPTION; LEADER_NOT_AVAILABLE while it is created
	for _, rt := range resp.Topics {
		if rt.Topic == nil || rt.ErrorCode != want[*rt.Topic] {
			t.Errorf("%q: error %d, want %d", *rt.Topic, rt.ErrorCode, want[*rt.Topic])
		}
	}
	b.Do(ctx, func(c *core.Cluster) {
		if c.Topic("_schemas") == nil {
			t.Error("_schemas was not auto-created")
		}
	})
}
