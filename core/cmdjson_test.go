package core

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core/log"
)

func cmdStrPtr(s string) *string { return &s }
func cmdIntPtr(i int) *int       { return &i }

// cmdSamples has one realistic value of every command kind.
func cmdSamples() []Command {
	return []Command{
		CreateTopic{Topic: "orders", Partitions: 3, RF: 2, Assign: [][]int{{1, 2}, {2, 3}, {3, 1}},
			Configs: map[string]string{"min.insync.replicas": "2", "segment.bytes": "1048576"}},
		AlterTopic{Topic: "orders", Partitions: 6},
		AlterTopicConfigs{Topic: "orders", Set: map[string]string{"retention.ms": "60000"}, Delete: []string{"segment.bytes"}},
		ElectLeaders{Election: ElectUnclean, Partitions: []string{"orders-0", "orders-2"}},
		DeleteRecords{Partition: "orders-1", Offset: -1},
		DeleteTopic{Topic: "orders"},
		Set{Configs: map[string]string{"replica.lag.time.max.ms": "10000", "net.latency.ms": "3"}},
		NewProducer{Name: "p1", Configs: map[string]string{"acks": "all", "partitioner": "roundrobin"}},
		Produce{Producer: "p1", Topic: "orders", Value: "m<1>&\"é\"", Key: cmdStrPtr("k1"), Partition: cmdIntPtr(0), Count: 3},
		NewConsumer{Name: "c1", Group: "g1", Topics: []string{"orders", "payments"}, Configs: map[string]string{"poll": "manual"}},
		Assign{Consumer: "c1", Partitions: []string{"orders-0", "orders-1"}},
		Poll{Consumer: "c1", Max: 10, Timeout: 5000},
		Commit{Consumer: "c1"},
		CloseConsumer{Consumer: "c1"},
		CrashConsumer{Consumer: "c2"},
		CrashBroker{Broker: 1},
		PowerOff{Broker: 2},
		Restart{Broker: 2},
		Pause{Broker: 3},
		Resume{Broker: 3},
		NetSplit{Groups: [][]string{{"1", "p1"}, {"2", "3", "zk"}}},
		NetHeal{},
		NetDelay{From: "1", To: "2", Delay: 250},
		NetDrop{From: "p1", To: "1", Count: 1},
		Wait{Duration: 1000},
		Settle{Max: 60000},
		OpenConn{Conn: "kc1", Host: "app", Broker: 2},
		CloseConn{Conn: "kc1"},
		BrokerRequest{Conn: "kc1", Correlation: 7, Produce: &ProduceRequest{Acks: -1, TimeoutMs: 30000,
			Partitions: []ProducePartition{{Topic: "orders", Partition: 1, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1,
				Records: []log.Record{{Key: "k", Value: "v", HasKey: true}, {Value: "w"}}}}}},
		BrokerRequest{Conn: "kc1", Correlation: 8, Fetch: &FetchRequest{MaxWaitMs: 500, MinBytes: 1, MaxBytes: 1 << 20,
			Partitions: []FetchPartition{{Topic: "orders", Partition: 1, FetchOffset: 4}}}},
		BrokerRequest{Conn: "kc1", Correlation: 9, SyncGroup: &SyncGroupRequest{Group: "g", MemberID: "m", Generation: 2,
			Assignments: map[string][]GroupPartition{"m": {{Topic: "orders", Partition: 0}}}}},
		BrokerRequest{Conn: "kc1", Correlation: 10, FindCoordinator: &FindCoordinatorRequest{Key: "g", KeyType: 0},
			Metadata: &MetadataRequest{Topics: []string{"orders"}, AllowAutoCreate: true}},
		BrokerRequest{Conn: "kc1", Correlation: 11, DeleteRecords: &DeleteRecordsRequest{TimeoutMs: 30000,
			Partitions: []DeleteRecordsPartition{{Topic: "orders", Partition: 1, Offset: -1}}}},
		BrokerRequest{Conn: "kc1", Correlation: 12, OffsetDelete: &OffsetDeleteRequest{Group: "g",
			Partitions: []GroupPartition{{Topic: "orders", Partition: 0}}}},
	}
}

func TestCommandRoundTrip(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range cmdSamples() {
		seen[c.Kind()] = true
		data, err := EncodeCommand(c)
		if err != nil {
			t.Fatalf("EncodeCommand(%#v): %v", c, err)
		}
		if prefix := fmt.Sprintf(`{"type":"%s"`, c.Kind()); !bytes.HasPrefix(data, []byte(prefix)) {
			t.Errorf("%s does not start with %s", data, prefix)
		}
		got, err := DecodeCommand(data)
		if err != nil {
			t.Fatalf("DecodeCommand(%s): %v", data, err)
		}
		if !reflect.DeepEqual(got, c) {
			t.Errorf("DecodeCommand(%s) = %#v, want %#v", data, got, c)
		}
	}
	if len(seen) != len(commandKinds) {
		t.Errorf("samples cover %d kinds, want %d", len(seen), len(commandKinds))
	}
}

func TestCommandEncodeExamples(t *testing.T) {
	for _, tc := range []struct {
		cmd  Command
		want string
	}{
		{Produce{Producer: "p1", Topic: "orders", Value: "m1", Count: 3}, `{"type":"produce","producer":"p1","topic":"orders","value":"m1","count":3}`},
		{&Wait{Duration: 5}, `{"type":"wait","duration":5}`},
		{NetHeal{}, `{"type":"net_heal"}`},
		{Settle{}, `{"type":"settle"}`},
		{Set{}, `{"type":"set","configs":null}`},
		{Assign{Consumer: "c1"}, `{"type":"assign","consumer":"c1","partitions":null}`},
	} {
		got, err := EncodeCommand(tc.cmd)
		if err != nil || string(got) != tc.want {
			t.Errorf("EncodeCommand(%#v) = %s, %v; want %s", tc.cmd, got, err, tc.want)
		}
	}
}

// TestCommandKindsCovered checks that every type with a Kind method in
// command.go and command_conn.go is in the codec's registry.
func TestCommandKindsCovered(t *testing.T) {
	var decls []ast.Decl
	for _, name := range []string{"command.go", "command_conn.go"} {
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Skipf("cannot read %s: %v", name, err)
		}
		decls = append(decls, f.Decls...)
	}
	n := 0
	for _, d := range decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != "Kind" || fd.Recv == nil {
			continue
		}
		id, ok := fd.Recv.List[0].Type.(*ast.Ident)
		if !ok {
			t.Errorf("Kind method on a pointer receiver: %s", fd.Recv.List[0].Type)
			continue
		}
		n++
		if !registeredCommand(id.Name) {
			t.Errorf("command %s is missing from commandKinds in cmdjson.go", id.Name)
		}
	}
	if n != len(commandKinds) {
		t.Errorf("command.go and command_conn.go have %d kinds, the codec %d", n, len(commandKinds))
	}
}

// registeredCommand reports whether the codec knows the type named typeName.
func registeredCommand(typeName string) bool {
	for typ := range schemaByType {
		if typ.Name() == typeName {
			return true
		}
	}
	return false
}

func TestDecodeCommandValues(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Command
	}{
		{`{"type":"produce","producer":"p1","topic":"orders","value":"m1","count":3}`,
			Produce{Producer: "p1", Topic: "orders", Value: "m1", Count: 3}},
		{` {"count":-0,"key":null,"partition":null,"type":"produce"} `, Produce{}},
		{`{"type":"produce","key":"","partition":0}`, Produce{Key: cmdStrPtr(""), Partition: cmdIntPtr(0)}},
		{`{"type":"topic_create","topic":"t","assign":[],"configs":{}}`, CreateTopic{Topic: "t"}},
		{`{"type":"topic_create","assign":[[],null,[1]],"configs":null}`, CreateTopic{Assign: [][]int{nil, nil, {1}}}},
		{`{"type":"net_split","groups":[["1"],["p\u0031","\ud800"]]}`, NetSplit{Groups: [][]string{{"1"}, {"p1", "\uFFFD"}}}},
		{`{"type":"wait","duration":9223372036854775807}`, Wait{Duration: 1<<63 - 1}},
		{"{\"type\":\"net_heal\"}\n\t", NetHeal{}},
	} {
		got, err := DecodeCommand([]byte(tc.in))
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("DecodeCommand(%s) = %#v, %v; want %#v", tc.in, got, err, tc.want)
		}
	}
}

func TestDecodeCommandErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{``, "unexpected end of JSON input"},
		{`   `, "unexpected end of JSON input"},
		{`null`, "must be a JSON object, not null"},
		{`[{"type":"net_heal"}]`, "must be a JSON object, not a list"},
		{`"net_heal"`, "must be a JSON object, not a string"},
		{`{"type":"net_heal"`, "unexpected end of JSON input"},
		{`{"type":"net_heal",}`, "not valid JSON at offset 20: invalid character '}' looking for beginning of object key string"},
		{`{"type":"net_heal"}{"type":"net_heal"}`, "unexpected data after the first JSON value at offset 19: a command is exactly one JSON object"},
		{`{"type":"net_heal"} x`, "unexpected data after the first JSON value at offset 20"},
		{`1.`, "not valid JSON at offset 2"},
		{`1 2`, "unexpected data after the first JSON value at offset 2"},
		{`{}`, `no "type" member; valid types are assign, close, commit, conn_close, conn_open, consumer, crash, crash_consumer, elect, net_delay, net_drop, net_heal, net_split, pause, poll, poweroff, produce, producer, records_delete, request, restart, resume, set, settle, topic_alter, topic_config, topic_create, topic_delete, wait`},
		{`{"type":"explode"}`, `unknown command type "explode"; valid types are assign,`},
		{`{"type":"Produce"}`, `unknown command type "Produce"`},
		{`{"type":3}`, `command field "type" must be a string, not a number (3)`},
		{`{"type":null}`, `field "type" must be a string, not null`},
		{`{"type":"wait","type":"wait"}`, `member "type" is given twice`},
		{`{"type":"wait","duration":1,"duration":2}`, `member "duration" is given twice`},
		{`{"type":"wait","Duration":1}`, `wait: unknown member "Duration" (members are type, duration)`},
		{`{"type":"net_heal","x":1}`, `net_heal: unknown member "x" (members are type, none)`},
		{`{"type":"wait","duration":"1s"}`, `wait: field "duration" must be an integer, not a string`},
		{`{"type":"wait","duration":1.5}`, `field "duration" must be an integer without fraction or exponent, not 1.5`},
		{`{"type":"wait","duration":1e3}`, `without fraction or exponent, not 1e3`},
		{`{"type":"wait","duration":1.0}`, `without fraction or exponent, not 1.0`},
		{`{"type":"wait","duration":9223372036854775808}`, `9223372036854775808 is out of range for a 64-bit integer`},
		{`{"type":"wait","duration":-1e999}`, `not -1e999`},
		{`{"type":"wait","duration":NaN}`, `not valid JSON at offset 27: invalid character 'N' looking for beginning of value`},
		{`{"type":"wait","duration":Infinity}`, `not valid JSON`},
		{`{"type":"wait","duration":null}`, `field "duration" must be an integer, not null`},
		{`{"type":"wait","duration":true}`, `must be an integer, not a boolean`},
		{`{"type":"produce","key":1}`, `field "key" must be a string or null, not a number (1)`},
		{`{"type":"produce","partition":"0"}`, `field "partition" must be an integer or null, not a string`},
		{`{"type":"assign","partitions":"orders-0"}`, `field "partitions" must be a list of strings, not a string`},
		{`{"type":"assign","partitions":["orders-0",1]}`, `field "partitions[1]" must be a string, not a number (1)`},
		{`{"type":"assign","partitions":[null]}`, `field "partitions[0]" must be a string, not null`},
		{`{"type":"topic_create","assign":[1]}`, `field "assign[0]" must be a list of integers, not a number (1)`},
		{`{"type":"topic_create","assign":[[1,[2]]]}`, `field "assign[0][1]" must be an integer, not a list`},
		{`{"type":"topic_create","configs":[]}`, `field "configs" must be an object with strings as values, not a list`},
		{`{"type":"set","configs":{"acks":1}}`, `field "configs.acks" must be a string, not a number (1)`},
		{`{"type":"set","configs":{"acks":"1","acks":"all"}}`, `field "configs" has key "acks" twice`},
		{`{"type":"net_split","groups":{"a":["1"]}}`, `field "groups" must be a list of lists of strings, not an object`},
		{"{\"type\":\"wait\xff\"}", "not valid UTF-8 (at byte 13)"},
		{"\uFEFF{\"type\":\"net_heal\"}", "starts with a byte order mark (U+FEFF)"},
		{`{"type":"wait","duration":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`, "exceeded max depth"},
		{`{"type":"wait","duration":` + strings.Repeat("9", 100) + `}`, "99999999999999999999999999999999999999... is out of range"},
		{`{"type":"produce","value":"` + strings.Repeat("x", MaxCommandBytes) + `"}`, "bytes, more than the limit of 65536"},
		{`{"type":"topic_create","assign":[` + strings.Repeat("[],", MaxCommandItems) + `[]]}`, `field "assign" has more than 10000 items (the limit)`},
		{`{"type":"` + strings.Repeat("é", 100) + `"}`, `unknown command type "éééééééééééééééééééé..."`},
	} {
		got, err := DecodeCommand([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("DecodeCommand(%s) = %#v, %v; want error containing %q", shorten(tc.in), got, err, tc.want)
		}
		if err != nil && len(err.Error()) > 600 {
			t.Errorf("DecodeCommand(%s): error of %d bytes is too long", shorten(tc.in), len(err.Error()))
		}
	}
}

func TestDecodeCommandListLimit(t *testing.T) {
	in := `{"type":"assign","consumer":"c1","partitions":[` + strings.Repeat(`"",`, MaxCommandItems-1) + `""]}`
	c, err := DecodeCommand([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(c.(Assign).Partitions); n != MaxCommandItems {
		t.Fatalf("got %d partitions, want %d", n, MaxCommandItems)
	}
}

func TestEncodeCommandErrors(t *testing.T) {
	big := map[string]string{}
	for i := 0; i <= MaxCommandItems; i++ {
		big[fmt.Sprint(i)] = ""
	}
	var nilWait *Wait
	for _, tc := range []struct {
		cmd  Command
		want string
	}{
		{nil, "cannot encode a nil command"},
		{nilWait, "cannot encode a nil *core.Wait"},
		{fakeCmd{}, "cannot encode core.fakeCmd: not a command type"},
		{Produce{Value: "a\xffb"}, `cannot encode produce: field "value" is not valid UTF-8`},
		{Set{Configs: map[string]string{"\xff": "1"}}, `field "configs key" is not valid UTF-8`},
		{Set{Configs: map[string]string{"acks": "\xff"}}, `field "configs.acks" is not valid UTF-8`},
		{Produce{Value: strings.Repeat("x", MaxCommandString+1)}, `field "value" is 65537 bytes long`},
		{Produce{Value: strings.Repeat(`"`, MaxCommandBytes/2)}, `produce: it is 65590 bytes as JSON, more than the limit of 65536`},
		{Set{Configs: big}, `field "configs" has more than 10000 keys`},
		{Assign{Partitions: make([]string, MaxCommandItems+1)}, `field "partitions" has more than 10000 items`},
		{NetSplit{Groups: [][]string{{"1"}, {"\xff"}}}, `field "groups[1][0]" is not valid UTF-8`},
	} {
		got, err := EncodeCommand(tc.cmd)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("EncodeCommand(%T) = %s, %v; want error containing %q", tc.cmd, shorten(string(got)), err, tc.want)
		}
	}
}

type fakeCmd struct{}

func (fakeCmd) Kind() string { return "wait" }

// TestCommandJSONApply drives a cluster with decoded commands only.
func TestCommandJSONApply(t *testing.T) {
	c, err := New(Options{Brokers: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	script := []string{
		`{"type":"topic_create","topic":"orders","partitions":1,"rf":3}`,
		`{"type":"producer","name":"p1","configs":{"acks":"all"}}`,
		`{"type":"wait","duration":10}`,
		`{"type":"produce","producer":"p1","topic":"orders","value":"m","count":3}`,
		`{"type":"settle"}`,
		`{"type":"consumer","name":"c1","configs":{"auto.offset.reset":"earliest","poll":"manual"}}`,
		`{"type":"assign","consumer":"c1","partitions":["orders-0"]}`,
		`{"type":"poll","consumer":"c1","timeout":2000}`,
	}
	for _, line := range script {
		cmd, err := DecodeCommand([]byte(line))
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if err := c.Exec(cmd); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	if got := c.History().ConsumedBy("c1"); len(got) != 3 {
		t.Errorf("c1 consumed %v, want m-1..m-3", got)
	}
}

// TestApplyHugeCounts: partition counts near the int limit are rejected,
// not placed (an overflowed limit check once tried to place 2^63 of them).
func TestApplyHugeCounts(t *testing.T) {
	c, err := New(Options{Brokers: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Apply(CreateTopic{Topic: "y", Partitions: 5, RF: 1}); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []Command{
		CreateTopic{Topic: "x", Partitions: math.MaxInt64, RF: 1},
		AlterTopic{Topic: "y", Partitions: math.MaxInt64 - 2},
		Poll{Consumer: "nobody", Timeout: math.MaxInt64},
		Wait{Duration: math.MaxInt64},
		Settle{Max: math.MaxInt64},
	} {
		if err := c.Apply(cmd); err == nil {
			t.Errorf("%s accepted: %+v", cmd.Kind(), cmd)
		}
	}
}

// shorten cuts s for a test message.
func shorten(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
