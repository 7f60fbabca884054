package web

import (
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core/scenario"
	"github.com/kafkasim/kafkasim/lessons"
	"github.com/kafkasim/kafkasim/lessons/model"
	"github.com/kafkasim/kafkasim/wasm/scene"
)

// run plays a lesson's steps before `at` (as Replay builds them) and
// returns the runner.
func run(t *testing.T, l *lessons.Lesson, at int) *scenario.Runner {
	t.Helper()
	src, _, err := Replay(l, at)
	if err != nil {
		t.Fatal(err)
	}
	s, err := scenario.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	r := scenario.NewRunner(scenario.RunOptions{NoTrace: true})
	for i := range s.Steps {
		if err := r.Step(&s.Steps[i]); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// TestJudgeAndRefs: after replaying the message-loss lesson through its
// first prediction, Judge agrees with the marked answer, and the step's
// point targets become scene refs (m3 found by value at offset 2).
func TestJudgeAndRefs(t *testing.T) {
	l, err := lessons.Get("en", "message-loss")
	if err != nil {
		t.Fatal(err)
	}
	r := run(t, l, 2)
	j, err := Judge(r.Cluster(), "", &l.Steps[1])
	if err != nil || !j.Agrees || j.Correct != 0 || !j.Holds[0] || j.Holds[1] {
		t.Fatalf("judge: %+v %v", j, err)
	}
	refs := Refs(r.Cluster(), l.Steps[1].Point)
	want := []scene.Ref{{Kind: scene.KindRecord, Partition: "orders-0", Offset: 2}, {Kind: scene.KindBroker, Broker: 2}}
	if len(refs) != 2 || refs[0] != want[0] || refs[1] != want[1] {
		t.Errorf("refs %+v, want %+v", refs, want)
	}
	// The act step's check does not hold before show-me; Check says what
	// the cluster has.
	res, err := Check(r.Cluster(), "", l.Steps[2].Checks)
	if err != nil || res.OK || res.Got[0] != "3" {
		t.Errorf("check before acting: %+v %v", res, err)
	}
	if got := Refs(r.Cluster(), []lessons.Target{{Kind: "record", Name: "never-sent"}, {Kind: "hw", Name: "orders-0"}, {Kind: "zk"}}); len(got) != 3 || got[1].Kind != "hw" || got[2].Name != "zk" {
		t.Errorf("refs %+v", got)
	}
}

// TestReplayFromLastCluster: in the leader-epochs lesson the third step
// starts a new cluster, so rewinding to after it replays only from there.
func TestReplayFromLastCluster(t *testing.T) {
	l, err := lessons.Get("zh", "leader-epochs")
	if err != nil {
		t.Fatal(err)
	}
	src, from, err := Replay(l, 3)
	if err != nil || from != 2 || !strings.HasPrefix(src, "cluster brokers=3 seed=9 version=0.11") {
		t.Fatalf("from %d, err %v, script %.60q", from, err, src)
	}
	if src, from, _ := Replay(l, 2); from != 0 || !strings.Contains(src, "version=0.8") {
		t.Errorf("from %d: %.60q", from, src)
	}
	if src, _, err := Replay(l, 0); src != "" || err != nil {
		t.Errorf("replay to the start: %q %v", src, err)
	}
	if _, _, err := Replay(l, 99); err == nil {
		t.Error("replay past the end accepted")
	}
}

// TestMarkerRefs: "hw T" lights the partition and the HW marker, "leo
// T@B" the replica and its LEO marker.
func TestMarkerRefs(t *testing.T) {
	got := Refs(nil, []model.Target{{Kind: "hw", Name: "orders-0"}, {Kind: "leo", Name: "orders-0@2"}})
	want := []scene.Ref{
		{Kind: scene.KindPartition, Partition: "orders-0"}, {Kind: scene.KindHW, Partition: "orders-0"},
		{Kind: scene.KindReplica, Partition: "orders-0", Broker: 2}, {Kind: scene.KindLEO, Partition: "orders-0", Broker: 2},
	}
	if len(got) != len(want) {
		t.Fatalf("refs %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("ref %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}
