package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core"
)

// roundTrip checks Parse(Format(st)) == st.
func roundTrip(t *testing.T, st Step) string {
	t.Helper()
	line, err := Format(st)
	if err != nil {
		t.Errorf("Format(%+v): %v", st, err)
		return ""
	}
	back, err := ParseLine(line, 1)
	if err != nil || back == nil {
		t.Errorf("Format gave %q, which does not parse: %v", line, err)
		return line
	}
	if !SameStep(*back, st) {
		t.Errorf("round trip changed the step:\n line %q\n got  %+v\n want %+v", line, *back, st)
	}
	return line
}

// TestFormatRoundTrip formats every line of the parser's tests and parses
// it back; every command kind must be among them.
func TestFormatRoundTrip(t *testing.T) {
	kinds := map[string]bool{}
	for _, tt := range cmdTests {
		kinds[tt.want.Kind()] = true
		roundTrip(t, Step{Cmd: tt.want})
	}
	extra := []core.Command{
		&core.CreateTopic{Topic: "t", Partitions: 1, RF: 1},
		core.Produce{Producer: "p", Topic: "t", Value: "v", Count: 1},
		core.Poll{Consumer: "c", Timeout: 1500},
		core.NetDrop{From: "p1", To: "1", Count: 0},
		core.Settle{Max: 90_500},
		core.Wait{Duration: 61_000},
		core.NewConsumer{Name: "c", Group: "g", Topics: []string{"a", "b"}, Configs: map[string]string{
			"group.instance.id": "i1", "heartbeat.interval.ms": "100"}},
		core.NewProducer{Name: "p", Configs: map[string]string{"delivery.timeout.ms": "1000", "partitioner": "default"}},
		core.Set{Configs: map[string]string{"acks": "1", "net.latency.ms": "5"}},
		core.CreateTopic{Topic: "t", Partitions: 2, RF: 1, Configs: map[string]string{}},
	}
	for _, c := range extra {
		roundTrip(t, Step{Cmd: c})
	}
	for _, c := range []core.Command{
		core.CreateTopic{}, core.AlterTopic{}, core.Set{}, core.NewProducer{}, core.Produce{}, core.NewConsumer{},
		core.Assign{}, core.Poll{}, core.Commit{}, core.CloseConsumer{}, core.CrashConsumer{}, core.CrashBroker{},
		core.PowerOff{}, core.Restart{}, core.Pause{}, core.Resume{}, core.NetSplit{}, core.NetHeal{}, core.NetDelay{},
		core.NetDrop{}, core.Wait{}, core.Settle{},
	} {
		if !kinds[c.Kind()] {
			t.Errorf("no round-trip test for command %s", c.Kind())
		}
	}
}

func TestFormatClusterExpectPrint(t *testing.T) {
	for _, line := range []string{
		"cluster brokers=3", "cluster brokers=3 seed=18446744073709551615 version=0.8 metadata=zk racks=a,a,b",
		"expect leader orders-0 == 2", "expect isr orders-0 == none", "expect leo orders-0@3 == 5",
		"expect failed p1 m7 == NOT_ENOUGH_REPLICAS", "expect lost == none", "expect consumed c1 == m1,m2,m2",
		"expect acked p1 contains m1,m3", "expect consumed c1 contains m2",
		"expect assignment g1 c1=orders-0,orders-1 c2=orders-2 c3=", "expect committed g1 orders-0 == 4",
		`expect znode /brokers/topics/orders/partitions/0/state contains "isr":[1,2]`,
		"expect error == none", "expect error contains NOT_ENOUGH", "expect violations == lost,divergence",
		"print", "print orders-0", "print orders-0@2 offset=7", "print znodes", "print 2",
	} {
		st, err := ParseLine(line, 4)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if got := roundTrip(t, *st); got != line {
			t.Errorf("Format gave %q, want %q back", got, line)
		}
	}
}

// TestFormatScripts formats every golden scenario and parses it back.
func TestFormatScripts(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.ksim")
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Parse(string(src))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		text, err := FormatScript(s)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		back, err := Parse(text)
		if err != nil || len(back.Steps) != len(s.Steps) {
			t.Fatalf("%s: formatted script does not parse back: %v", f, err)
		}
		for i := range s.Steps {
			if !SameStep(back.Steps[i], s.Steps[i]) {
				t.Errorf("%s:%d: %q came back as %q", f, s.Steps[i].Line, s.Steps[i].Text, back.Steps[i].Text)
			}
		}
	}
}

// TestFormatRejects lists steps the language cannot express.
func TestFormatRejects(t *testing.T) {
	key := ""
	for _, st := range []Step{
		{},
		{Cmd: core.Wait{}, Print: &Print{}},
		{Cmd: core.Produce{Producer: "p", Topic: "t", Value: "a,b"}},
		{Cmd: core.Produce{Producer: "p", Topic: "t", Value: "a b"}},
		{Cmd: core.Produce{Producer: "p", Topic: "t", Value: "none"}},
		{Cmd: core.Produce{Producer: "p", Topic: "t", Value: "v", Key: &key}},
		{Cmd: core.Assign{Consumer: "c"}},
		{Cmd: core.NetSplit{Groups: [][]string{{"1"}}}},
		{Cmd: core.NewProducer{Name: "p", Configs: map[string]string{"nodot": "1"}}},
		{Cmd: core.Set{}},
		{Cmd: core.CrashConsumer{Consumer: "has space"}},
		{Expect: &Expect{Kind: "error", Op: "==", Want: "a #b"}},
	} {
		if line, err := Format(st); err == nil {
			t.Errorf("Format(%+v) = %q, want an error", st, line)
		} else if strings.Contains(err.Error(), "panic") {
			t.Errorf("Format(%+v): %v", st, err)
		}
	}
}
