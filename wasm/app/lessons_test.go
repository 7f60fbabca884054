package app

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/lessons"
)

// TestLessonCalls drives the pane's calls as lessons.js does: replay a
// lesson to its first prediction, run that step's commands, judge it, and
// check an act step before and after its show-me.
func TestLessonCalls(t *testing.T) {
	e := New()
	l, err := lessons.Get("en", "message-loss")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(l)
	script, err := e.LessonReplay(string(raw), 1)
	if err != nil || !strings.HasPrefix(script, "cluster ") {
		t.Fatalf("replay: %v %q", err, script)
	}
	if ei := e.Load(script); ei != nil {
		t.Fatal(ei.Msg)
	}
	run := func(i int) {
		for _, c := range l.Steps[i].Commands {
			switch {
			case strings.HasPrefix(c.Text, "wait "):
				d := map[string]int64{"wait 100ms": 100, "wait 30s": 30000}[c.Text]
				if err := e.Advance(d); err != nil {
					t.Fatal(err)
				}
			case strings.HasPrefix(c.Text, "expect "):
			default:
				if r := e.Command(c.Text); r.Error != nil {
					t.Fatalf("%s: %s", c.Text, r.Error.Msg)
				}
			}
			for e.Busy() {
				if err := e.Advance(100); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if err := e.Advance(1000); err != nil { // the first step's wait 1s
		t.Fatal(err)
	}
	run(1)
	st, _ := json.Marshal(l.Steps[1])
	j, err := e.LessonJudge(string(st), "")
	if err != nil || !j.Agrees || j.Correct != 0 {
		t.Fatalf("judge: %+v %v", j, err)
	}
	checks, _ := json.Marshal(l.Steps[2].Checks)
	if r, err := e.LessonCheck(string(checks), ""); err != nil || r.OK {
		t.Fatalf("act checks before show-me: %+v %v", r, err)
	}
	run(2)
	if r, err := e.LessonCheck(string(checks), ""); err != nil || !r.OK {
		t.Fatalf("act checks after show-me: %+v %v", r, err)
	}
	pt, _ := json.Marshal(l.Steps[1].Point)
	refs, err := e.LessonRefs(string(pt))
	if err != nil || len(refs) != 2 || refs[0].Kind != "record" || refs[0].Offset != 2 {
		t.Errorf("refs: %+v %v", refs, err)
	}
	if _, err := e.LessonCheck("[not json", ""); err == nil {
		t.Error("bad JSON accepted")
	}
}
