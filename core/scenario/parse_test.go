package scenario

import (
	"reflect"
	"testing"

	"github.com/kafkasim/kafkasim/core"
)

func ptr[T any](v T) *T { return &v }

// cmdTests maps one line to the command it must parse to.
var cmdTests = []struct {
	line string
	want core.Command
}{
	{"set replica.lag.time.max.ms=10000", core.Set{Configs: map[string]string{"replica.lag.time.max.ms": "10000"}}},
	{"set min.insync.replicas=2 unclean.leader.election.enable=true acks=all",
		core.Set{Configs: map[string]string{"min.insync.replicas": "2", "unclean.leader.election.enable": "true", "acks": "all"}}},
	{"topic create orders partitions=3 rf=3", core.CreateTopic{Topic: "orders", Partitions: 3, RF: 3}},
	{"topic create my-topic.v2 partitions=2 rf=3 min.insync.replicas=2 assign=1,2,3/2,3,1 segment.bytes=1024",
		core.CreateTopic{Topic: "my-topic.v2", Partitions: 2, RF: 3, Assign: [][]int{{1, 2, 3}, {2, 3, 1}},
			Configs: map[string]string{"min.insync.replicas": "2", "segment.bytes": "1024"}}},
	{"topic alter orders partitions=6", core.AlterTopic{Topic: "orders", Partitions: 6}},
	{"topic config orders retention.ms=60000 unclean.leader.election.enable=true delete=segment.bytes,min.insync.replicas",
		core.AlterTopicConfigs{Topic: "orders", Set: map[string]string{"retention.ms": "60000", "unclean.leader.election.enable": "true"},
			Delete: []string{"segment.bytes", "min.insync.replicas"}}},
	{"elect preferred", core.ElectLeaders{Election: "preferred"}},
	{"records delete orders-1 5", core.DeleteRecords{Partition: "orders-1", Offset: 5}},
	{"records delete orders-0 -1", core.DeleteRecords{Partition: "orders-0", Offset: -1}},
	{"elect unclean orders-0,orders-2", core.ElectLeaders{Election: "unclean", Partitions: []string{"orders-0", "orders-2"}}},
	{"topic config orders delete=retention.ms", core.AlterTopicConfigs{Topic: "orders", Delete: []string{"retention.ms"}}},
	{"producer p1", core.NewProducer{Name: "p1"}},
	{"producer p1 acks=all retries=0 max.in.flight=5 idempotence=false linger.ms=10 partitioner=sticky batch.size=100",
		core.NewProducer{Name: "p1", Configs: map[string]string{
			"acks": "all", "retries": "0", "max.in.flight.requests.per.connection": "5",
			"enable.idempotence": "false", "linger.ms": "10", "partitioner": "sticky", "batch.size": "100"}}},
	{"producer p2 acks=-1 enable.idempotence=true", core.NewProducer{Name: "p2", Configs: map[string]string{"acks": "-1", "enable.idempotence": "true"}}},
	{"producer 生产者 acks=0", core.NewProducer{Name: "生产者", Configs: map[string]string{"acks": "0"}}},
	{"produce p1 orders value=m", core.Produce{Producer: "p1", Topic: "orders", Value: "m"}},
	{"produce p1 orders value=m key=k partition=2 count=5",
		core.Produce{Producer: "p1", Topic: "orders", Value: "m", Key: ptr("k"), Partition: ptr(2), Count: 5}},
	{"produce p1 orders value=a#b key=x=y", core.Produce{Producer: "p1", Topic: "orders", Value: "a#b", Key: ptr("x=y")}},
	{"consumer c1", core.NewConsumer{Name: "c1"}},
	{"consumer c1 group=g1 assignor=cooperative-sticky auto.commit=false auto.commit.interval.ms=100 offset.reset=earliest session.timeout.ms=6000 poll=manual max.poll.records=2",
		core.NewConsumer{Name: "c1", Group: "g1", Configs: map[string]string{
			"partition.assignment.strategy": "cooperative-sticky", "enable.auto.commit": "false",
			"auto.commit.interval.ms": "100", "auto.offset.reset": "earliest", "session.timeout.ms": "6000",
			"poll": "manual", "max.poll.records": "2"}}},
	{"assign c1 orders-0", core.Assign{Consumer: "c1", Partitions: []string{"orders-0"}}},
	{"assign c1 orders-0,my-topic-2", core.Assign{Consumer: "c1", Partitions: []string{"orders-0", "my-topic-2"}}},
	{"poll c1", core.Poll{Consumer: "c1"}},
	{"poll c1 max=10 timeout=2s", core.Poll{Consumer: "c1", Max: 10, Timeout: 2000}},
	{"commit c1", core.Commit{Consumer: "c1"}},
	{"close c1", core.CloseConsumer{Consumer: "c1"}},
	{"crash consumer c1", core.CrashConsumer{Consumer: "c1"}},
	{"crash broker 1", core.CrashBroker{Broker: 1}},
	{"poweroff broker 2", core.PowerOff{Broker: 2}},
	{"restart broker 3", core.Restart{Broker: 3}},
	{"pause broker 64", core.Pause{Broker: 64}},
	{"resume broker 4", core.Resume{Broker: 4}},
	{"net split 1,2 | 3", core.NetSplit{Groups: [][]string{{"1", "2"}, {"3"}}}},
	{"net split 1,p1|2,3", core.NetSplit{Groups: [][]string{{"1", "p1"}, {"2", "3"}}}},
	{"net split 1 |2| zk,controller", core.NetSplit{Groups: [][]string{{"1"}, {"2"}, {"zk", "controller"}}}},
	{"net heal", core.NetHeal{}},
	{"net delay 1 2 250ms", core.NetDelay{From: "1", To: "2", Delay: 250}},
	{"net delay p1 zk 0", core.NetDelay{From: "p1", To: "zk", Delay: 0}},
	{"net drop p1 1 count=1", core.NetDrop{From: "p1", To: "1", Count: 1}},
	{"net drop 2 3", core.NetDrop{From: "2", To: "3"}},
	{"wait 10s", core.Wait{Duration: 10000}},
	{"wait 2m", core.Wait{Duration: 120000}},
	{"wait 0", core.Wait{}},
	{"wait 0ms", core.Wait{}},
	{"wait 1440m", core.Wait{Duration: 24 * 3600 * 1000}},
	{"settle", core.Settle{}},
	{"settle max=1m", core.Settle{Max: 60000}},
	{"\twait   1s\t# comment", core.Wait{Duration: 1000}},
	{"wait 1s #comment\r", core.Wait{Duration: 1000}},
	{"wait\u30001s", core.Wait{Duration: 1000}},
}

func TestCommands(t *testing.T) {
	for _, tt := range cmdTests {
		st, err := ParseLine(tt.line, 7)
		if err != nil {
			t.Errorf("%q: %v", tt.line, err)
			continue
		}
		if st.Line != 7 || st.Cmd == nil || st.Cluster != nil || st.Expect != nil || st.Print != nil {
			t.Errorf("%q: bad step %+v", tt.line, st)
			continue
		}
		if !reflect.DeepEqual(st.Cmd, tt.want) {
			t.Errorf("%q:\n got %#v\nwant %#v", tt.line, st.Cmd, tt.want)
		}
	}
}

func TestCluster(t *testing.T) {
	tests := []struct {
		line string
		want core.Options
	}{
		{"cluster brokers=3", core.Options{Brokers: 3}},
		{"cluster brokers=1 seed=0", core.Options{Brokers: 1}},
		{"cluster seed=18446744073709551615 brokers=64", core.Options{Brokers: 64, Seed: 1<<64 - 1}},
		{"cluster brokers=3 seed=42 version=0.8 metadata=zk racks=a,a,b",
			core.Options{Brokers: 3, Seed: 42, Version: "0.8", Metadata: "zk", Racks: []string{"a", "a", "b"}}},
		{"cluster brokers=2 version=4.0 metadata=kraft", core.Options{Brokers: 2, Version: "4.0", Metadata: "kraft"}},
		{"cluster brokers=2 version=0.11", core.Options{Brokers: 2, Version: "0.11"}},
		{"cluster brokers=2 version=2.8", core.Options{Brokers: 2, Version: "2.8"}},
		{"cluster brokers=2 version=3.9", core.Options{Brokers: 2, Version: "3.9"}},
	}
	for _, tt := range tests {
		st, err := ParseLine(tt.line, 1)
		if err != nil {
			t.Errorf("%q: %v", tt.line, err)
			continue
		}
		if st.Cluster == nil || st.Cmd != nil || !reflect.DeepEqual(*st.Cluster, tt.want) {
			t.Errorf("%q: got %+v, want %+v", tt.line, st.Cluster, tt.want)
		}
	}
}

func TestExpect(t *testing.T) {
	tests := []struct {
		line string
		want Expect
	}{
		{"expect leader orders-0 == 2", Expect{Kind: "leader", Target: "orders-0", Op: "==", Want: "2", List: []string{"2"}, Col: 27}},
		{"expect leader orders-0 == none", Expect{Kind: "leader", Target: "orders-0", Op: "==", Want: "none", None: true, Col: 27}},
		{"expect isr orders-0 == 1,2", Expect{Kind: "isr", Target: "orders-0", Op: "==", Want: "1,2", List: []string{"1", "2"}, Col: 24}},
		{"expect isr orders-0 == none", Expect{Kind: "isr", Target: "orders-0", Op: "==", Want: "none", None: true, Col: 24}},
		{"expect hw orders-0 == 4", Expect{Kind: "hw", Target: "orders-0", Op: "==", Want: "4", List: []string{"4"}, Col: 23}},
		{"expect leo orders-0@3 == 5", Expect{Kind: "leo", Target: "orders-0@3", Op: "==", Want: "5", List: []string{"5"}, Col: 26}},
		{"expect epoch orders-0 == 0", Expect{Kind: "epoch", Target: "orders-0", Op: "==", Want: "0", List: []string{"0"}, Col: 26}},
		{"expect acked p1 == m1,m2,m3", Expect{Kind: "acked", Target: "p1", Op: "==", Want: "m1,m2,m3", List: []string{"m1", "m2", "m3"}, Col: 20}},
		{"expect acked p1 == none", Expect{Kind: "acked", Target: "p1", Op: "==", Want: "none", None: true, Col: 20}},
		{"expect failed p1 m7 == NOT_ENOUGH_REPLICAS", Expect{Kind: "failed", Target: "p1", Arg: "m7", Op: "==",
			Want: "NOT_ENOUGH_REPLICAS", List: []string{"NOT_ENOUGH_REPLICAS"}, Col: 24}},
		{"expect failed p1 m7 == none", Expect{Kind: "failed", Target: "p1", Arg: "m7", Op: "==", Want: "none", None: true, Col: 24}},
		{"expect log orders-0 == m1,m2,m4,m5,m3", Expect{Kind: "log", Target: "orders-0", Op: "==", Want: "m1,m2,m4,m5,m3",
			List: []string{"m1", "m2", "m4", "m5", "m3"}, Col: 24}},
		{"expect lost == m3", Expect{Kind: "lost", Op: "==", Want: "m3", List: []string{"m3"}, Col: 16}},
		{"expect lost == none # nothing lost", Expect{Kind: "lost", Op: "==", Want: "none", None: true, Col: 16}},
		{"expect consumed c1 == m1,m2,m2,m3", Expect{Kind: "consumed", Target: "c1", Op: "==", Want: "m1,m2,m2,m3",
			List: []string{"m1", "m2", "m2", "m3"}, Col: 23}},
		{"expect assignment g1 c1=orders-0,orders-1 c2=orders-2", Expect{Kind: "assignment", Target: "g1",
			Want: "c1=orders-0,orders-1 c2=orders-2", Col: 22, Members: []MemberAssignment{
				{"c1", []string{"orders-0", "orders-1"}}, {"c2", []string{"orders-2"}}}}},
		{"expect assignment g1 c1=orders-0 c3=", Expect{Kind: "assignment", Target: "g1",
			Want: "c1=orders-0 c3=", Col: 22, Members: []MemberAssignment{
				{"c1", []string{"orders-0"}}, {"c3", []string{}}}}},
		{"expect generation g1 == 3", Expect{Kind: "generation", Target: "g1", Op: "==", Want: "3", List: []string{"3"}, Col: 25}},
		{"expect committed g1 orders-0 == 4", Expect{Kind: "committed", Target: "g1", Arg: "orders-0", Op: "==", Want: "4",
			List: []string{"4"}, Col: 33}},
		{"expect committed g1 orders-0 == none", Expect{Kind: "committed", Target: "g1", Arg: "orders-0", Op: "==", Want: "none",
			None: true, Col: 33}},
		{`expect znode /brokers/topics/orders/partitions/0/state contains "isr":[1,2]`, Expect{Kind: "znode",
			Target: "/brokers/topics/orders/partitions/0/state", Op: "contains", Want: `"isr":[1,2]`, Col: 65}},
		{`expect znode /controller == {"brokerid":1}  # who leads`, Expect{Kind: "znode",
			Target: "/controller", Op: "==", Want: `{"brokerid":1}`, Col: 29}},
		{`expect znode / contains "a # b" c`, Expect{Kind: "znode", Target: "/", Op: "contains", Want: `"a # b" c`, Col: 25}},
		{`expect znode /x contains "open # no comment`, Expect{Kind: "znode", Target: "/x", Op: "contains", Want: `"open # no comment`, Col: 26}},
	}
	for _, tt := range tests {
		st, err := ParseLine(tt.line, 3)
		if err != nil {
			t.Errorf("%q: %v", tt.line, err)
			continue
		}
		if st.Expect == nil || st.Cmd != nil || !reflect.DeepEqual(*st.Expect, tt.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tt.line, st.Expect, tt.want)
		}
	}
}

func TestPrint(t *testing.T) {
	for line, want := range map[string]string{
		"print": "", "print orders-0": "orders-0", "print g1": "g1", "print 2": "2", "print znodes": "znodes",
	} {
		st, err := ParseLine(line, 1)
		if err != nil || st.Print == nil || st.Print.Target != want {
			t.Errorf("%q: got %+v, %v; want target %q", line, st, err, want)
		}
	}
}

func TestBlank(t *testing.T) {
	for _, line := range []string{"", "   ", "\t", "# comment", "  # x", "#", "\r"} {
		st, err := ParseLine(line, 1)
		if st != nil || err != nil {
			t.Errorf("%q: got %+v, %v; want nil, nil", line, st, err)
		}
	}
}

func TestParseScript(t *testing.T) {
	src := "\uFEFF# demo\r\ncluster brokers=3 seed=1\n\ntopic create orders partitions=1 rf=3   \nwait 1s\n" +
		"expect leader orders-0 == 1 # the first\nprint"
	s, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := []int{2, 4, 5, 6, 7}
	texts := []string{"cluster brokers=3 seed=1", "topic create orders partitions=1 rf=3", "wait 1s",
		"expect leader orders-0 == 1", "print"}
	if len(s.Steps) != len(lines) {
		t.Fatalf("got %d steps, want %d", len(s.Steps), len(lines))
	}
	for i, st := range s.Steps {
		if st.Line != lines[i] || st.Text != texts[i] {
			t.Errorf("step %d: line %d %q, want %d %q", i, st.Line, st.Text, lines[i], texts[i])
		}
	}
	if s, err := Parse(""); err != nil || len(s.Steps) != 0 {
		t.Errorf("empty script: %+v, %v", s, err)
	}
}

// TestCoreChecks: the parser's options accept exactly what core accepts
// (it asks core's catalog): every option stored under a config name is a
// key core knows, and the values core lists parse, including those the
// parser once refused (partitioner=uniform, offset.reset=none).
func TestCoreChecks(t *testing.T) {
	for verb, specs := range map[string][]optSpec{"producer": producerOpts, "consumer": consumerOpts, "topic create": topicCreateOpts} {
		for _, o := range specs {
			if o.key == "" {
				continue
			}
			cs, ok := core.LookupConfig(o.key)
			if !ok {
				t.Errorf("%s %s=: core has no config %s", verb, o.name, o.key)
				continue
			}
			for _, v := range cs.Values {
				if msg := o.check(v); msg != "" {
					t.Errorf("%s %s=%s: %s", verb, o.name, v, msg)
				}
			}
		}
	}
	for _, line := range []string{
		"producer p1 partitioner=uniform",
		"consumer c1 offset.reset=none",
		"consumer c1 assignor=cooperative-sticky,range",
		"cluster brokers=1 version=" + core.VersionNames()[0],
		"topic create t partitions=1 rf=1 min.insync.replicas=100",
	} {
		if _, err := ParseLine(line, 1); err != nil {
			t.Errorf("%s: %v", line, err)
		}
	}
}
