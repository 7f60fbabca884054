package core

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core/internal/strictjson"
	"github.com/kafkasim/kafkasim/core/log"
)

// TestFastEncodeFields: the fast encoder writes these fields, in this
// order, with these omitempty rules (cmdjson_outside_fast.go); a field
// added to one of the types fails here until the encoder writes it too.
// None of the types encodes itself (json.Marshaler), which would bypass
// what the fast encoder assumes.
func TestFastEncodeFields(t *testing.T) {
	for _, tc := range []struct {
		v    any
		tags string
	}{
		{OpenConn{}, "conn host,omitempty broker"},
		{CloseConn{}, "conn"},
		{BrokerRequest{}, "conn correlation label,omitempty produce,omitempty fetch,omitempty metadata,omitempty listOffsets,omitempty " +
			"offsetForLeaderEpoch,omitempty initProducerId,omitempty findCoordinator,omitempty offsetCommit,omitempty offsetFetch,omitempty " +
			"joinGroup,omitempty syncGroup,omitempty heartbeat,omitempty leaveGroup,omitempty deleteTopics,omitempty deleteGroups,omitempty deleteRecords,omitempty offsetDelete,omitempty other,omitempty"},
		{ProduceRequest{}, "acks timeoutMs partitions"},
		{ProducePartition{}, "topic partition producerId producerEpoch baseSequence timestamp,omitempty records"},
		{log.Record{}, "key,omitempty value nullValue,omitempty hasKey,omitempty timestampDelta,omitempty headers,omitempty"},
		{log.Header{}, "key value,omitempty null,omitempty"},
		{FetchRequest{}, "maxWaitMs minBytes maxBytes byTopicId,omitempty partitions"},
		{FetchPartition{}, "topic partition fetchOffset currentLeaderEpoch partitionMaxBytes topicId,omitzero"},
	} {
		typ := reflect.TypeOf(tc.v)
		var tags []string
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			if !f.IsExported() || f.Tag.Get("json") == "-" {
				continue // neither encoder writes it (ProducePartition.Packed)
			}
			tags = append(tags, f.Tag.Get("json"))
		}
		if got := strings.Join(tags, " "); got != tc.tags {
			t.Errorf("%s's fields are tagged\n  %s\nthe fast encoder writes\n  %s", typ, got, tc.tags)
		}
		marshaler := reflect.TypeOf((*json.Marshaler)(nil)).Elem()
		if typ.Implements(marshaler) || reflect.PointerTo(typ).Implements(marshaler) {
			t.Errorf("%s implements json.Marshaler", typ)
		}
	}
}

// trickyStrings need every rule of encoding/json's string escaping, and
// the Latin-1 form of `outside bytes` lines.
var trickyStrings = []string{
	"", "a", "orders", `"`, `\`, "\b\f\n\r\t", "\x00\x01\x1f", " ~\x7f", "<>&", "\u2028\u2029", "\u0080\u009f\u00a0\u00ff",
	"é中文✓", "😀", "\uFFFD", "a\xffb", "\xc3", "\xe2\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\x80\xbf", "\xc2\x85", "\xe2\x80\xa8",
	`a "quoted" # not a comment \ value`, "k\"#", "tab\there \\ \u00e9\u4e16 \u2028",
}

// fill sets v (and everything under it) to values from r: tricky or
// random strings, edge integers, nil, empty and full slices, nil and
// set pointers.
func fill(v reflect.Value, r *rand.Rand, depth int) {
	switch v.Kind() {
	case reflect.String:
		switch r.Intn(4) {
		case 0:
			b := make([]byte, r.Intn(12))
			r.Read(b)
			v.SetString(string(b))
		default:
			v.SetString(trickyStrings[r.Intn(len(trickyStrings))])
		}
	case reflect.Bool:
		v.SetBool(r.Intn(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		bits := v.Type().Bits()
		switch r.Intn(5) {
		case 0:
			v.SetInt(0)
		case 1:
			v.SetInt(-1)
		case 2:
			v.SetInt(math.MaxInt64 >> (64 - bits))
		case 3:
			v.SetInt(math.MinInt64 >> (64 - bits))
		default:
			v.SetInt(int64(r.Uint64()) >> (64 - bits))
		}
	case reflect.Pointer:
		if depth > 6 || r.Intn(4) == 0 {
			return
		}
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), r, depth+1)
		v.Set(p)
	case reflect.Slice:
		switch n := r.Intn(6); {
		case n == 0 || depth > 6:
		case n == 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		default:
			s := reflect.MakeSlice(v.Type(), n-1, n-1)
			for i := 0; i < s.Len(); i++ {
				fill(s.Index(i), r, depth+1)
			}
			v.Set(s)
		}
	case reflect.Map:
		if r.Intn(3) == 0 || depth > 6 {
			return
		}
		m := reflect.MakeMap(v.Type())
		for i := r.Intn(3); i >= 0; i-- {
			k := reflect.New(v.Type().Key()).Elem()
			fill(k, r, depth+1)
			e := reflect.New(v.Type().Elem()).Elem()
			fill(e, r, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), r, depth+1)
			}
		}
	}
}

// sameEncode checks the fast encoder against the reflective one on cmd
// within lim: when the fast one encodes, the reflective one gives the
// same bytes and the same bytes flag; EncodeOutsideCommand always gives
// what the reflective one gives. It reports whether the fast one did.
func sameEncode(t *testing.T, cmd Command, lim strictjson.Limits) bool {
	t.Helper()
	fast, fastBytes, ok, fastErr := fastEncodeOutside(cmd, lim)
	if ok {
		fast = bytes.Clone(fast)
	}
	exact, exactBytes, err := encodeOutsideExact(cmd, lim)
	if ok {
		if (err == nil) != (fastErr == nil) || (err != nil && err.Error() != fastErr.Error()) {
			t.Fatalf("the fast encoder's error is %v, the reflective one's %v: %#v", fastErr, err, cmd)
		}
		if !bytes.Equal(fast, exact) || fastBytes != exactBytes {
			t.Fatalf("the fast encoder writes (bytes %v)\n  %s\nthe reflective one (bytes %v)\n  %s\nfor %#v", fastBytes, fast, exactBytes, exact, cmd)
		}
	}
	if lim == outsideLimits {
		got, gotBytes, gotErr := EncodeOutsideCommand(cmd)
		if !bytes.Equal(got, exact) || gotBytes != exactBytes || (gotErr == nil) != (err == nil) || (err != nil && gotErr.Error() != err.Error()) {
			t.Fatalf("EncodeOutsideCommand gives %s, %v, %v; the reflective encoder %s, %v, %v", got, gotBytes, gotErr, exact, exactBytes, err)
		}
	}
	return ok
}

// TestFastEncodeMatches: every outside command kind (each API's body),
// by value and by pointer, strings needing escapes, values that are not
// UTF-8 (`outside bytes`), nil and empty lists, a large batch and
// requests at and past each limit encode as the reflective encoder
// encodes them; the fast encoder does take the commands real clients
// send all the time.
func TestFastEncodeMatches(t *testing.T) {
	ts := int64(-5)
	records := func(n int, v string) []log.Record {
		rs := make([]log.Record, n)
		for i := range rs {
			rs[i] = log.Record{Value: v + strconv.Itoa(i), TimestampDelta: int64(i % 7)}
		}
		return rs
	}
	produce := func(rs []log.Record) BrokerRequest {
		return BrokerRequest{Conn: "kafka-1", Correlation: 3, Label: "Produce v9 kgo/v1.22.3", Produce: &ProduceRequest{Acks: -1, TimeoutMs: 30000,
			Partitions: []ProducePartition{{Topic: "orders", Partition: 5, ProducerID: 1 << 40, ProducerEpoch: 2, BaseSequence: 99, Timestamp: &ts, Records: rs}}}}
	}
	fetch := BrokerRequest{Conn: "kafka-2", Correlation: math.MinInt32, Label: "Fetch v12 kgo/v1.22.3", Fetch: &FetchRequest{MaxWaitMs: 500, MinBytes: 1, MaxBytes: 50 << 20,
		Partitions: []FetchPartition{{Topic: "orders", Partition: 0, FetchOffset: 1 << 50, CurrentLeaderEpoch: -1, PartitionMaxBytes: 1 << 20}, {Topic: "é\u2028"}}}}
	byID := BrokerRequest{Conn: "kafka-3", Label: "Fetch v17 kgo/v1.22.3", Fetch: &FetchRequest{MaxWaitMs: 500, ByTopicID: true,
		Partitions: []FetchPartition{{Topic: "orders", TopicID: [16]byte{0: 1, 7: 255, 15: 9}}, {TopicID: [16]byte{3: 128}}, {Topic: "zero id"}}}}
	cases := []struct {
		cmd  Command
		fast bool
	}{
		{OpenConn{Conn: "kafka-1", Host: "kgo@127.0.0.1:5000", Broker: 2}, true},
		{OpenConn{Conn: "kafka-1"}, true},
		{&OpenConn{Conn: "a\xff", Host: "\x00", Broker: -7}, true},
		{(*OpenConn)(nil), false},
		{CloseConn{Conn: "kafka-1"}, true},
		{&CloseConn{}, true},
		{(*CloseConn)(nil), false},
		{BrokerRequest{}, true},
		{&fetch, true},
		{fetch, true},
		{byID, true},
		{(*BrokerRequest)(nil), false},
		{BrokerRequest{Fetch: &FetchRequest{}}, true},
		{BrokerRequest{Fetch: &FetchRequest{Partitions: []FetchPartition{}}}, true},
		{BrokerRequest{Produce: &ProduceRequest{}}, true},
		{BrokerRequest{Produce: &ProduceRequest{Partitions: []ProducePartition{{}, {Records: []log.Record{}}}}}, true},
		{produce(nil), true},
		{produce([]log.Record{{Key: "k", HasKey: true, Value: ""}, {HasKey: true}, {Headers: []log.Header{}}, {Headers: []log.Header{{}, {Key: "h", Value: "v"}, {Key: "n", Null: true}}}}), true},
		{produce(records(3000, "storm-")), true},
		{produce(records(1000, "\x80\xff\x7f\"\\\n")), true},
		{produce(append(records(10, "ok"), log.Record{Value: "ok", Headers: []log.Header{{Key: "bin", Value: "\x00\xfe"}}})), true},
		{produce(records(1, strings.Repeat("x", MaxOutsideCommandBytes-400))), true},
		{produce(records(1, strings.Repeat("x", MaxOutsideCommandBytes))), false},                                        // string past the limit
		{produce(records(1, strings.Repeat("\xff", MaxOutsideCommandBytes/2+1))), false},                                 // as Latin-1, past the limit
		{produce(records(1, strings.Repeat(`"`, MaxOutsideCommandBytes/2))), true},                                       // the JSON past the limit
		{produce(records(12000, strings.Repeat("x", 100))), true},                                                        // a 1 MB batch of small records
		{produce(records(6000, strings.Repeat("\xff", 100))), true},                                                      // the same as bytes
		{produce(append(records(12000, "x"), log.Record{Value: strings.Repeat("\xff", MaxOutsideCommandBytes)})), false}, // a string too long, and the JSON
		{produce(records(MaxOutsideCommandItems+1, "")), false},                                                          // too many records
		{BrokerRequest{Conn: "c", Metadata: &MetadataRequest{Topics: []string{"a"}}}, false},                             // another API
	}
	for _, s := range trickyStrings {
		cases = append(cases, struct {
			cmd  Command
			fast bool
		}{produce([]log.Record{{Key: s, Value: s, Headers: []log.Header{{Key: s, Value: s}}}}), true})
	}
	// One request of each other API, for the reflective encoder.
	rt := reflect.TypeOf(BrokerRequest{})
	r := rand.New(rand.NewSource(1))
	for i := 0; i < rt.NumField(); i++ {
		f := rt.Field(i)
		if f.Type.Kind() != reflect.Pointer || f.Name == "Produce" || f.Name == "Fetch" {
			continue
		}
		var req BrokerRequest
		v := reflect.ValueOf(&req).Elem().Field(i)
		v.Set(reflect.New(f.Type.Elem()))
		fill(v.Elem(), r, 1)
		cases = append(cases, struct {
			cmd  Command
			fast bool
		}{req, false})
	}
	for i, tc := range cases {
		if got := sameEncode(t, tc.cmd, outsideLimits); got != tc.fast {
			t.Errorf("case %d (%T): fast path %v, want %v", i, tc.cmd, got, tc.fast)
		}
	}
	// A lower limit on items, as the decoder's tests use.
	if sameEncode(t, produce(records(11, "v")), strictLimitsItems(10)) {
		t.Error("the fast encoder took more items than the limit")
	}
	if !sameEncode(t, produce(records(10, "v")), strictLimitsItems(10)) {
		t.Error("the fast encoder gave up on a request within the limit")
	}
}

// TestFastEncodeRandom: random requests of every shape (every field
// filled by reflection, so a new field is covered) encode the same.
func TestFastEncodeRandom(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	fast := 0
	for i := 0; i < 3000; i++ {
		var req BrokerRequest
		fill(reflect.ValueOf(&req).Elem(), r, 0)
		if i%4 != 0 { // mostly the fast path's shapes
			p, f := req.Produce, req.Fetch
			req = BrokerRequest{Conn: req.Conn, Correlation: req.Correlation, Label: req.Label, Produce: p, Fetch: f}
		}
		if sameEncode(t, req, outsideLimits) {
			fast++
		}
		var oc OpenConn
		fill(reflect.ValueOf(&oc).Elem(), r, 0)
		sameEncode(t, oc, outsideLimits)
	}
	if fast < 2000 {
		t.Fatalf("the fast encoder took %d of 3000 requests", fast)
	}
}

// FuzzFastEncode: a Produce and a Fetch request made of the fuzzer's
// strings and numbers encode the same by both encoders.
func FuzzFastEncode(f *testing.F) {
	for i, s := range trickyStrings {
		f.Add(s, trickyStrings[(i+1)%len(trickyStrings)], "orders", int64(i), uint16(i*7))
	}
	f.Fuzz(func(t *testing.T, key, value, topic string, n int64, shape uint16) {
		ts := n
		rec := log.Record{Key: key, Value: value, HasKey: shape&1 != 0, TimestampDelta: n}
		if shape&2 != 0 {
			rec.Headers = []log.Header{{Key: value, Value: key, Null: shape&4 != 0}}
		}
		if shape&8 != 0 {
			rec.Headers = []log.Header{}
		}
		recs := make([]log.Record, int(shape>>8)%40)
		for i := range recs {
			recs[i] = rec
		}
		if shape&16 != 0 {
			recs = nil
		}
		pp := ProducePartition{Topic: topic, Partition: int32(n), ProducerID: -n, ProducerEpoch: int16(n), BaseSequence: int32(n >> 32), Records: recs}
		if shape&32 != 0 {
			pp.Timestamp = &ts
		}
		req := BrokerRequest{Conn: key, Correlation: int32(n), Label: topic, Produce: &ProduceRequest{Acks: int16(shape), TimeoutMs: int32(n), Partitions: []ProducePartition{pp}}}
		if shape&64 != 0 {
			req.Fetch = &FetchRequest{MaxWaitMs: int32(n), Partitions: []FetchPartition{{Topic: topic, FetchOffset: n, CurrentLeaderEpoch: -1}}}
		}
		if shape&128 != 0 {
			req.Produce = nil
		}
		if !sameEncode(t, req, outsideLimits) {
			t.Fatalf("the fast encoder gave up on %#v", req)
		}
		sameEncode(t, OpenConn{Conn: key, Host: value, Broker: int(n)}, outsideLimits)
		sameEncode(t, CloseConn{Conn: topic}, outsideLimits)
	})
}

// BenchmarkEncodeOutsideProduce: a real client's Produce request of 200
// records as the room writes it, by the fast encoder and by the
// reflective one.
func BenchmarkEncodeOutsideProduce(b *testing.B) {
	ts := int64(1_700_000_000_000)
	req := BrokerRequest{Conn: "kafka-1", Correlation: 7, Label: "Produce v9 kgo/v1.22.3", Produce: &ProduceRequest{Acks: -1, TimeoutMs: 30000,
		Partitions: []ProducePartition{{Topic: "orders", Partition: 2, ProducerID: 5, BaseSequence: 40, Timestamp: &ts}}}}
	for i := 0; i < 200; i++ {
		req.Produce.Partitions[0].Records = append(req.Produce.Partitions[0].Records, log.Record{Value: strings.Repeat("v", 90) + strconv.Itoa(i), TimestampDelta: int64(i / 10)})
	}
	for _, bc := range []struct {
		name string
		fn   func(Command) ([]byte, bool, error)
	}{{"fast", EncodeOutsideCommand}, {"reflect", func(c Command) ([]byte, bool, error) { return encodeOutsideExact(c, outsideLimits) }}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, _, err := bc.fn(req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
