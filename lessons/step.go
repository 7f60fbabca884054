package lessons

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kafkasim/kafkasim/core/scenario"
)

var (
	directiveRe = regexp.MustCompile(`^(highlight|panel|ask|choice\*?|why|point|task|hint):(.*)$`)
	partRe      = regexp.MustCompile(`^[A-Za-z0-9._-]+-[0-9]+$`)
	replicaRe   = regexp.MustCompile(`^[A-Za-z0-9._-]+-[0-9]+@[0-9]+$`)
	nameRe      = regexp.MustCompile(`^[A-Za-z0-9._-]{1,249}$`)
	brokerRe    = regexp.MustCompile(`^[1-9][0-9]?$`)
)

// parseStep parses a block body. first is the file line of the body's
// first line; inline renders the text of directives as inline Markdown.
func parseStep(kind Kind, body string, first int, inline func(string) string) (*Step, error) {
	st := &Step{Kind: kind, Commands: []ScriptLine{}}
	var why, ask, task, hint []string
	var choice *Choice
	lines := strings.Split(strings.TrimRight(body, "\n"), "\n")
	for i, raw := range lines {
		no := first + i
		text := strings.TrimSpace(raw)
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		if m := directiveRe.FindStringSubmatch(text); m != nil && raw == text {
			choice = nil
			arg := strings.TrimSpace(m[2])
			if arg == "" {
				return nil, &Error{Line: no, Msg: m[1] + ": needs text after the colon"}
			}
			if len(arg) > maxTextBytes {
				return nil, &Error{Line: no, Msg: m[1] + ": text too long"}
			}
			var err error
			switch m[1] {
			case "highlight":
				st.Highlight, err = appendTargets(st.Highlight, arg, no)
			case "point":
				st.Point, err = appendTargets(st.Point, arg, no)
			case "panel":
				if st.Panel != nil {
					return nil, &Error{Line: no, Msg: "panel: one panel per step"}
				}
				st.Panel, err = parsePanel(arg, no)
			case "ask":
				ask = append(ask, arg)
			case "why":
				why = append(why, arg)
			case "task":
				task = append(task, arg)
			case "hint":
				hint = append(hint, arg)
			default: // choice, choice*
				if len(st.Choices) == maxChoices {
					return nil, &Error{Line: no, Msg: fmt.Sprintf("at most %d choices", maxChoices)}
				}
				st.Choices = append(st.Choices, Choice{Label: inline(arg), Correct: m[1] == "choice*", Checks: []ScriptLine{}})
				choice = &st.Choices[len(st.Choices)-1]
			}
			if err != nil {
				return nil, err
			}
			continue
		}
		ps, err := scenario.ParseLine(text, no)
		if err != nil {
			return nil, &Error{Line: no, Msg: "scenario: " + err.(*scenario.Error).Msg}
		}
		if ps == nil {
			continue
		}
		sl := ScriptLine{Text: ps.Text, Line: no}
		indented := raw != text
		switch {
		case indented && choice != nil:
			if ps.Expect == nil {
				return nil, &Error{Line: no, Msg: "a choice's indented lines are `expect` conditions, got: " + ps.Text}
			}
			choice.Checks = append(choice.Checks, sl)
		case indented:
			return nil, &Error{Line: no, Msg: "an indented line belongs to a `choice:` line above it"}
		case kind == Act && ps.Expect != nil:
			if ps.Expect.Kind == "error" {
				return nil, &Error{Line: no, Msg: "an act step cannot check `expect error`; check what the cluster has"}
			}
			st.Checks = append(st.Checks, sl)
		default:
			choice = nil
			st.Commands = append(st.Commands, sl)
		}
		if len(st.Commands)+len(st.Checks) > maxLinesPerStep {
			return nil, &Error{Line: no, Msg: fmt.Sprintf("a step has at most %d scenario lines", maxLinesPerStep)}
		}
	}
	join := func(parts []string) string {
		if len(parts) == 0 {
			return ""
		}
		return inline(strings.Join(parts, "\n"))
	}
	st.Ask, st.Why, st.Task, st.Hint = join(ask), join(why), join(task), join(hint)
	return st, validateStep(st, first-1)
}

// validateStep checks that a step has what its kind needs.
func validateStep(st *Step, line int) error {
	fail := func(msg string) error { return &Error{Line: line, Msg: string(st.Kind) + " step: " + msg} }
	if st.Kind != Predict && (st.Ask != "" || len(st.Choices) > 0 || st.Why != "" || len(st.Point) > 0) {
		return fail("ask:, choice:, why: and point: belong to predict steps")
	}
	if st.Kind != Act && (st.Task != "" || st.Hint != "") {
		return fail("task: and hint: belong to act steps")
	}
	switch st.Kind {
	case Run:
		if len(st.Commands) == 0 {
			return fail("needs at least one scenario line")
		}
	case Predict:
		if st.Ask == "" || st.Why == "" {
			return fail("needs ask: (the question) and why: (the explanation shown after the run)")
		}
		if len(st.Choices) < 2 {
			return fail("needs at least two choice: lines")
		}
		correct := 0
		for _, c := range st.Choices {
			if c.Correct {
				correct++
			}
			if len(c.Checks) == 0 {
				return fail("every choice needs indented `expect` lines saying when it is what happened")
			}
		}
		if correct != 1 {
			return fail("exactly one choice is marked right (choice*:)")
		}
		if !hasCommand(st.Commands) {
			return fail("needs commands to run once the learner has picked")
		}
	case Act:
		if st.Task == "" || st.Hint == "" {
			return fail("needs task: (what to do) and hint:")
		}
		if len(st.Checks) == 0 {
			return fail("needs `expect` lines: the conditions that say the task is done")
		}
		if !hasCommand(st.Commands) {
			return fail(`needs the commands "show me" performs`)
		}
	}
	return nil
}

func hasCommand(ls []ScriptLine) bool {
	for _, l := range ls {
		if !strings.HasPrefix(l.Text, "expect ") {
			return true
		}
	}
	return false
}

// appendTargets parses "broker 1, hw orders-0, record m3".
func appendTargets(ts []Target, arg string, no int) ([]Target, error) {
	for _, part := range strings.Split(arg, ",") {
		f := strings.Fields(part)
		if len(f) == 0 || len(f) > 2 {
			return nil, &Error{Line: no, Msg: fmt.Sprintf("highlight %q: want KIND NAME, e.g. broker 1, partition orders-0, hw orders-0, record m3", strings.TrimSpace(part))}
		}
		form, ok := TargetKinds[f[0]]
		if !ok {
			return nil, &Error{Line: no, Msg: fmt.Sprintf("highlight: unknown element %q (broker, partition, replica, hw, leo, record, producer, consumer, group, zk, controller)", f[0])}
		}
		t := Target{Kind: f[0]}
		if len(f) == 2 {
			t.Name = f[1]
		}
		if (form == "") != (t.Name == "") || !targetNameOK(t) {
			return nil, &Error{Line: no, Msg: fmt.Sprintf("highlight %s: name must be %s", f[0], strings.TrimSpace(form+" (nothing)"))}
		}
		if len(ts) == maxTargets {
			return nil, &Error{Line: no, Msg: fmt.Sprintf("at most %d highlighted elements per step", maxTargets)}
		}
		ts = append(ts, t)
	}
	return ts, nil
}

func targetNameOK(t Target) bool {
	switch t.Kind {
	case "broker":
		return brokerRe.MatchString(t.Name)
	case "partition", "hw":
		return partRe.MatchString(t.Name)
	case "replica", "leo":
		return replicaRe.MatchString(t.Name)
	case "zk", "controller":
		return t.Name == ""
	}
	return nameRe.MatchString(t.Name)
}

func parsePanel(arg string, no int) (*Panel, error) {
	f := strings.Fields(arg)
	p := &Panel{Kind: f[0]}
	if len(f) > 2 {
		return nil, &Error{Line: no, Msg: "panel: KIND [ARG]"}
	}
	if len(f) == 2 {
		p.Arg = f[1]
	}
	ok := false
	switch p.Kind {
	case "story":
		ok = p.Arg != "" && nameRe.MatchString(p.Arg)
	case "segments":
		ok = replicaRe.MatchString(p.Arg)
	case "znodes":
		ok = p.Arg == "" || strings.HasPrefix(p.Arg, "/")
	}
	if !ok {
		return nil, &Error{Line: no, Msg: "panel: story RECORD, segments TOPIC-N@BROKER or znodes [/PATH]"}
	}
	return p, nil
}
