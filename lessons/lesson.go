package lessons

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/lessons/model"
)

// The lesson's data lives in package model (free of goldmark, so the
// page's engine can use it); these names keep this package's API.
type (
	Error      = model.Error
	Lesson     = model.Lesson
	Source     = model.Source
	Kind       = model.Kind
	ScriptLine = model.ScriptLine
	Choice     = model.Choice
	Target     = model.Target
	Panel      = model.Panel
	Step       = model.Step
)

// The step kinds (model.Run, model.Predict, model.Act).
const (
	Run     = model.Run
	Predict = model.Predict
	Act     = model.Act
)

// TargetKinds lists the highlightable elements (model.TargetKinds).
var TargetKinds = model.TargetKinds

// StartsCluster reports whether a step starts a fresh cluster (model.StartsCluster).
func StartsCluster(st *Step) bool { return model.StartsCluster(st) }

// Holds evaluates expect lines on a cluster now (model.Holds).
func Holds(c *core.Cluster, lastErr string, checks []ScriptLine) (bool, []string, error) {
	return model.Holds(c, lastErr, checks)
}

// Limits on what Parse accepts.
const (
	MaxLessonBytes  = model.MaxLessonBytes
	MaxSteps        = model.MaxSteps
	maxLinesPerStep = 200 // scenario lines in one step
	maxChoices      = 8
	maxTargets      = 16
	maxTextBytes    = 8 << 10 // one directive's or front-matter value's text
)

var langRe = regexp.MustCompile(`^[a-z]{2,3}(-[A-Za-z0-9]{1,8})?$`)

// Parse parses a lesson file written in language lang ("en", "zh", ...).
// It checks the syntax of every scenario line and directive, and that the
// first step starts with `cluster` (and no later line does); it does not
// run anything (Verify does). Errors are *Error with the file's line.
func Parse(src []byte, lang string) (*Lesson, error) {
	if !langRe.MatchString(lang) {
		return nil, &Error{Line: 1, Msg: fmt.Sprintf("language %q: want a code like en or zh", lang)}
	}
	if len(src) > MaxLessonBytes {
		return nil, &Error{Line: 1, Msg: fmt.Sprintf("lesson too large: %d bytes (max %d)", len(src), MaxLessonBytes)}
	}
	if !utf8.Valid(src) {
		return nil, &Error{Line: 1, Msg: "a lesson file is UTF-8 text"}
	}
	s := strings.ReplaceAll(strings.TrimPrefix(string(src), "\uFEFF"), "\r\n", "\n")
	fmLines, body, bodyLine, err := splitFrontMatter(s)
	if err != nil {
		return nil, err
	}
	fm, err := parseFrontMatter(fmLines)
	if err != nil {
		return nil, err
	}
	l := &Lesson{ID: fm.id, Lang: lang, Title: fm.title, Order: fm.order, Summary: fm.summary,
		Prerequisites: append([]string{}, fm.prerequisites...), Sources: append([]Source{}, fm.sources...)}
	blocks, above, outro, err := sections([]byte(body), bodyLine-1)
	if err != nil {
		return nil, err
	}
	if len(blocks) == 0 {
		return nil, &Error{Line: bodyLine, Msg: "a lesson needs at least one ```ksim block"}
	}
	if len(blocks) > MaxSteps {
		return nil, &Error{Line: blocks[MaxSteps].Line, Msg: fmt.Sprintf("at most %d steps", MaxSteps)}
	}
	for i, b := range blocks {
		st, err := parseStep(b.StepKind, b.Body, b.Line+1, inline)
		if err != nil {
			return nil, err
		}
		st.Line, st.Narration = b.Line, above[i]
		if err := checkCluster(st, i); err != nil {
			return nil, err
		}
		l.Steps = append(l.Steps, *st)
	}
	l.Outro = outro
	return l, nil
}

// checkCluster: the first step starts with `cluster ...`; a later step may
// too (it starts a fresh cluster, e.g. the same story on another version);
// `cluster` anywhere else is an error.
func checkCluster(st *Step, i int) error {
	for j, c := range st.Commands {
		isCluster := strings.HasPrefix(c.Text, "cluster ") || c.Text == "cluster"
		if isCluster && j > 0 {
			return &Error{Line: c.Line, Msg: "`cluster` may only be the first line of a step"}
		}
		if !isCluster && i == 0 && j == 0 {
			return &Error{Line: c.Line, Msg: "the first step starts with `cluster brokers=N ...`"}
		}
	}
	if i == 0 && (st.Kind == Act || len(st.Commands) == 0) {
		return &Error{Line: st.Line, Msg: "the first step is a run or predict step starting with `cluster brokers=N ...`"}
	}
	if st.Kind == Act && StartsCluster(st) {
		return &Error{Line: st.Line, Msg: "an act step cannot start a new cluster"}
	}
	return nil
}

//go:embed en/*.md zh/*.md
var bundled embed.FS

// Langs are the languages every bundled lesson is written in.
var Langs = []string{"en", "zh"}

// Bundled returns the lessons shipped with kafkasim in language lang,
// sorted by order.
func Bundled(lang string) ([]*Lesson, error) {
	files, err := fs.Glob(bundled, lang+"/*.md")
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no bundled lessons in language %q (have %s)", lang, strings.Join(Langs, ", "))
	}
	var out []*Lesson
	for _, f := range files {
		src, err := bundled.ReadFile(f)
		if err != nil {
			return nil, err
		}
		l, err := Parse(src, lang)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path.Base(f), err)
		}
		out = append(out, l)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Order < out[j].Order })
	return out, nil
}
