// Package model is a lesson's data, as the lessons package parses it and
// the page's lesson pane receives it as JSON (bundled lessons are
// rendered at build time), and the evaluation of a step's expect lines on
// a cluster. It does not import goldmark: the page's engine uses it
// without the Markdown parser (package lessons parses; its types are
// aliases of these).
package model

import (
	"fmt"
	"strings"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/scenario"
)

// Limits every lesson keeps (package lessons enforces them when parsing).
const (
	MaxLessonBytes = 256 << 10 // a lesson file
	MaxSteps       = 100       // steps in one lesson
)

// Error is a problem in a lesson file, at a 1-based line.
type Error struct {
	Line int
	Msg  string
}

// Error formats the error as "line N: message".
func (e *Error) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// Lesson is one parsed lesson file. Narration, labels and texts are HTML
// rendered by goldmark in package lessons (raw HTML in the source is not
// passed through).
type Lesson struct {
	ID            string   `json:"id"`
	Lang          string   `json:"lang"`
	Title         string   `json:"title"`
	Order         int      `json:"order"`
	Summary       string   `json:"summary"`
	Prerequisites []string `json:"prerequisites"`
	Sources       []Source `json:"sources"`
	Steps         []Step   `json:"steps"`
	// Outro is the HTML after the last step: the "what you saw" summary.
	Outro string `json:"outro"`
}

// Source is one reference a lesson rests on: a Kafka doc page, a KIP, a
// source file. URL is empty for a plain-text source.
type Source struct {
	Text string `json:"text"`
	URL  string `json:"url,omitempty"`
}

// Kind is what a step asks of the learner.
type Kind string

// The step kinds.
const (
	// Run plays the step's commands (waits animated) when the learner
	// presses Next or Run.
	Run Kind = "run"
	// Predict asks a question with choices first; the commands run once
	// the learner has picked, and the page says who was right and why.
	Predict Kind = "predict"
	// Act gives the learner a task, checked by expect conditions while
	// the cluster runs; "show me" performs the step's commands instead.
	Act Kind = "act"
)

// ScriptLine is one scenario-language line of a step, with the line of the
// lesson file it was written on (for error messages).
type ScriptLine struct {
	Text string `json:"text"`
	Line int    `json:"line"`
}

// Choice is one answer of a predict step. Checks are `expect` lines; the
// choice is what happened when all of them hold after the step has run.
type Choice struct {
	Label   string       `json:"label"` // HTML (inline Markdown)
	Correct bool         `json:"correct"`
	Checks  []ScriptLine `json:"checks"`
}

// Target is a canvas element a step highlights. Kind is one of
// TargetKinds; Name is a broker id, a partition (orders-0), a replica
// (orders-0@2), a record value, a client, a group, or "" for zk and
// controller.
type Target struct {
	Kind string `json:"kind"`
	Name string `json:"name,omitempty"`
}

// TargetKinds lists the highlightable elements and the form of each name.
var TargetKinds = map[string]string{
	"broker":     "BROKER_ID",
	"partition":  "TOPIC-N",
	"replica":    "TOPIC-N@BROKER",
	"hw":         "TOPIC-N (the high-watermark marker)",
	"leo":        "TOPIC-N@BROKER (a replica's log end)",
	"record":     "VALUE",
	"producer":   "NAME",
	"consumer":   "NAME",
	"group":      "NAME",
	"zk":         "",
	"controller": "",
}

// Panel is a side panel a step opens: "story" (one record's history; Arg is
// its value), "segments" (a replica's segment files; Arg is TOPIC-N@BROKER)
// or "znodes" (the ZooKeeper tree; Arg is an optional path).
type Panel struct {
	Kind string `json:"kind"`
	Arg  string `json:"arg,omitempty"`
}

// Step is one ```ksim block and the narration above it.
//
// Commands are the scenario lines in file order. In run and predict steps
// they are what Next runs; `expect` lines among them are assertions the
// text relies on (the tests require them to hold; the page flags them if a
// cluster ever disagrees). In an act step Commands are what "show me"
// performs and Checks are the task's conditions.
type Step struct {
	Kind      Kind         `json:"kind"`
	Line      int          `json:"line"`      // the block's opening fence
	Narration string       `json:"narration"` // HTML above the block
	Commands  []ScriptLine `json:"commands"`
	Highlight []Target     `json:"highlight,omitempty"`
	Panel     *Panel       `json:"panel,omitempty"`
	Ask       string       `json:"ask,omitempty"` // predict: the question (HTML)
	Choices   []Choice     `json:"choices,omitempty"`
	Why       string       `json:"why,omitempty"`   // predict: shown after the run (HTML)
	Point     []Target     `json:"point,omitempty"` // predict: what shows it, highlighted after the run
	Task      string       `json:"task,omitempty"`  // act: what to do (HTML)
	Hint      string       `json:"hint,omitempty"`  // act: shown after a while (HTML)
	Checks    []ScriptLine `json:"checks,omitempty"`
}

// StartsCluster reports whether a step starts a fresh cluster (its first
// line is `cluster ...`): the page discards the running cluster there, and
// rewinding never needs to replay steps before it.
func StartsCluster(st *Step) bool {
	return len(st.Commands) > 0 && strings.HasPrefix(st.Commands[0].Text, "cluster")
}

// Holds evaluates expect lines (a choice's or an act step's checks) on a
// cluster as it is now; lastErr is the error of the step's last command
// ("" if it succeeded), which `expect error` compares with. It reports whether all hold and, for each line,
// what the cluster has (in the form the line's expected value is written).
// A line about something that does not exist yet (a consumer not started)
// does not hold; its got reads "error: ...". The error is for lines that
// are not expect lines at all.
func Holds(c *core.Cluster, lastErr string, checks []ScriptLine) (bool, []string, error) {
	all := true
	got := make([]string, len(checks))
	for i, l := range checks {
		st, err := scenario.ParseLine(l.Text, l.Line)
		if err != nil || st == nil || st.Expect == nil {
			return false, nil, fmt.Errorf("line %d: not an expect line: %s", l.Line, l.Text)
		}
		ok, g, err := scenario.Check(c, st.Expect, lastErr)
		if err != nil {
			ok, g = false, "error: "+err.Error()
		}
		got[i], all = g, all && ok
	}
	return all, got, nil
}
