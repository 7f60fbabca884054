package core

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core/internal/strictjson"
	"github.com/kafkasim/kafkasim/core/log"
)

// fastSeeds are documents for the fast path: the FuzzDecodeCommand
// corpus, real clients' requests as the room writes them, and variants
// of them each exact decoder rule is about.
func fastSeeds(t testing.TB) [][]byte {
	var out [][]byte
	files, _ := filepath.Glob("testdata/fuzz/FuzzDecodeCommand/*")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if q, ok := strings.CutPrefix(line, "[]byte("); ok {
				if s, err := strconv.Unquote(strings.TrimSuffix(q, ")")); err == nil {
					out = append(out, []byte(s))
				}
			}
		}
	}
	ts := int64(1_700_000_000_000)
	reqs := []Command{
		BrokerRequest{Conn: "kafka-1", Correlation: 7, Label: "Produce v9 kgo/v1.22.3", Produce: &ProduceRequest{Acks: -1, TimeoutMs: 30000,
			Partitions: []ProducePartition{{Topic: "orders", Partition: 2, ProducerID: 5, BaseSequence: 40, Timestamp: &ts, Records: []log.Record{
				{Value: "storm-1-2", TimestampDelta: 3}, {Key: "k\"#", HasKey: true, Value: "tab\there \\ \u00e9\u4e16 \u2028", Headers: []log.Header{{Key: "h", Value: "v"}, {Key: "n", Null: true}}}}}}}},
		BrokerRequest{Conn: "kafka-2", Correlation: 1, Label: "Fetch v12 kgo/v1.22.3", Fetch: &FetchRequest{}},
		OpenConn{Conn: "kafka-1", Host: "kgo@127.0.0.1:5000", Broker: 2},
		CloseConn{Conn: "kafka-1"},
		CreateTopic{Topic: "t", Partitions: 3, RF: 2, Configs: map[string]string{"retention.ms": "1000", "a": ""}},
	}
	for _, c := range reqs {
		b, err := EncodeCommand(c)
		if err != nil {
			b, _, err = EncodeOutsideCommand(c)
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
		s := string(b)
		for _, v := range []string{
			strings.Replace(s, `{"type":"`+c.Kind()+`",`, `{"type":"`+c.Kind()+`" , `, 1),
			strings.Replace(s, `"conn":`, `"conn" :`, 1),
			strings.Replace(s, `"correlation":7`, `"correlation":7.0`, 1),
			strings.Replace(s, `"correlation":7`, `"correlation":1e1`, 1),
			strings.Replace(s, `"correlation":7`, `"correlation":07`, 1),
			strings.Replace(s, `"correlation":7`, `"correlation":-0`, 1),
			strings.Replace(s, `"correlation":7`, `"correlation":99999999999`, 1),
			strings.Replace(s, `"correlation":7`, `"correlation":null`, 1),
			strings.Replace(s, `"correlation":7`, `"correlation":"7"`, 1),
			strings.Replace(s, `"partition":2`, `"partition":2,"partition":3`, 1),
			strings.Replace(s, `"conn":"kafka-1"`, `"conn":"kafka-1","conn":"x"`, 1),
			strings.Replace(s, `"conn":"kafka-1"`, `"conn":"kafka-1","type":"x"`, 1),
			strings.Replace(s, `"conn":"kafka-1"`, `"conn":"kafka-1","bogus":1`, 1),
			strings.Replace(s, `"conn":"kafka-1"`, `"conn":"k\u0061\ud83d\ude00\ud800"`, 1),
			strings.Replace(s, `"conn":"kafka-1"`, `"conn":"\/\b\f\n\r\t\"\\"`, 1),
			strings.Replace(s, `"conn":"kafka-1"`, `"conn":"a\x01"`, 1),
			strings.Replace(s, `"conn":"kafka-1"`, `"conn":"a\q"`, 1),
			strings.Replace(s, `"records":[`, `"records":[ ]`+`,"x":[`, 1),
			strings.Replace(s, `"records":[`, `"records":null,"y":[`, 1),
			strings.Replace(s, `"headers":[`, `"headers":[null,`, 1),
			strings.Replace(s, `"hasKey":true`, `"hasKey":tru`, 1),
			strings.Replace(s, `"hasKey":true`, `"hasKey":null`, 1),
			strings.Replace(s, `"timestamp":`, `"timestamp":null,"z":`, 1),
			strings.Replace(s, `"configs":{`, `"configs":{"a":"1",`, 1),
			strings.Replace(s, `"configs":{`, `"configs":{"b":1,`, 1),
			strings.Replace(s, `"configs":{`, `"configs":{},"w":{`, 1),
			`{"conn":"x","type":"conn_close"}`,
			s + " \n",
			s + "{}",
			s + ",",
			"\ufeff" + s,
			" " + s,
			s[:len(s)-1],
			strings.Replace(s, `}`, `,}`, 1),
			strings.Replace(s, `[`, `[,`, 1),
			strings.Replace(s, `":`, `":[]`, 1),
		} {
			out = append(out, []byte(v))
		}
	}
	return out
}

// sameDecode checks the fast path against the exact decoder on data:
// when the fast path decodes, the exact one decodes the same command.
func sameDecode(t *testing.T, data []byte, lim bool) bool {
	l := limits
	if lim {
		l = outsideLimits
	}
	fast, ok := fastDecode(data, l)
	exact, err := decodeExact(data, l)
	if !ok {
		return false
	}
	if err != nil {
		t.Fatalf("the fast path decodes what the exact decoder refuses (%v):\n%s", err, data)
	}
	if !reflect.DeepEqual(fast, exact) {
		t.Fatalf("the fast path gives %#v, the exact decoder %#v:\n%s", fast, exact, data)
	}
	return true
}

// TestPlanMatchesDecode: on every seed the fast path either gives up or
// agrees with the exact decoder, and it does decode the documents the
// room writes.
func TestPlanMatchesDecode(t *testing.T) {
	fast := 0
	seeds := fastSeeds(t)
	for _, s := range seeds {
		for _, lim := range []bool{false, true} {
			if sameDecode(t, s, lim) {
				fast++
			}
		}
	}
	if fast < 20 {
		t.Fatalf("the fast path decoded %d of %d seeds", fast, 2*len(seeds))
	}
	big := BrokerRequest{Conn: "c", Produce: &ProduceRequest{Partitions: []ProducePartition{{Topic: "t"}}}}
	for i := 0; i < 3000; i++ {
		big.Produce.Partitions[0].Records = append(big.Produce.Partitions[0].Records, log.Record{Value: "v" + strconv.Itoa(i)})
	}
	b, _, err := EncodeOutsideCommand(big)
	if err != nil {
		t.Fatal(err)
	}
	if !sameDecode(t, b, true) {
		t.Fatal("the fast path gave up on a large produce request")
	}
	small := strictLimitsItems(10)
	if _, ok := fastDecode(b, small); ok {
		t.Fatal("the fast path took more items than the limit")
	}
}

// FuzzFastDecode: the fast path never decodes what the exact decoder
// refuses, nor anything else than it does.
func FuzzFastDecode(f *testing.F) {
	for _, s := range fastSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sameDecode(t, data, false)
		sameDecode(t, data, true)
	})
}

func strictLimitsItems(n int) (l strictjson.Limits) {
	l = outsideLimits
	l.Items = n
	return l
}

// BenchmarkDecodeOutsideProduce: a real client's Produce request of 200
// records as its `outside` line holds it, by the fast path and by the
// exact decoder alone.
func BenchmarkDecodeOutsideProduce(b *testing.B) {
	ts := int64(1_700_000_000_000)
	req := BrokerRequest{Conn: "kafka-1", Correlation: 7, Label: "Produce v9 kgo/v1.22.3", Produce: &ProduceRequest{Acks: -1, TimeoutMs: 30000,
		Partitions: []ProducePartition{{Topic: "orders", Partition: 2, ProducerID: 5, BaseSequence: 40, Timestamp: &ts}}}}
	for i := 0; i < 200; i++ {
		req.Produce.Partitions[0].Records = append(req.Produce.Partitions[0].Records, log.Record{Value: "storm-" + strconv.Itoa(i), TimestampDelta: int64(i / 10)})
	}
	data, _, err := EncodeOutsideCommand(req)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		fn   func([]byte, strictjson.Limits) (Command, error)
	}{{"fast", decodeCommand}, {"exact", decodeExact}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				if _, err := bc.fn(data, outsideLimits); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
