package scene_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/wasm/scene"
	"github.com/kafkasim/kafkasim/wasm/scene/sample"
)

var rewrite = flag.Bool("rewrite", false, "rewrite testdata/*.json from package sample")

// fixtures are the samples kept as JSON in testdata: what the engine's
// tests and the canvas's tests both read.
var fixtures = map[string]int64{"leader-death": 0, "faults": 0, "reference": 60000}

// TestFixtures keeps testdata/*.json equal to the samples (rewrite with
// -rewrite) and checks that every fixture decodes and validates.
func TestFixtures(t *testing.T) {
	for name, now := range fixtures {
		s, err := sample.Get(name, now)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, err := json.MarshalIndent(s, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, '\n')
		path := filepath.Join("testdata", name+".json")
		if *rewrite {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run with -rewrite)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from sample.Get(%q): run go test ./wasm/scene -rewrite and review the diff", path, name)
		}
		d, err := scene.Decode(got)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if len(d.Brokers) != len(s.Brokers) || len(d.Partitions) != len(s.Partitions) || len(d.Messages) != len(s.Messages) {
			t.Errorf("%s: decoded scene lost elements", path)
		}
	}
}

func TestReferenceShape(t *testing.T) {
	s := sample.Reference(60000, 1)
	if len(s.Brokers) != 5 || len(s.Partitions) != 24 || len(s.Groups) != 2 || s.Counters.Rate != 500 {
		t.Fatalf("reference: %d brokers, %d partitions, %d groups, rate %v", len(s.Brokers), len(s.Partitions), len(s.Groups), s.Counters.Rate)
	}
	for _, p := range s.Partitions {
		if len(p.Replicas) != 3 {
			t.Fatalf("%s: %d replicas", p.Name, len(p.Replicas))
		}
	}
	inflight := 0
	for _, m := range s.Messages {
		if m.InFlight(s.Now) {
			inflight++
		}
		if m.SentAt > s.Now {
			t.Fatalf("message %d sent in the future", m.ID)
		}
	}
	if inflight < 10 {
		t.Errorf("reference: only %d messages in flight", inflight)
	}
	storm := sample.Reference(60000, 40)
	if len(storm.Messages) != scene.MaxMessages || storm.Counters.Omitted == 0 {
		t.Errorf("storm: %d messages, %d omitted: want the limit and some omitted", len(storm.Messages), storm.Counters.Omitted)
	}
	if err := storm.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestDecodeRefuses(t *testing.T) {
	good := func() *scene.Scene { return sample.LeaderDeath() }
	cases := []struct {
		name string
		mod  func(s *scene.Scene)
		want string
	}{
		{"version", func(s *scene.Scene) { s.V = 99 }, "version 99"},
		{"view", func(s *scene.Scene) { s.View = "3d" }, "unknown view"},
		{"broker id", func(s *scene.Scene) { s.Brokers[0].ID = 0 }, "not positive"},
		{"dup broker", func(s *scene.Scene) { s.Brokers[1].ID = 1 }, "duplicate id"},
		{"state", func(s *scene.Scene) { s.Brokers[0].State = "zombie" }, "unknown state"},
		{"replica broker", func(s *scene.Scene) { s.Partitions[0].Replicas[0].Broker = 9 }, "unknown broker 9"},
		{"cells order", func(s *scene.Scene) {
			c := s.Partitions[0].Replicas[1].Cells
			c[0], c[1] = c[1], c[0]
		}, "not ascending"},
		{"too many cells", func(s *scene.Scene) {
			s.Partitions[0].Replicas[0].Cells = make([]scene.Cell, scene.MaxCells+1)
		}, "cells, at most"},
		{"message time", func(s *scene.Scene) { s.Messages[0].DeliverAt = s.Messages[0].SentAt - 1 }, "before sentAt"},
		{"group member", func(s *scene.Scene) { s.Groups[0].Members = append(s.Groups[0].Members, "ghost") }, `"ghost" is not a consumer`},
		{"dup client", func(s *scene.Scene) { s.Consumers[0].Name = "p1" }, "duplicate client"},
		{"dup partition", func(s *scene.Scene) { s.Partitions = append(s.Partitions, s.Partitions[0]) }, "duplicate name"},
		{"long name", func(s *scene.Scene) { s.Producers[0].Name = strings.Repeat("x", scene.MaxName+1) }, "longer than"},
		{"too many brokers", func(s *scene.Scene) {
			for i := 4; i <= scene.MaxBrokers+1; i++ {
				s.Brokers = append(s.Brokers, scene.Broker{ID: i, State: scene.StateAlive})
			}
		}, "brokers, at most"},
	}
	for _, c := range cases {
		s := good()
		c.mod(s)
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		_, err = scene.Decode(b)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	for _, bad := range []string{"", "{", "[]", `{"v":1,"brokers":"x"}`, strings.Repeat(" ", scene.MaxBytes+1)} {
		if _, err := scene.Decode([]byte(bad)); err == nil {
			t.Errorf("Decode(%.20q) accepted", bad)
		}
	}
}

func TestDecodeInbound(t *testing.T) {
	enc, err := scene.Encode(sample.LeaderDeath())
	if err != nil {
		t.Fatal(err)
	}
	in, err := scene.DecodeInbound(enc)
	if err != nil || in.Type != scene.MsgScene {
		t.Fatalf("scene envelope: %v %+v", err, in)
	}
	s, err := scene.Decode(in.Scene)
	if err != nil || s.Now != 31200 {
		t.Fatalf("scene in envelope: %v", err)
	}
	for _, c := range []struct{ msg, want string }{
		{`{"type":"tick","now":5,"rate":0.5}`, ""},
		{`{"type":"where","id":3,"ref":{"kind":"broker","broker":2}}`, ""},
		{`{"type":"stats"}`, ""},
		{`{"type":"where","id":3}`, "without a ref"},
		{`{"type":"scene"}`, "without a scene"},
		{`{"type":"launch"}`, "unknown message type"},
		{`{}`, "without a type"},
		{`nope`, "bad message"},
	} {
		_, err := scene.DecodeInbound([]byte(c.msg))
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: error %v, want %q", c.msg, err, c.want)
		}
	}
}

func TestClassify(t *testing.T) {
	for _, c := range []struct{ kind, from, to, want string }{
		{"Produce", "p1", "1", scene.ClassProduce},
		{"ProduceResponse", "1", "p1", scene.ClassAck},
		{"Fetch", "2", "1", scene.ClassFetch},
		{"FetchResponse", "1", "2", scene.ClassFetch},
		{"OffsetsForLeaderEpoch", "2", "1", scene.ClassFetch},
		{"Fetch", "c1", "1", scene.ClassConsume},
		{"ListOffsetsResponse", "1", "c1", scene.ClassConsume},
		{"Metadata", "p1", "1", scene.ClassMetadata},
		{"LeaderAndIsr", "controller", "3", scene.ClassMetadata},
		{"AlterPartition", "1", "controller", scene.ClassMetadata},
		{"Register", "1", "zk", scene.ClassZK},
		{"ZkWatch", "zk", "1", scene.ClassZK},
		{"Ping", "1", "zk", scene.ClassZK},
		{"BrokerHeartbeat", "1", "controller", scene.ClassHeartbeat},
		{"Heartbeat", "c1", "2", scene.ClassHeartbeat},
		{"JoinGroupResponse", "2", "c1", scene.ClassJoin},
		{"OffsetCommit", "c1", "2", scene.ClassJoin},
		{"Connect", "p1", "1", scene.ClassOther},
		{"SomethingNew", "1", "2", scene.ClassOther},
	} {
		if got := scene.Classify(c.kind, c.from, c.to); got != c.want {
			t.Errorf("Classify(%s, %s, %s) = %s, want %s", c.kind, c.from, c.to, got, c.want)
		}
	}
}

func TestCellState(t *testing.T) {
	r := scene.Replica{HW: 3, Flushed: 2}
	for _, c := range []struct {
		cell              scene.Cell
		committed, onDisk bool
	}{
		{scene.Cell{Offset: 1}, true, true},
		{scene.Cell{Offset: 2}, true, false},
		{scene.Cell{Offset: 3}, false, false},
		{scene.Cell{Offset: 1, Flags: scene.FlagLost}, false, false},
	} {
		if r.Committed(c.cell) != c.committed || r.OnDisk(c.cell) != c.onDisk {
			t.Errorf("cell %+v: committed %v onDisk %v", c.cell, r.Committed(c.cell), r.OnDisk(c.cell))
		}
	}
}

// BenchmarkDecodeReference decodes the reference scene (what the canvas
// does with every scene posted): run it under GOOS=js GOARCH=wasm too.
func BenchmarkDecodeReference(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "reference.json"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := scene.Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}
