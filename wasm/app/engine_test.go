package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/wasm/scene"
	"github.com/kafkasim/kafkasim/wasm/session"
)

func acks1(t *testing.T) *Engine {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "core", "scenario", "testdata", "acks1-leader-death.ksim"))
	if err != nil {
		t.Fatal(err)
	}
	e := New()
	if ei := e.Load(string(b)); ei != nil {
		t.Fatal(ei.Msg)
	}
	return e
}

func TestPlayByTicks(t *testing.T) {
	e := acks1(t)
	e.SetSpeed(1000) // clamped
	if e.Speed() != MaxSpeed {
		t.Errorf("speed %v, want clamped to %v", e.Speed(), MaxSpeed)
	}
	if changed, _ := e.Tick(16); changed {
		t.Errorf("a paused engine moved")
	}
	e.Play()
	for i := 0; i < 1000 && e.State(false).ScriptEnd < 0; i++ {
		if _, err := e.Tick(16); err != nil {
			t.Fatal(err)
		}
	}
	st := e.State(true)
	if st.ScriptEnd < 0 || len(st.Failures) != 0 {
		t.Fatalf("after playing: %+v", st)
	}
	if e.Now() < 61_000 {
		t.Errorf("now %d", e.Now())
	}
	f := e.Findings()
	if len(f) != 1 || f[0].Kind != "lost" || f[0].Values[0] != "m3" {
		t.Errorf("findings %+v", f)
	}
	s, _ := e.Story("m3")
	if s.Fates[0] != "lost" {
		t.Errorf("story %+v", s)
	}
}

func TestSceneOfAcks1(t *testing.T) {
	e := acks1(t)
	if err := e.Advance(1_050); err != nil { // split, m3 on broker 1 only
		t.Fatal(err)
	}
	s, err := e.Scene(SceneOptions{View: scene.ViewBoth})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Brokers) != 3 || !s.Brokers[0].Controller || s.Brokers[1].Side != 2 || !s.Brokers[1].Cut || s.Brokers[0].Cut {
		t.Errorf("brokers %+v", s.Brokers)
	}
	if len(s.Partitions) != 1 {
		t.Fatalf("partitions %+v", s.Partitions)
	}
	p := s.Partitions[0]
	if p.Replicas[0].LEO != 3 || len(p.Replicas[0].Cells) != 3 || p.Replicas[0].Cells[2].Value != "m3" {
		t.Errorf("leader replica %+v", p.Replicas[0])
	}
	if err := e.Advance(40_000); err != nil { // broker 1 back, truncated
		t.Fatal(err)
	}
	s, _ = e.Scene(SceneOptions{})
	r1 := s.Partitions[0].Replicas[0]
	last := r1.Cells[len(r1.Cells)-1]
	if !last.Lost() || last.Value != "m3" || last.Offset != 2 {
		t.Errorf("broker 1 after truncation: cells %+v, want m3 crossed at 2", r1.Cells)
	}
	if s.Counters.Lost != 1 {
		t.Errorf("counters %+v", s.Counters)
	}
	raw, err := e.SceneJSON(`{"view":"spacetime"}`)
	if err != nil {
		t.Fatal(err)
	}
	var in scene.Inbound
	if err := json.Unmarshal(raw, &in); err != nil || in.Type != "scene" {
		t.Fatalf("envelope: %v %s", err, raw[:40])
	}
	if _, err := scene.Decode(in.Scene); err != nil {
		t.Errorf("the canvas would refuse the scene: %v", err)
	}
	if _, err := e.SceneJSON(`{bad`); err == nil {
		t.Errorf("bad options accepted")
	}
}

func TestPanels(t *testing.T) {
	e := acks1(t)
	if err := e.Advance(70_000); err != nil {
		t.Fatal(err)
	}
	sv, err := e.Segments("orders-0", 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if sv.Log.Broker != 2 || len(sv.Log.Segments) != 1 || sv.Log.Segments[0].File != "00000000000000000000.log" || sv.Walk.Segment == "" {
		t.Errorf("segments %+v walk %+v", sv.Log, sv.Walk)
	}
	md, err := e.Metadata()
	if err != nil || md.Mode != "zk" || len(md.ZNodes) == 0 {
		t.Errorf("metadata %+v %v", md, err)
	}
	m, err := e.Metrics()
	if err != nil || m.Elections < 1 || m.Truncations != 1 || m.Lost != 1 || m.ISRExpands < 1 {
		t.Errorf("metrics %+v %v", m, err)
	}
	if _, err := e.Offsets(); err != nil {
		t.Error(err)
	}
	evs := e.Events(EventQuery{Text: "truncate"})
	if len(evs) != 1 || !strings.Contains(evs[0].Text, "dropping m3") {
		t.Errorf("events filtered by truncate: %+v", evs)
	}
	marks := e.Events(EventQuery{Types: []string{"leader", "truncate"}, Limit: 3000})
	all := e.Events(EventQuery{Limit: 3000})
	var want []EventView
	for _, ev := range all {
		if ev.Type == "leader" || ev.Type == "truncate" {
			want = append(want, ev)
		}
	}
	if len(marks) < 2 || len(marks) != len(want) || len(marks) == len(all) {
		t.Errorf("events of types leader, truncate: %d, want %d of %d", len(marks), len(want), len(all))
	}
	for i := range marks {
		if i < len(want) && marks[i].Seq != want[i].Seq {
			t.Errorf("typed event %d: seq %d, want %d", i, marks[i].Seq, want[i].Seq)
		}
	}
	if ov, _ := e.Overview(); !strings.Contains(ov, "broker 1") {
		t.Errorf("overview %q", ov)
	}
}

func TestCompareForks(t *testing.T) {
	e := acks1(t)
	if err := e.Advance(70_000); err != nil {
		t.Fatal(err)
	}
	if err := e.SeekTo(900); err != nil { // before the split
		t.Fatal(err)
	}
	// the other history: the follower side is never cut off
	res := e.Command("crash broker 3")
	if res.Error != nil || !res.Forked || res.Branch != 2 {
		t.Fatalf("acting in the past: %+v", res)
	}
	if err := e.Advance(70_000); err != nil {
		t.Fatal(err)
	}
	cv, err := e.Compare(1, 2, -1)
	if err != nil {
		t.Fatal(err)
	}
	if cv.DivergeAt != 900 {
		t.Errorf("diverge at %d", cv.DivergeAt)
	}
	if cv.A.ID != 1 || cv.B.ID != 2 || cv.B.Change == "" || cv.B.ForkAt != 900 {
		t.Errorf("sides %+v / %+v", cv.A.Name, cv.B)
	}
	st := e.State(false)
	if len(st.Branches) != 2 || st.Branch != 2 {
		t.Errorf("state %+v", st)
	}
}

func TestShareOpens(t *testing.T) {
	e := acks1(t)
	e.Advance(5_000)
	e.Command("crash broker 3")
	e.Advance(2_000)
	sh, err := e.Share()
	if err != nil || sh.TooLong || sh.Fragment == "" {
		t.Fatalf("share %+v %v", sh, err)
	}
	o := New()
	if ei := o.OpenShare("#" + sh.Fragment); ei != nil {
		t.Fatal(ei.Msg)
	}
	if o.Now() != e.Now() || o.State(false).Hash != e.State(false).Hash {
		t.Errorf("opened at %d hash %s, want %d %s", o.Now(), o.State(false).Hash, e.Now(), e.State(false).Hash)
	}
	if ei := o.OpenShare("#ksim=zz"); ei == nil {
		t.Errorf("bad link accepted")
	}
	// The memoised script part: a later moment, then a changed script,
	// each link as a fresh encoding makes it.
	for _, change := range []string{"", "produce p1 orders value=later"} {
		if change != "" {
			e.Command(change)
		}
		e.Advance(300)
		again, err := e.Share()
		want, err2 := session.EncodeShare(session.Share{Script: e.Session().Script(), At: e.Now()})
		if err != nil || err2 != nil || again.Fragment != want {
			t.Errorf("after %q: share %q (%v), want %q (%v)", change, again.Fragment, err, want, err2)
		}
	}
}
