package session

import (
	"fmt"
	"strings"
	"testing"
)

// longScript is a live cluster of n seconds: a record a second, a group
// of two reading them.
func longScript(n int) string {
	var b strings.Builder
	b.WriteString("cluster brokers=3 seed=7 version=3.9 metadata=zk\ntopic create orders partitions=3 rf=3\nproducer p1 acks=all\n")
	b.WriteString("consumer c1 group=g topics=orders\nconsumer c2 group=g topics=orders\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "wait 1s\nproduce p1 orders key=k%d value=v%d\n", i%5, i)
	}
	return b.String()
}

// fresh replays the current branch's steps from the seed to t: what any
// seek to t must give.
func fresh(t *testing.T, s *Session, at int64) (snap, hash string) {
	t.Helper()
	d, err := NewDriver(s.Branch().steps, StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.RunTo(at); err != nil {
		t.Fatal(err)
	}
	return snapJSON(t, d), d.TraceHash()
}

func same(t *testing.T, s *Session, what string) {
	t.Helper()
	snap, hash := fresh(t, s, s.Now())
	if got := s.Driver().TraceHash(); got != hash {
		t.Errorf("%s: at %d trace hash %s, a replay from the seed has %s", what, s.Now(), got, hash)
	}
	if got := snapJSON(t, s.Driver()); got != snap {
		t.Errorf("%s: at %d the snapshot differs from a replay from the seed", what, s.Now())
	}
}

// TestCheckpointSeekBackForward: seeking back parks the live driver, and
// seeking forward to the live moment resumes it (no replay): the same
// snapshot and trace hash as the live run.
func TestCheckpointSeekBackForward(t *testing.T) {
	s := New(StoreOptions{})
	if err := s.Load(longScript(40)); err != nil {
		t.Fatal(err)
	}
	if err := s.RunTo(40_000); err != nil {
		t.Fatal(err)
	}
	live, liveSnap, liveHash := s.Driver(), snapJSON(t, s.Driver()), s.Driver().TraceHash()
	if err := s.GoTo(15_000); err != nil {
		t.Fatal(err)
	}
	same(t, s, "seek back from the seed")
	if cps := s.Checkpoints(); len(cps) != 1 || cps[0] != 40_000 {
		t.Fatalf("checkpoints after a seek back %v, want the live moment", cps)
	}
	if err := s.GoTo(40_000); err != nil {
		t.Fatal(err)
	}
	if s.Driver() != live {
		t.Error("seeking forward to the live moment replayed instead of resuming the parked driver")
	}
	if snapJSON(t, s.Driver()) != liveSnap || s.Driver().TraceHash() != liveHash {
		t.Error("back then forward differs from the live run")
	}
	// The 15 s driver is parked now: seeking to 20 s resumes it and plays 5 s.
	if err := s.GoTo(20_000); err != nil {
		t.Fatal(err)
	}
	same(t, s, "forward from a parked 15 s")
}

// TestCheckpointPrepare: Prepare builds checkpoints across the history
// in bounded slices; seeks back then start from them and still give a
// replay from the seed's snapshot and hash.
func TestCheckpointPrepare(t *testing.T) {
	s := New(StoreOptions{})
	if err := s.Load(longScript(90)); err != nil {
		t.Fatal(err)
	}
	if err := s.RunTo(90_000); err != nil {
		t.Fatal(err)
	}
	calls := 0
	for s.Prepare(5_000) {
		if calls++; calls > 500 {
			t.Fatal("Prepare never finishes")
		}
	}
	cps := s.Checkpoints()
	if len(cps) < 3 || len(cps) > MaxCheckpoints {
		t.Fatalf("checkpoints %v after %d Prepare calls", cps, calls)
	}
	for i := 1; i < len(cps); i++ {
		if cps[i]-cps[i-1] < MinCheckpointGap {
			t.Errorf("checkpoints %v closer than %d ms", cps, MinCheckpointGap)
		}
	}
	for _, at := range []int64{cps[len(cps)-1] + 1500, cps[0] + 700, 2_000, 88_000, cps[1]} {
		before := len(s.Checkpoints())
		if err := s.GoTo(at); err != nil {
			t.Fatal(err)
		}
		same(t, s, fmt.Sprintf("seek to %d (checkpoints %d -> %v)", at, before, s.Checkpoints()))
	}
	if len(s.Checkpoints()) > MaxCheckpoints {
		t.Errorf("%d checkpoints, at most %d", len(s.Checkpoints()), MaxCheckpoints)
	}
}

// TestCheckpointEdits: a command at the branch's end splits the wait in
// progress; checkpoints from the split on are stale and dropped, earlier
// ones stay valid. A command in the past forks, and the old branch's
// checkpoints serve a switch back to it.
func TestCheckpointEdits(t *testing.T) {
	s := New(StoreOptions{})
	if err := s.Load(longScript(60)); err != nil {
		t.Fatal(err)
	}
	if err := s.RunTo(30_500); err != nil { // in the middle of a wait
		t.Fatal(err)
	}
	if err := s.GoTo(10_000); err != nil { // parks 30.5 s
		t.Fatal(err)
	}
	if err := s.GoTo(30_200); err != nil { // plays on from 10 s
		t.Fatal(err)
	}
	if err := s.GoTo(30_500); err != nil { // resumes 30.5 s; parks 30.2 s, inside the wait
		t.Fatal(err)
	}
	for s.Prepare(4_000) {
	}
	if cps := s.Checkpoints(); len(cps) < 2 || cps[len(cps)-1] != 30_200 {
		t.Fatalf("checkpoints %v, want one at 30200", cps)
	}
	if _, err := s.Command("crash broker 2"); err != nil {
		t.Fatal(err)
	}
	cps := s.Checkpoints()
	for _, at := range cps {
		if at >= 30_000 {
			t.Errorf("checkpoint at %d survived a command that splits the wait started at 30 s", at)
		}
	}
	if len(cps) == 0 {
		t.Error("the checkpoints before the wait were dropped too")
	}
	if err := s.RunTo(45_000); err != nil {
		t.Fatal(err)
	}
	same(t, s, "after the command")
	if err := s.GoTo(30_300); err != nil {
		t.Fatal(err)
	}
	same(t, s, "back to just before the command")
	if err := s.GoTo(31_000); err != nil {
		t.Fatal(err)
	}
	same(t, s, "past the command")
	mainHash := func() string { _, h := fresh(t, s, 45_000); return h }()
	// In the past: a fork. Then back to the first branch, from its checkpoint.
	if err := s.GoTo(20_000); err != nil {
		t.Fatal(err)
	}
	res, err := s.Command("crash broker 3")
	if err != nil || s.Branch().ID != 2 {
		t.Fatalf("fork: %+v %v (branch %d)", res, err, s.Branch().ID)
	}
	if err := s.RunTo(45_000); err != nil {
		t.Fatal(err)
	}
	same(t, s, "the fork")
	if err := s.Switch(1); err != nil {
		t.Fatal(err)
	}
	if s.Now() != 45_000 || s.Driver().TraceHash() != mainHash {
		t.Errorf("switch back: t=%d hash %s, want 45000 %s", s.Now(), s.Driver().TraceHash(), mainHash)
	}
	same(t, s, "switched back")
}
