package core

import "testing"

func TestReplicaRecords(t *testing.T) {
	c, err := New(Options{Brokers: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	must := func(cmd Command) {
		t.Helper()
		if err := c.Exec(cmd); err != nil {
			t.Fatal(err)
		}
	}
	must(CreateTopic{Topic: "t", Partitions: 1, RF: 3, Assign: [][]int{{1, 2, 3}}})
	must(NewProducer{Name: "p", Configs: map[string]string{"acks": "all"}})
	must(Wait{Duration: 1000})
	must(Produce{Producer: "p", Topic: "t", Value: "v", Count: 5})
	must(Wait{Duration: 2000})
	recs, err := c.ReplicaRecords("t-0", 2, 1, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || recs[0].Offset != 1 || recs[0].Value != "v-2" || recs[2].Value != "v-4" {
		t.Fatalf("records [1,4) on broker 2 = %+v", recs)
	}
	for _, r := range recs {
		if !r.Committed || r.Epoch != 0 {
			t.Errorf("record %+v: want committed, epoch 0", r)
		}
	}
	all, _ := c.ReplicaRecords("t-0", 1, -5, 1<<40)
	if len(all) != 5 {
		t.Errorf("whole log: %d records, want 5", len(all))
	}
	for _, bad := range []struct {
		p string
		b int
	}{{"t-1", 1}, {"nope-0", 1}, {"t-0", 9}} {
		if _, err := c.ReplicaRecords(bad.p, bad.b, 0, 10); err == nil {
			t.Errorf("ReplicaRecords(%s, %d) accepted", bad.p, bad.b)
		}
	}
}

func TestReplicaLogAndFetchWalk(t *testing.T) {
	c, _ := New(Options{Brokers: 1, Seed: 1})
	for _, cmd := range []Command{
		CreateTopic{Topic: "t", Partitions: 1, RF: 1, Configs: map[string]string{"segment.bytes": "300", "index.interval.bytes": "100"}},
		NewProducer{Name: "p", Configs: map[string]string{"acks": "1", "linger.ms": "0", "batch.size": "1"}},
		Wait{Duration: 500},
	} {
		if err := c.Exec(cmd); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 12; i++ {
		c.Exec(Produce{Producer: "p", Topic: "t", Value: "value-" + string(rune('a'+i))})
		c.Exec(Wait{Duration: 20})
	}
	lv, err := c.ReplicaLog("t-0", 1)
	if err != nil {
		t.Fatal(err)
	}
	if lv.LEO != 12 || len(lv.Segments) < 2 || lv.Config.SegmentBytes != 300 {
		t.Fatalf("log view: LEO %d, %d segments, config %+v", lv.LEO, len(lv.Segments), lv.Config)
	}
	last := lv.Segments[len(lv.Segments)-1]
	w, err := c.FetchWalk("t-0", 1, last.BaseOffset+1)
	if err != nil {
		t.Fatal(err)
	}
	if w.Segment != last.File || w.SegmentBase != last.BaseOffset || len(w.BatchOffsets) == 0 {
		t.Errorf("fetch at %d: %+v, want segment %s", last.BaseOffset+1, w, last.File)
	}
	if w, _ := c.FetchWalk("t-0", 1, 99); w.Error == "" {
		t.Errorf("fetch beyond the log end: no error")
	}
	if w, _ := c.FetchWalk("t-0", 1, 12); !w.AtEnd {
		t.Errorf("fetch at the LEO: %+v", w)
	}
	if _, err := c.ReplicaLog("t-0", 2); err == nil {
		t.Errorf("no broker 2: accepted")
	}
}
