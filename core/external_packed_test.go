package core_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/log"
	"github.com/kafkasim/kafkasim/internal/recordbatch"
)

// packedReq is produceReq with its records packed, as the protocol layer
// sends a real client's batch: Packed set, Records nil.
func packedReq(t *testing.T, conn string, corr int32, recs []log.Record) core.BrokerRequest {
	t.Helper()
	enc := recordbatch.Append(nil, &recordbatch.Batch{Records: recs}, func(ts int64) int64 { return ts })
	p, err := log.Pack(string(enc[recordbatch.Overhead:]), string(enc), len(recs), nil)
	if err != nil {
		t.Fatal(err)
	}
	return core.BrokerRequest{Conn: conn, Correlation: corr, Produce: &core.ProduceRequest{Acks: -1, TimeoutMs: 30000,
		Partitions: []core.ProducePartition{{Topic: "t", Partition: 0, ProducerID: -1, BaseSequence: -1, Packed: p}}}}
}

// TestExternalProducePacked: a produce whose records come packed is the
// same produce as one with the records: the same events (JSON and text),
// the same snapshot, the same command encodings (the JSON of the history
// and the command log has the records); only the log keeps the batch
// packed, and the events about it read the records when asked.
func TestExternalProducePacked(t *testing.T) {
	recs := []log.Record{{Key: "k", HasKey: true, Value: "a"}, {Value: "b", TimestampDelta: 3, Headers: []log.Header{{Key: "h", Value: "1"}, {Key: "n", Null: true}}}}
	run := func(packed bool) (*core.Cluster, []core.Event, core.BrokerRequest) {
		c := extCluster(t)
		apply(t, c, core.OpenConn{Conn: "k1", Broker: 1})
		req := core.BrokerRequest{Conn: "k1", Correlation: 7, Produce: &core.ProduceRequest{Acks: -1, TimeoutMs: 30000,
			Partitions: []core.ProducePartition{{Topic: "t", Partition: 0, ProducerID: -1, BaseSequence: -1, Records: recs}}}}
		if packed {
			req = packedReq(t, "k1", 7, recs)
		}
		apply(t, c, req)
		apply(t, c, fetchReq("k1", 8, 0, 0))
		advance(t, c, 1000)
		return c, c.Events(), req
	}
	pc, pevs, preq := run(true)
	uc, uevs, ureq := run(false)
	pj, err := json.Marshal(pevs)
	if err != nil {
		t.Fatal(err)
	}
	uj, _ := json.Marshal(uevs)
	if string(pj) != string(uj) {
		t.Errorf("events differ:\npacked   %s\nunpacked %s", pj, uj)
	}
	for i := range pevs {
		if pevs[i].Text() != uevs[i].Text() || !reflect.DeepEqual(pevs[i].RecordList(), uevs[i].RecordList()) {
			t.Errorf("event %d: %q, want %q", i, pevs[i].Text(), uevs[i].Text())
		}
	}
	if !reflect.DeepEqual(pc.Snapshot(), uc.Snapshot()) {
		t.Error("snapshots differ")
	}
	for name, enc := range map[string]func(core.Command) ([]byte, error){
		"outside": func(c core.Command) ([]byte, error) { b, _, err := core.EncodeOutsideCommand(c); return b, err },
		"command": core.EncodeCommand,
	} {
		pb, err1 := enc(preq)
		ub, err2 := enc(ureq)
		if err1 != nil || err2 != nil || string(pb) != string(ub) {
			t.Errorf("%s encoding: packed %s (%v), unpacked %s (%v)", name, pb, err1, ub, err2)
		}
	}
	r := pc.LeaderReplica(pc.Topic("t").Partitions()[0])
	bs := r.Log().Batches(0)
	if len(bs) != 1 || bs[0].Packed == nil || bs[0].Records != nil {
		t.Fatalf("the log holds %d batches, packed %v", len(bs), len(bs) == 1 && bs[0].Packed != nil)
	}
	var appends int
	for _, e := range pevs {
		if e.Type == core.EvAppend {
			appends++
			if e.Records != nil || !reflect.DeepEqual(e.RecordList(), recs) {
				t.Errorf("append event's records %+v (read: %+v)", e.Records, e.RecordList())
			}
		}
	}
	if appends != 3 {
		t.Errorf("%d append events, want 3", appends)
	}
}
