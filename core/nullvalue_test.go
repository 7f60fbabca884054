package core

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core/log"
)

// TestNullValueJSON: a room's history keeps a tombstone a tombstone: a
// real client's Produce with a null value and an empty one encodes them
// apart (the fast encoder as the reflective one does), both decoders read
// them back apart, a line written before null values were kept (no
// "nullValue") reads as an empty value, and an event's records keep the
// difference too.
func TestNullValueJSON(t *testing.T) {
	recs := []log.Record{{Key: "gone", HasKey: true, NullValue: true}, {Key: "empty", HasKey: true}, {Value: "v"}}
	req := BrokerRequest{Conn: "kafka-1", Correlation: 4, Label: "Produce v9 kgo/v1.22.3", Produce: &ProduceRequest{Acks: -1, TimeoutMs: 30000,
		Partitions: []ProducePartition{{Topic: "orders", ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Records: recs}}}}
	data, _, err := EncodeOutsideCommand(req)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(data), `"nullValue":true`) != 1 {
		t.Fatalf("encoded %s", data)
	}
	sameEncode(t, req, outsideLimits)
	fast, ok := fastDecode(data, outsideLimits)
	if !ok || !reflect.DeepEqual(fast, req) {
		t.Errorf("fast path: %v %#v", ok, fast)
	}
	exact, err := DecodeCommand(data)
	if err != nil || !reflect.DeepEqual(exact, req) {
		t.Errorf("exact decoder: %v %#v", err, exact)
	}
	old := strings.Replace(string(data), `,"nullValue":true`, "", 1)
	for _, dec := range []func() (Command, bool){
		func() (Command, bool) { return fastDecode([]byte(old), outsideLimits) },
		func() (Command, bool) { c, err := DecodeCommand([]byte(old)); return c, err == nil },
	} {
		c, ok := dec()
		if !ok {
			t.Fatalf("an old line does not decode: %s", old)
		}
		if r := c.(BrokerRequest).Produce.Partitions[0].Records[0]; r.NullValue || r.Value != "" {
			t.Errorf("an old line reads %+v", r)
		}
	}

	ev := Event{Type: EvAppend, Broker: 1, Partition: "orders-0", Records: recs}
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	var back Event
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back.Records, recs) {
		t.Errorf("event round trip: %+v (%v) from %s", back.Records, err, b)
	}
}

// TestNullValueWithBytesRefused: a record that is null and has bytes
// (only a history line can say so) breaks log.Record's invariant, and
// its request is refused.
func TestNullValueWithBytesRefused(t *testing.T) {
	req := &ProduceRequest{Partitions: []ProducePartition{{Topic: "t", Records: []log.Record{{Value: "x", NullValue: true}}}}}
	if err := checkProduce(req); err == nil || !strings.Contains(err.Error(), "null value") {
		t.Errorf("checkProduce: %v", err)
	}
	req.Partitions[0].Records[0].Value = ""
	if err := checkProduce(req); err != nil {
		t.Errorf("a null value: %v", err)
	}
}
