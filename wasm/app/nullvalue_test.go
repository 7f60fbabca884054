package app

import (
	"strings"
	"testing"
)

// nullScript has a real client produce a tombstone (a null value) and an
// empty value, as a room's history replays them.
const nullScript = `cluster brokers=3 seed=1 version=3.9 metadata=kraft
topic create t partitions=1 rf=3 assign=1,2,3
wait 2s
outside {"type":"conn_open","conn":"k1","host":"kgo","broker":1}
wait 10ms
outside {"type":"request","conn":"k1","correlation":1,"label":"Produce v9 kgo","produce":{"acks":-1,"timeoutMs":30000,"partitions":[{"topic":"t","partition":0,"producerId":-1,"producerEpoch":-1,"baseSequence":-1,"records":[{"key":"gone","value":"","nullValue":true,"hasKey":true},{"value":""}]}]}}
wait 1s
`

// TestNullValueShown: what learners see of a record with a null value
// reads "null" (as kafka-console-consumer prints it), not an empty value:
// the log's cells in the picture, the segments panel's records (which
// say nullValue, for the page to mark it), the event log's text and
// `describe`.
func TestNullValueShown(t *testing.T) {
	e := New()
	if ei := e.Load(nullScript); ei != nil {
		t.Fatal(ei.Msg)
	}
	if err := e.Advance(5_000); err != nil {
		t.Fatal(err)
	}
	sv, err := e.Segments("t-0", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(sv.Records) != 2 || !sv.Records[0].NullValue || sv.Records[1].NullValue {
		t.Fatalf("segments panel records %+v", sv.Records)
	}
	sc, err := e.CurrentScene()
	if err != nil {
		t.Fatal(err)
	}
	var cells []string
	for _, p := range sc.Partitions {
		for _, r := range p.Replicas {
			for _, c := range r.Cells {
				cells = append(cells, c.Value)
			}
		}
	}
	if len(cells) != 6 || cells[0] != "null" || cells[1] != "" {
		t.Errorf("cells %q, want null and an empty value on each of 3 replicas", cells)
	}
	c, _ := e.cluster()
	if d, err := c.Describe("t-0"); err != nil || !strings.Contains(d, " 0:null") || strings.Contains(d, " 1:null") {
		t.Errorf("describe t-0: %v\n%s", err, d)
	}
	found := false
	for _, ev := range e.sess.Driver().Events().Trace() {
		if ev.Type == "append" && ev.Broker == 1 {
			found = ev.Text() == "t-0@1 append null, at 0..1 (epoch 0, leader)" || found
		}
	}
	if !found {
		t.Error(`no append event reads "null,"`)
	}
}
