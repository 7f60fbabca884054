package app

import (
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/log"
	"github.com/kafkasim/kafkasim/core/scenario"
)

// TestSceneCountsOutsideClients: the picture's counters (records
// produced, acked, consumed) count a real client's records, as the
// room's history replays them: a Produce of three records to one leader
// and one to a partition that does not exist, then a Fetch of the three.
func TestSceneCountsOutsideClients(t *testing.T) {
	lines := []string{"cluster brokers=3 seed=2 version=3.9 metadata=kraft", "topic create orders partitions=1 rf=3 assign=1,2,3", "wait 2s"}
	add := func(cmd core.Command) {
		l, err := scenario.FormatCommand(cmd)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l, "wait 500ms")
	}
	add(core.OpenConn{Conn: "kafka-1", Host: "kcat-127.0.0.1-5000", Broker: 1})
	recs := []log.Record{{Value: "a"}, {Value: "b"}, {Value: "c"}}
	add(core.BrokerRequest{Conn: "kafka-1", Correlation: 1, Label: "Produce v7 librdkafka/2.0.2", Produce: &core.ProduceRequest{Acks: -1, TimeoutMs: 5000,
		Partitions: []core.ProducePartition{{Topic: "orders", Partition: 0, ProducerID: -1, BaseSequence: -1, Records: recs}, {Topic: "nope", Partition: 0, ProducerID: -1, BaseSequence: -1, Records: recs[:1]}}}})
	add(core.BrokerRequest{Conn: "kafka-1", Correlation: 2, Label: "Fetch v11 librdkafka/2.0.2", Fetch: &core.FetchRequest{MaxWaitMs: 100, MinBytes: 1, MaxBytes: 1 << 20,
		Partitions: []core.FetchPartition{{Topic: "orders", Partition: 0, FetchOffset: 0, CurrentLeaderEpoch: -1, PartitionMaxBytes: 1 << 20}}}})
	e := New()
	if ei := e.Load(strings.Join(lines, "\n") + "\n"); ei != nil {
		t.Fatal(ei.Msg)
	}
	if err := e.Advance(5000); err != nil {
		t.Fatal(err)
	}
	for _, r := range e.sess.Driver().Results() {
		if r.Error != "" {
			t.Fatalf("step %d: %s", r.Index, r.Error)
		}
	}
	sc, err := e.Scene(SceneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c := sc.Counters; c.Produced != 4 || c.Acked != 3 || c.Consumed != 3 {
		t.Fatalf("counters: produced %d, acked %d, consumed %d; want 4, 3, 3", c.Produced, c.Acked, c.Consumed)
	}
}
