package scenario

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/log"
)

// declaredEventTypes reads the EventType constants from core/event.go.
func declaredEventTypes(t *testing.T) map[string]bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "../event.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, sp := range gd.Specs {
			vs := sp.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "EventType" {
				continue
			}
			for _, v := range vs.Values {
				if lit, ok := v.(*ast.BasicLit); ok {
					s, _ := strconv.Unquote(lit.Value)
					out[s] = true
				}
			}
		}
	}
	if len(out) < 10 {
		t.Fatalf("found only %d event types in core/event.go", len(out))
	}
	return out
}

// emittedEventTypes runs every golden scenario, and an outside client's
// connection (produce, fetch, a crash), and collects the types emitted.
func emittedEventTypes(t *testing.T) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	files, err := filepath.Glob("testdata/*.ksim")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden scenarios: %v", err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Parse(string(src))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if _, err := Run(s, RunOptions{NoTrace: true, OnEvent: func(e *core.Event) { seen[string(e.Type)] = true }}); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	c, err := core.New(core.Options{Brokers: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	produce := &core.ProduceRequest{Acks: -1, TimeoutMs: 30000, Partitions: []core.ProducePartition{{Topic: "t", ProducerID: -1, Records: []log.Record{{Value: "a"}}}}}
	fetch := &core.FetchRequest{MaxWaitMs: 5000, MinBytes: 1, Partitions: []core.FetchPartition{{Topic: "t", FetchOffset: 1, CurrentLeaderEpoch: -1}}}
	for _, step := range []struct {
		cmd core.Command
		ms  int64
	}{
		{core.CreateTopic{Topic: "t", Partitions: 1, RF: 3, Assign: [][]int{{1, 2, 3}}}, 1000},
		{core.OpenConn{Conn: "k1", Broker: 1}, 0},
		{core.BrokerRequest{Conn: "k1", Correlation: 1, Produce: produce}, 100},
		{core.BrokerRequest{Conn: "k1", Correlation: 2, Fetch: fetch}, 100},
		{core.CrashBroker{Broker: 1}, 100},
	} {
		if err := c.Apply(step.cmd); err != nil {
			t.Fatalf("%T: %v", step.cmd, err)
		}
		if _, err := c.Advance(step.ms); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range c.Events() {
		seen[string(e.Type)] = true
	}
	return seen
}

// TestEventsDocumented: docs/events.md has a section for every event type
// a run emits; every type core/event.go declares is emitted by some run
// (none is dead) and documented; the page documents no other type.
func TestEventsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/events.md")
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	heading := regexp.MustCompile("(?m)^### (.*)$")
	name := regexp.MustCompile("`([a-z.]+)`")
	for _, h := range heading.FindAllStringSubmatch(string(doc), -1) {
		for _, n := range name.FindAllStringSubmatch(h[1], -1) {
			documented[n[1]] = true
		}
	}
	declared := declaredEventTypes(t)
	emitted := emittedEventTypes(t)
	for _, typ := range slices.Sorted(maps.Keys(emitted)) {
		if !documented[typ] {
			t.Errorf("event type %q is emitted but docs/events.md has no section for it", typ)
		}
		if !declared[typ] {
			t.Errorf("event type %q is emitted but not declared in core/event.go", typ)
		}
	}
	for typ := range declared {
		if !emitted[typ] {
			t.Errorf("event type %q is declared but no golden scenario emits it: remove it or cover it", typ)
		}
		if !documented[typ] {
			t.Errorf("event type %q is declared but not in docs/events.md", typ)
		}
	}
	for typ := range documented {
		if !declared[typ] {
			t.Errorf("docs/events.md documents %q, which core/event.go does not declare", typ)
		}
	}
}
