package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core/check"
	"github.com/kafkasim/kafkasim/core/scenario"
)

func readScenario(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "core", "scenario", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func snapJSON(t *testing.T, d *Driver) string {
	t.Helper()
	b, err := json.Marshal(d.Cluster().Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func loaded(t *testing.T, text string) *Session {
	t.Helper()
	s := New(StoreOptions{})
	if err := s.Load(text); err != nil {
		t.Fatal(err)
	}
	return s
}

// runAll plays the driver until its script is done.
func runAll(t *testing.T, s *Session) {
	t.Helper()
	for i := 0; !s.Driver().Done(); i++ {
		if i > 10000 {
			t.Fatal("script never finished")
		}
		if err := s.RunTo(s.Now() + 1000); err != nil {
			t.Fatal(err)
		}
	}
}

// The driver, stepping in frame-sized increments, ends where the
// scenario runner ends: same state, same findings, no failures.
func TestDriverMatchesRunner(t *testing.T) {
	for _, name := range []string{"acks1-leader-death.ksim", "group-rebalance.ksim", "poweroff-all.ksim", "group-manual-poll.ksim", "group-commit-reported-late.ksim", "consumer-buffered-fetch.ksim"} {
		t.Run(name, func(t *testing.T) {
			text := readScenario(t, name)
			sc, err := scenario.Parse(text)
			if err != nil {
				t.Fatal(err)
			}
			res, err := scenario.Run(sc, scenario.RunOptions{NoTrace: true})
			if err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal(res.Cluster.Snapshot())
			s := loaded(t, text)
			runAll(t, s)
			end := s.Driver().ScriptEnd()
			if end != res.Cluster.Now() {
				t.Fatalf("script ends at %d in the driver, %d in the runner", end, res.Cluster.Now())
			}
			// again in frame-sized increments, to the script's end
			s = loaded(t, text)
			for s.Now() < end {
				if err := s.RunTo(min(s.Now()+16, end)); err != nil {
					t.Fatal(err)
				}
			}
			if got := snapJSON(t, s.Driver()); got != string(want) {
				t.Errorf("driver ends in a different state than the runner:\n got %s\nwant %s", got, want)
			}
			for _, f := range s.Driver().Failures() {
				t.Errorf("line %d: %s", f.Line, f.Msg)
			}
		})
	}
}

func TestAcks1LostAndSeekReplays(t *testing.T) {
	s := loaded(t, readScenario(t, "acks1-leader-death.ksim"))
	runAll(t, s)
	lost := check.LostRecords(s.Driver().Cluster())
	if len(lost) != 1 || lost[0].Value != "m3" {
		t.Fatalf("lost = %v, want m3", lost)
	}
	end := s.Now()
	live, liveHash := snapJSON(t, s.Driver()), s.Driver().TraceHash()
	if err := s.GoTo(20_000); err != nil {
		t.Fatal(err)
	}
	if s.Now() != 20_000 {
		t.Fatalf("now = %d after seeking to 20s", s.Now())
	}
	if got := s.Driver().Cluster().Snapshot().Brokers[0].State; got != "crashed" {
		t.Errorf("at 20s broker 1 is %s, want crashed", got)
	}
	if err := s.GoTo(end); err != nil {
		t.Fatal(err)
	}
	if got := snapJSON(t, s.Driver()); got != live {
		t.Errorf("seek back and forward: snapshot differs from the live run")
	}
	if got := s.Driver().TraceHash(); got != liveHash {
		t.Errorf("trace hash %s, live %s", got, liveHash)
	}
	if len(s.Branches()) != 1 {
		t.Errorf("seeking made %d branches", len(s.Branches()))
	}
}

// equivalent replays the session's exported script in a fresh driver to
// the same time: same trace, same state.
func equivalent(t *testing.T, s *Session) {
	t.Helper()
	sc, err := scenario.Parse(s.Script())
	if err != nil {
		t.Fatalf("exported script does not parse: %v\n%s", err, s.Script())
	}
	d, err := NewDriver(sc.Steps, StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.RunTo(s.Now()); err != nil {
		t.Fatal(err)
	}
	if d.TraceHash() != s.Driver().TraceHash() {
		t.Errorf("replaying the exported script gives another trace:\n%s", s.Script())
	}
	if snapJSON(t, d) != snapJSON(t, s.Driver()) {
		t.Errorf("replaying the exported script gives another state")
	}
}

func TestCommandDuringWaitSplitsIt(t *testing.T) {
	s := loaded(t, readScenario(t, "acks1-leader-death.ksim"))
	if err := s.RunTo(5_500); err != nil { // inside `wait 30s` (1.1s..31.1s)
		t.Fatal(err)
	}
	res, err := s.Command("crash broker 3")
	if err != nil || res.Error != "" {
		t.Fatalf("crash broker 3: %v %q", err, res.Error)
	}
	if res.At != 5_500 {
		t.Errorf("ran at %d, want 5500", res.At)
	}
	script := s.Script()
	if !strings.Contains(script, "wait 4400ms\ncrash broker 3\nwait 25600ms\n") {
		t.Errorf("wait not split around the command:\n%s", script)
	}
	if err := s.RunTo(40_000); err != nil {
		t.Fatal(err)
	}
	equivalent(t, s)
	if len(s.Branches()) != 1 {
		t.Errorf("acting at the horizon forked")
	}
}

func TestCommandAfterScriptEnd(t *testing.T) {
	s := loaded(t, "cluster brokers=3 seed=1\ntopic create t partitions=1 rf=3\nproducer p acks=all\n")
	if err := s.RunTo(2_000); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Command("produce p t value=a"); err != nil {
		t.Fatal(err)
	}
	if err := s.RunTo(3_250); err != nil {
		t.Fatal(err)
	}
	want := "producer p acks=all\nwait 2000ms\nproduce p t value=a\nwait 1250ms\n"
	if got := s.Script(); !strings.HasSuffix(got, want) {
		t.Errorf("script:\n%s\nwant it to end in\n%s", got, want)
	}
	equivalent(t, s)
}

func TestForkKeepsBothBranches(t *testing.T) {
	s := loaded(t, readScenario(t, "acks1-leader-death.ksim"))
	runAll(t, s)
	mainHash, mainScript, end := s.Driver().TraceHash(), s.Branch().Script(), s.Now()
	if err := s.GoTo(500); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Command("crash broker 2"); err != nil {
		t.Fatal(err)
	}
	if n := len(s.Branches()); n != 2 {
		t.Fatalf("%d branches after acting in the past, want 2", n)
	}
	fork := s.Branch()
	if fork.ID == 1 || fork.Parent != 1 || fork.ForkAt != 500 || fork.Change != "crash broker 2" {
		t.Errorf("fork = %+v", fork)
	}
	if got := s.find(1).Script(); got != mainScript {
		t.Errorf("the old branch changed:\n%s", got)
	}
	runAll(t, s)
	// the rest of the script ran in the fork too.
	if !strings.Contains(s.Script(), "crash broker 2\nwait 500ms\nexpect log orders-0 == m1,m2") {
		t.Errorf("fork script:\n%s", s.Script())
	}
	equivalent(t, s)
	if err := s.Switch(1); err != nil {
		t.Fatal(err)
	}
	if err := s.GoTo(end); err != nil {
		t.Fatal(err)
	}
	if s.Driver().TraceHash() != mainHash {
		t.Errorf("switching back to the first branch replays another trace")
	}
}

func TestCommandErrors(t *testing.T) {
	s := New(StoreOptions{})
	if _, err := s.Command("crash broker 1"); err != ErrNoSession {
		t.Errorf("before load: %v", err)
	}
	err := s.Load("topic create t partitions=1 rf=1\n")
	if err == nil || !strings.Contains(err.Error(), "cluster") {
		t.Errorf("script without cluster: %v", err)
	}
	s = loaded(t, "cluster brokers=1 seed=3\n")
	_, err = s.Command("crash brokr 1")
	se, ok := err.(*scenario.Error)
	if !ok || se.Col < 7 {
		t.Errorf("typo: %v, want a column error at the word", err)
	}
	res, err := s.Command("crash broker 9")
	if err != nil || !strings.Contains(res.Error, "no broker 9") {
		t.Errorf("crash broker 9: %v %q", err, res.Error)
	}
	res, err = s.Command("print 1")
	if err != nil || !strings.Contains(res.Output, "broker 1") {
		t.Errorf("print 1: %v %+v", err, res)
	}
}

func TestShareRoundTrip(t *testing.T) {
	s := loaded(t, readScenario(t, "acks1-leader-death.ksim"))
	if err := s.RunTo(12_345); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Command("crash broker 3"); err != nil {
		t.Fatal(err)
	}
	if err := s.RunTo(20_000); err != nil {
		t.Fatal(err)
	}
	frag, err := EncodeShare(Share{Script: s.Script(), At: s.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if len(frag) > 1200 {
		t.Errorf("share link of a small scenario is %d bytes", len(frag))
	}
	sh, err := DecodeShare("#" + frag)
	if err != nil {
		t.Fatal(err)
	}
	o := loaded(t, sh.Script)
	if err := o.GoTo(sh.At); err != nil {
		t.Fatal(err)
	}
	if o.Driver().TraceHash() != s.Driver().TraceHash() || snapJSON(t, o.Driver()) != snapJSON(t, s.Driver()) {
		t.Errorf("the share link opens another session")
	}
	for _, bad := range []string{"", "ksim=!!", "ksim=AAAA", "ksim=" + frag[5:20] + "&t=-1", "t=5"} {
		if _, err := DecodeShare(bad); err == nil {
			t.Errorf("DecodeShare(%q) accepted", bad)
		}
	}
}

// A command during a settle waits for it and runs at the instant it
// completes; the exported script replays to the same run.
func TestCommandDuringSettleIsQueued(t *testing.T) {
	s := loaded(t, "cluster brokers=3 seed=5\ntopic create t partitions=1 rf=3\nproducer p acks=all\nproduce p t value=a\nsettle\nproduce p t value=b\nwait 1s\n")
	if err := s.RunTo(0); err != nil {
		t.Fatal(err)
	}
	what, until := s.Driver().Blocked()
	if what != "settle" || until <= 0 {
		t.Fatalf("blocked on %q until %d, want the settle", what, until)
	}
	res, err := s.Command("crash broker 3")
	if err != nil || !res.Queued {
		t.Fatalf("command during a settle: %+v %v", res, err)
	}
	if err := s.RunTo(3_000); err != nil {
		t.Fatal(err)
	}
	if s.Driver().Queued() != 0 {
		t.Errorf("still queued")
	}
	script := s.Script()
	if !strings.Contains(script, "settle\ncrash broker 3\nproduce p t value=b") {
		t.Errorf("the queued command is not right after the settle:\n%s", script)
	}
	equivalent(t, s)
}
