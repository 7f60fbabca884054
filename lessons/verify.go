package lessons

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/kafkasim/kafkasim/core/scenario"
)

// Verify runs a lesson on the core, step after step, as the page would
// with a learner who answers and acts as the lesson intends, and returns
// the first way the cluster disagrees with the text:
//   - a command fails without an `expect error` after it, or an expect
//     line of a run or predict step does not hold;
//   - after a predict step has run, the choice marked right does not hold,
//     or another choice does;
//   - an act step's checks already hold before "show me" (the task would
//     be done without the learner), or do not hold after it.
func Verify(l *Lesson) error {
	r := scenario.NewRunner(scenario.RunOptions{NoTrace: true, NoCheck: true})
	for i := range l.Steps {
		st := &l.Steps[i]
		where := fmt.Sprintf("%s [%s] step %d (line %d)", l.ID, l.Lang, i+1, st.Line)
		if i > 0 && StartsCluster(st) {
			if err := finish(l, r); err != nil {
				return err
			}
			r = scenario.NewRunner(scenario.RunOptions{NoTrace: true, NoCheck: true})
		}
		if st.Kind == Act {
			if ok, _, err := Holds(r.Cluster(), "", st.Checks); err != nil || ok {
				return fmt.Errorf("%s: the task's checks hold before the learner does anything (%v)", where, err)
			}
		}
		lastErr, err := runLines(r, st)
		if err != nil {
			return fmt.Errorf("%s: %v", where, err)
		}
		switch st.Kind {
		case Act:
			if ok, got, err := Holds(r.Cluster(), "", st.Checks); err != nil || !ok {
				return fmt.Errorf("%s: after show me the checks do not hold: %s got %v (err=%v)", where, texts(st.Checks), got, err)
			}
		case Predict:
			if lastErr != "" {
				// The runner holds the error for an `expect error`; the
				// choices have judged it, so acknowledge it.
				if ps, err := scenario.ParseLine("expect error == "+lastErr, st.Line); err == nil {
					_ = r.Step(ps)
				}
			}
			for j, c := range st.Choices {
				ok, got, err := Holds(r.Cluster(), lastErr, c.Checks)
				if err != nil {
					return fmt.Errorf("%s choice %d: %v", where, j+1, err)
				}
				if ok != c.Correct {
					return fmt.Errorf("%s choice %d (%s): marked right=%v but its checks hold=%v: %s got %v",
						where, j+1, c.Label, c.Correct, ok, texts(c.Checks), got)
				}
			}
		}
	}
	return finish(l, r)
}

// finish ends a run: a command error nobody expected is a failure.
func finish(l *Lesson, r *scenario.Runner) error {
	res := r.Finish()
	if len(res.Failures) > 0 {
		f := res.Failures[0]
		return fmt.Errorf("%s [%s] line %d: %s", l.ID, l.Lang, f.Line, f.Msg)
	}
	return nil
}

// runLines steps the runner through a step's commands and returns the
// error of its last command if that failed. A failed command must be
// followed by `expect error` in the same step, or be the last command of a
// predict step whose right choice checks `expect error`; every expect
// must hold.
func runLines(r *scenario.Runner, s *Step) (string, error) {
	ls := s.Commands
	for k, l := range ls {
		st, err := scenario.ParseLine(l.Text, l.Line)
		if err != nil || st == nil {
			return "", fmt.Errorf("line %d: %v", l.Line, err)
		}
		before := len(r.Failures())
		if err := r.Step(st); err != nil {
			return "", fmt.Errorf("line %d: %v", l.Line, err)
		}
		if fs := r.Failures(); len(fs) > before {
			return "", fmt.Errorf("line %d: %s", fs[before].Line, fs[before].Msg)
		}
		e := r.CmdErr()
		switch {
		case e == "":
		case k+1 < len(ls) && strings.HasPrefix(ls[k+1].Text, "expect error "):
		case k+1 == len(ls) && s.Kind == Predict && rightChoiceChecksError(s):
			return e, nil
		default:
			return "", fmt.Errorf("line %d: %s failed: %s", l.Line, l.Text, e)
		}
	}
	return "", nil
}

func rightChoiceChecksError(s *Step) bool {
	for _, c := range s.Choices {
		for _, l := range c.Checks {
			if c.Correct && strings.HasPrefix(l.Text, "expect error ") {
				return true
			}
		}
	}
	return false
}

func texts(ls []ScriptLine) string {
	s := make([]string, len(ls))
	for i, l := range ls {
		s[i] = l.Text
	}
	return strings.Join(s, "; ")
}

// Same reports how two translations of a lesson differ in anything but
// their words: id, order, prerequisites, source URLs, and for every step
// its kind, scenario lines, highlights, panel, and its choices' order,
// marks and checks. Narration and labels may differ; nothing else may.
func Same(a, b *Lesson) error {
	if a.ID != b.ID || a.Order != b.Order || !reflect.DeepEqual(a.Prerequisites, b.Prerequisites) {
		return fmt.Errorf("%s/%s vs %s/%s: id, order or prerequisites differ", a.Lang, a.ID, b.Lang, b.ID)
	}
	if !reflect.DeepEqual(urls(a.Sources), urls(b.Sources)) {
		return fmt.Errorf("%s: source URLs differ: %v vs %v", a.ID, urls(a.Sources), urls(b.Sources))
	}
	if len(a.Steps) != len(b.Steps) {
		return fmt.Errorf("%s: %d steps in %s, %d in %s", a.ID, len(a.Steps), a.Lang, len(b.Steps), b.Lang)
	}
	for i := range a.Steps {
		if sa, sb := shape(&a.Steps[i]), shape(&b.Steps[i]); !reflect.DeepEqual(sa, sb) {
			return fmt.Errorf("%s step %d differs:\n%s: %+v\n%s: %+v", a.ID, i+1, a.Lang, sa, b.Lang, sb)
		}
	}
	return nil
}

type stepShape struct {
	Kind              Kind
	Commands, Checks  string
	Highlight, Point  []Target
	Panel             *Panel
	Choices           []string
	HasAsk, HasHint   bool
	HasWhy, HasTask   bool
	NarrationNonEmpty bool
}

func shape(s *Step) stepShape {
	sh := stepShape{Kind: s.Kind, Commands: texts(s.Commands), Checks: texts(s.Checks),
		Highlight: s.Highlight, Point: s.Point, Panel: s.Panel,
		HasAsk: s.Ask != "", HasHint: s.Hint != "", HasWhy: s.Why != "", HasTask: s.Task != "",
		NarrationNonEmpty: strings.TrimSpace(s.Narration) != ""}
	for _, c := range s.Choices {
		sh.Choices = append(sh.Choices, fmt.Sprintf("%v:%s", c.Correct, texts(c.Checks)))
	}
	return sh
}

func urls(ss []Source) []string {
	var u []string
	for _, s := range ss {
		u = append(u, s.URL)
	}
	return u
}
