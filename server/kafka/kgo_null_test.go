package kafka

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafkasim/kafkasim/core"
)

// TestFranzGoNullValue: a record produced with a null value (a tombstone,
// kgo's Value nil) is consumed with a null value, one produced with an
// empty value with an empty one, as from Kafka, which keeps value length
// -1 in the log (DefaultRecord). Both ways a Fetch returns them: the
// producer's zstd batch as it came (Fetch v10+), and the batch encoded
// from the core's records (Fetch v9, which cannot carry zstd: KIP-110).
// The picture's record view says which is null.
func TestFranzGoNullValue(t *testing.T) {
	b, addr := served(t, "3.9", core.CreateTopic{Topic: "tomb", Partitions: 1, RF: 3})
	prod := fetchClient(t, addr, 3, 0, kgo.ProducerBatchCompression(kgo.ZstdCompression()), kgo.ProducerLinger(50*time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sent := []*kgo.Record{
		{Topic: "tomb", Key: []byte("gone"), Value: nil},
		{Topic: "tomb", Key: []byte("empty"), Value: []byte{}},
		{Topic: "tomb", Key: []byte("kept"), Value: []byte("v")},
	}
	if err := prod.ProduceSync(ctx, sent...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	var view []core.RecordView
	b.Do(ctx, func(c *core.Cluster) {
		p, _ := c.Partition("tomb-0")
		view, _ = c.ReplicaRecords("tomb-0", p.Leader(), 0, 10)
	})
	if len(view) != 3 || !view[0].NullValue || view[1].NullValue || view[0].ValueText() != "null" || view[1].ValueText() != "" {
		t.Errorf("record view %+v", view)
	}
	for _, v := range []int16{0, 9} {
		cons := fetchClient(t, addr, 3, v, kgo.ConsumeTopics("tomb"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
		got := consume(t, cons, len(sent))
		for i, r := range got {
			w := sent[i]
			if string(r.Key) != string(w.Key) || string(r.Value) != string(w.Value) || (r.Value == nil) != (w.Value == nil) {
				t.Errorf("Fetch v%d (0: the newest), record %d: key %q value %q (nil %v), want %q (nil %v)",
					v, i, r.Key, r.Value, r.Value == nil, w.Value, w.Value == nil)
			}
		}
	}
}
