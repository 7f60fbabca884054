package core_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/log"
)

// TestMinOutsideJSONIsABound: MinOutsideJSON is never more than what
// the records add to the JSON EncodeOutsideCommand writes, for records with and
// without keys, empty values, escapes, bytes that are not UTF-8
// (`outside bytes`), headers, packed or not; it is exact for the
// smallest records (an empty value, nothing else set), and 0 for
// commands other than Produce.
func TestMinOutsideJSONIsABound(t *testing.T) {
	sets := [][]log.Record{
		{{Value: ""}},
		{{Value: ""}, {Value: ""}, {Value: ""}},
		{{Key: "k", HasKey: true, Value: "v"}, {Value: "x"}},
		{{Key: "\"\\\n", Value: "\x00\x01<>&\u2028"}},
		{{Key: "\xff\xfe", Value: "\x80latin"}},
		{{Value: "v", TimestampDelta: -3, Headers: []log.Header{{Key: "h", Value: "1"}, {Key: "n", Null: true}}}},
		{{Value: strings.Repeat("x", 100), Key: "123"}, {Value: strings.Repeat("é", 50)}},
	}
	// The fields of packedReq's request, so that only the records differ.
	withRecords := func(recs []log.Record) core.BrokerRequest {
		return core.BrokerRequest{Conn: "k1", Correlation: 1, Produce: &core.ProduceRequest{Acks: -1, TimeoutMs: 30000,
			Partitions: []core.ProducePartition{{Topic: "t", Partition: 0, ProducerID: -1, BaseSequence: -1, Records: recs}}}}
	}
	empty := withRecords([]log.Record{})
	base, _, err := core.EncodeOutsideCommand(empty)
	if err != nil || !strings.Contains(string(base), `"records":[]`) {
		t.Fatalf("%s, %v", base, err)
	}
	for i, recs := range sets {
		for _, packed := range []bool{false, true} {
			req := withRecords(recs)
			if packed {
				req = packedReq(t, "k1", 1, recs)
			}
			b, _, err := core.EncodeOutsideCommand(req)
			if err != nil {
				t.Fatal(err)
			}
			min := core.MinOutsideJSON(req)
			if recsJSON := len(b) - len(base); min > recsJSON || min == 0 {
				t.Errorf("set %d (packed %v): MinOutsideJSON %d, the records add %d bytes of JSON: %s", i, packed, min, recsJSON, b)
			}
			if i == 0 && !strings.Contains(string(b), `"records":[{"value":""}]`) {
				t.Errorf("the smallest record is not %q as JSON: %s", `{"value":""}`, b)
			}
			if p := core.MinOutsideJSON(&req); p != min {
				t.Errorf("MinOutsideJSON of a pointer %d, of the value %d", p, min)
			}
		}
	}
	for _, cmd := range []core.Command{core.OpenConn{Conn: "k1", Broker: 1}, core.BrokerRequest{Conn: "k1"},
		core.BrokerRequest{Conn: "k1", Fetch: &core.FetchRequest{MaxWaitMs: 500}}, (*core.BrokerRequest)(nil)} {
		if n := core.MinOutsideJSON(cmd); n != 0 {
			t.Errorf("MinOutsideJSON(%#v) = %d, want 0", cmd, n)
		}
	}
}

// TestMinOutsideJSONPastTheLimit: a packed produce request whose keys
// and values alone pass MaxOutsideCommandBytes (franz-go's first request
// after buffering) has a bound past it, and EncodeOutsideCommand indeed
// refuses it.
func TestMinOutsideJSONPastTheLimit(t *testing.T) {
	recs := make([]log.Record, 12_000)
	for i := range recs {
		recs[i] = log.Record{Key: strconv.Itoa(i), HasKey: true, Value: strings.Repeat("x", 100)}
	}
	req := packedReq(t, "k1", 1, recs)
	if n := core.MinOutsideJSON(req); n <= core.MaxOutsideCommandBytes {
		t.Fatalf("MinOutsideJSON %d for 12,000 records of 100 bytes, not past %d", n, core.MaxOutsideCommandBytes)
	}
	if _, _, err := core.EncodeOutsideCommand(req); err == nil {
		t.Fatal("EncodeOutsideCommand encoded a request past its limit")
	}
}
