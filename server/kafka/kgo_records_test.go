package kafka

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestFranzGoHeadersAndTimestamps: headers (a null value included) and
// the timestamps a client stamps come back on consume exactly; on a
// LogAppendTime topic every record reads as the leader's append time;
// ListOffsets by time finds the first record at or after a timestamp.
func TestFranzGoHeadersAndTimestamps(t *testing.T) {
	b, addr := served(t, "3.9",
		core.CreateTopic{Topic: "create", Partitions: 1, RF: 3},
		core.CreateTopic{Topic: "append", Partitions: 1, RF: 3, Configs: map[string]string{"message.timestamp.type": "LogAppendTime"}})
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ProducerLinger(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	base := time.UnixMilli(1_700_000_000_000) // long before now: kept as the client stamped it
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var sent []*kgo.Record
	for i := 0; i < 6; i++ {
		r := &kgo.Record{Topic: "create", Value: []byte(fmt.Sprint("v", i)), Timestamp: base.Add(time.Duration(i*1500) * time.Millisecond),
			Headers: []kgo.RecordHeader{{Key: "trace", Value: []byte(fmt.Sprint("id-", i))}, {Key: "empty", Value: nil}, {Key: "trace", Value: []byte("dup")}}}
		sent = append(sent, r)
	}
	if err := cl.ProduceSync(ctx, sent...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	before := time.Now().Add(-time.Second)
	appended := &kgo.Record{Topic: "append", Value: []byte("a"), Timestamp: base, Headers: []kgo.RecordHeader{{Key: "h", Value: []byte("x")}}}
	if err := cl.ProduceSync(ctx, appended).FirstErr(); err != nil {
		t.Fatal(err)
	}

	rd, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumeTopics("create", "append"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	got := consume(t, rd, 7)
	var creates []*kgo.Record
	for _, r := range got {
		if r.Topic == "append" {
			if !r.Timestamp.After(before) || r.Attrs.TimestampType() != 1 {
				t.Errorf("LogAppendTime record: timestamp %v type %d, want the broker's clock and type 1", r.Timestamp, r.Attrs.TimestampType())
			}
			if len(r.Headers) != 1 || r.Headers[0].Key != "h" || string(r.Headers[0].Value) != "x" {
				t.Errorf("LogAppendTime record headers %v", r.Headers)
			}
			continue
		}
		creates = append(creates, r)
	}
	if len(creates) != len(sent) {
		t.Fatalf("consumed %d CreateTime records, want %d", len(creates), len(sent))
	}
	for i, r := range creates {
		w := sent[i]
		if !r.Timestamp.Equal(w.Timestamp) || r.Attrs.TimestampType() != 0 {
			t.Errorf("record %d: timestamp %v type %d, want %v type 0", i, r.Timestamp, r.Attrs.TimestampType(), w.Timestamp)
		}
		if len(r.Headers) != 3 {
			t.Fatalf("record %d: headers %v", i, r.Headers)
		}
		for j, h := range r.Headers {
			wh := w.Headers[j]
			if h.Key != wh.Key || string(h.Value) != string(wh.Value) || (h.Value == nil) != (wh.Value == nil) {
				t.Errorf("record %d header %d: %q=%q (nil %v), want %q=%q (nil %v)", i, j, h.Key, h.Value, h.Value == nil, wh.Key, wh.Value, wh.Value == nil)
			}
		}
	}

	// ListOffsets by time, on the client's clock: the first record at or
	// after base+2s is the one stamped base+3s (offset 2).
	offs := listOffsetAt(t, addr, "create", base.Add(2*time.Second).UnixMilli())
	if offs != 2 {
		t.Errorf("ListOffsets at base+2s = %d, want 2", offs)
	}

	// The core keeps them too: the picture's record view shows headers
	// and the client's timestamp on the brokers' clock.
	var view []core.RecordView
	b.Do(ctx, func(c *core.Cluster) {
		p, _ := c.Partition("create-0")
		view, _ = c.ReplicaRecords("create-0", p.Leader(), 0, 10)
	})
	if len(view) != 6 || len(view[1].Headers) != 3 || view[1].Headers[0].Value != "id-1" || !view[1].Headers[1].Null ||
		view[1].Timestamp-view[0].Timestamp != 1500 {
		t.Errorf("record view %+v", view)
	}
}

// listOffsetAt is ListOffsets for partition 0 of topic at timestamp ts.
func listOffsetAt(t *testing.T, addr, topic string, ts int64) int64 {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req := listOffsetsRequest(topic, ts)
	// The partition's leader answers: send it there (kgo routes a
	// ListOffsets to the leaders itself).
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	p := resp.Topics[0].Partitions[0]
	if p.ErrorCode != 0 {
		t.Fatalf("ListOffsets: error %d", p.ErrorCode)
	}
	return p.Offset
}
