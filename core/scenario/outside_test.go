package scenario

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/log"
)

// TestOutsideRoundTrip: every outside client's command writes as an
// `outside` line that parses back to the same command, including values
// a comment or a quote would break if the line were read as words.
func TestOutsideRoundTrip(t *testing.T) {
	ts := int64(1234)
	for _, cmd := range []core.Command{
		core.OpenConn{Conn: "kafka-1", Host: "kclient@127.0.0.1:50412", Broker: 2},
		core.CloseConn{Conn: "kafka-1"},
		core.BrokerRequest{Conn: "kafka-1", Correlation: 7, Label: "Produce v9 franz-go/1.22.3", Produce: &core.ProduceRequest{Acks: -1, TimeoutMs: 30000,
			Partitions: []core.ProducePartition{{Topic: "orders", ProducerID: -1, BaseSequence: -1, Timestamp: &ts,
				Records: []log.Record{{Value: `a "quoted" # not a comment \ value`, Key: "k", HasKey: true}, {Value: "中文 ✓", Headers: []log.Header{{Key: "h", Null: true}}}}}}}},
		core.BrokerRequest{Conn: "kafka-1", Correlation: 8, Fetch: &core.FetchRequest{MaxWaitMs: 500, MinBytes: 1, MaxBytes: 1 << 20,
			Partitions: []core.FetchPartition{{Topic: "orders", FetchOffset: 3, CurrentLeaderEpoch: -1, PartitionMaxBytes: 1 << 20}}}},
	} {
		outsideTrip(t, cmd)
	}
}

// outsideTrip formats cmd as a line and parses it back.
func outsideTrip(t *testing.T, cmd core.Command) string {
	t.Helper()
	{
		line, err := FormatCommand(cmd)
		if err != nil {
			t.Fatalf("%T: %v", cmd, err)
		}
		if !strings.HasPrefix(line, "outside {") && !strings.HasPrefix(line, "outside bytes {") {
			t.Fatalf("%T: %s", cmd, line)
		}
		st, err := ParseLine("  "+line+"  ", 3)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if !reflect.DeepEqual(st.Cmd, cmd) {
			t.Fatalf("round trip of %s:\n got %#v\nwant %#v", line, st.Cmd, cmd)
		}
		if st.Text != line {
			t.Fatalf("text %q, want %q", st.Text, line)
		}
		return line
	}
}

// TestOutsideBytesAndSize: a request whose values are not UTF-8 (a
// protobuf, say) writes as `outside bytes` and comes back byte for byte;
// one larger than a scenario line (a 1 MB batch of kcat -P) fits an
// outside line; past the outside limit formatting says so.
func TestOutsideBytesAndSize(t *testing.T) {
	bin := core.BrokerRequest{Conn: "k", Correlation: 1, Label: "Produce v9 kgo/1.0", Produce: &core.ProduceRequest{Acks: 1, Partitions: []core.ProducePartition{{Topic: "t中", ProducerID: -1,
		Records: []log.Record{{Key: "\x00\xff\xfe", HasKey: true, Value: "\x08\x96\x01 protobuf \xc3"}, {Value: "ok ✓"}}}}}}
	if line := outsideTrip(t, bin); !strings.HasPrefix(line, "outside bytes {") {
		t.Fatalf("binary values: %.80s", line)
	}
	var recs []log.Record
	for i := 0; i < 9000; i++ {
		recs = append(recs, log.Record{Value: strings.Repeat("v", 60) + strconv.Itoa(i)})
	}
	big := core.BrokerRequest{Conn: "k", Correlation: 2, Produce: &core.ProduceRequest{Acks: -1, Partitions: []core.ProducePartition{{Topic: "t", ProducerID: -1, Records: recs}}}}
	if line := outsideTrip(t, big); len(line) <= MaxLineBytes {
		t.Fatalf("the big request is %d bytes: the test needs more", len(line))
	}
	for len(recs) < 30000 {
		recs = append(recs, recs[:5000]...)
	}
	big.Produce.Partitions[0].Records = recs
	if _, err := FormatCommand(big); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("a request past the outside limit: %v", err)
	}
	if _, err := ParseLine(`outside bytes {"type":"conn_close","conn":"中"}`, 1); err == nil || !strings.Contains(err.Error(), "U+4E2D") {
		t.Fatalf("a character past U+00FF in bytes: %v", err)
	}
	if _, err := ParseLine("produce p1 t value="+strings.Repeat("x", MaxLineBytes), 1); err == nil || !strings.Contains(err.Error(), "line too long") {
		t.Fatalf("a long line of another verb: %v", err)
	}
}

// TestOutsideErrors: a bad `outside` line is a clear error with its
// column, never a panic, and commands with verbs of their own are refused.
func TestOutsideErrors(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"outside", "outside needs a command as JSON"},
		{"outside   ", "outside needs a command as JSON"},
		{`outside {"type":"produce","producer":"p1","topic":"t","value":"v"}`, "write it with its own verb"},
		{`outside {"type":"request","conn":"k","bogus":1}`, "unknown member"},
		{`outside {"type":"conn_open","conn":"k","broker":1} # a comment`, "outside:"},
		{`outside {"type":"conn_open"`, "outside:"},
		{`outside [1,2]`, "outside:"},
		{`outside {"type":"nope"}`, "unknown command type"},
	} {
		_, err := ParseLine(c.line, 1)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.line, err, c.want)
		}
		if e, ok := err.(*Error); !ok || e.Col < 1 {
			t.Errorf("%s: %T %v has no column", c.line, err, err)
		}
	}
	// `outsider` is another (unknown) verb, not outside.
	if _, err := ParseLine(`outsider {"type":"conn_close","conn":"k"}`, 1); err == nil || !strings.Contains(err.Error(), "unknown verb") {
		t.Errorf("outsider: %v", err)
	}
}

// TestOutsideRuns: a script of outside lines runs on the core as the
// protocol layer's commands do: the request is answered (its reply goes
// nowhere) and the record it carried is in the log.
func TestOutsideRuns(t *testing.T) {
	src := `cluster brokers=3 seed=3 version=3.9 metadata=kraft
topic create orders partitions=1 rf=3 assign=1,2,3
wait 1s
outside {"type":"conn_open","conn":"kafka-1","host":"kcat","broker":1}
wait 5ms
outside {"type":"request","conn":"kafka-1","correlation":1,"label":"Produce v9 kcat/1.7.1","produce":{"acks":-1,"timeoutMs":30000,"partitions":[{"topic":"orders","partition":0,"producerId":-1,"producerEpoch":-1,"baseSequence":-1,"records":[{"value":"from-kcat-#1"}]}]}}
wait 1s
expect hw orders-0 == 1
expect log orders-0 == from-kcat-#1
`
	sc, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	responses := 0
	res, err := Run(sc, RunOptions{NoTrace: true, OnEvent: func(e *core.Event) {
		if e.Type == core.EvResponse && e.Conn == "kafka-1" && e.Reply != nil && e.Reply.Correlation == 1 {
			responses++
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) > 0 || responses != 1 {
		t.Fatalf("failures %v, responses %d", res.Failures, responses)
	}
}
