package app

import (
	"encoding/json"
	"fmt"

	"github.com/kafkasim/kafkasim/lessons/model"
	"github.com/kafkasim/kafkasim/lessons/web"
	"github.com/kafkasim/kafkasim/wasm/scene"
	"github.com/kafkasim/kafkasim/wasm/session"
)

// The lesson pane's calls (assets/model.js through kafkasim.lessons)
// that need the cluster: checks and predictions are evaluated on the
// session's live cluster, highlights resolved, Back's replay script
// built. Parsing is not here, so the engine's wasm carries no Markdown
// parser: bundled lessons are rendered to JSON when the app is built
// (internal/webapp, with package lessons) and a teacher's own file is
// parsed by the small wasm/lessonparse binary the page loads on demand.

// LessonCheck evaluates expect lines (JSON []model.ScriptLine) on the
// cluster now; lastErr is the error of the step's last command.
func (e *Engine) LessonCheck(checks, lastErr string) (web.Result, error) {
	d := e.sess.Driver()
	if d == nil {
		return web.Result{}, session.ErrNoSession
	}
	var ls []model.ScriptLine
	if err := decodeLimited(checks, &ls); err != nil {
		return web.Result{}, fmt.Errorf("lesson check: %v", err)
	}
	return web.Check(d.Cluster(), lastErr, ls)
}

// LessonJudge evaluates every choice of a predict step (JSON
// model.Step) on the cluster now.
func (e *Engine) LessonJudge(step, lastErr string) (web.Judgement, error) {
	d := e.sess.Driver()
	if d == nil {
		return web.Judgement{}, session.ErrNoSession
	}
	var st model.Step
	if err := decodeLimited(step, &st); err != nil {
		return web.Judgement{}, fmt.Errorf("lesson judge: %v", err)
	}
	return web.Judge(d.Cluster(), lastErr, &st)
}

// LessonRefs turns highlight targets (JSON []model.Target) into the
// scene references the canvas lights, resolving records by value.
func (e *Engine) LessonRefs(targets string) ([]scene.Ref, error) {
	var ts []model.Target
	if err := decodeLimited(targets, &ts); err != nil {
		return nil, fmt.Errorf("lesson refs: %v", err)
	}
	if len(ts) > scene.MaxRefs {
		ts = ts[:scene.MaxRefs]
	}
	out := []scene.Ref{}
	if d := e.sess.Driver(); d != nil {
		out = append(out, web.Refs(d.Cluster(), ts)...)
	}
	return out, nil
}

// LessonReplay is the script that rebuilds a lesson's cluster as it is
// just before step `at` (JSON model.Lesson): Back loads it and plays it
// to its end.
func (e *Engine) LessonReplay(lesson string, at int) (string, error) {
	var l model.Lesson
	if err := decodeLimited(lesson, &l); err != nil {
		return "", fmt.Errorf("lesson replay: %v", err)
	}
	s, _, err := web.Replay(&l, at)
	return s, err
}

// Busy reports whether a settle, poll or commit is in progress or commands
// wait for one: a lesson step runs its next line only when it is not.
func (e *Engine) Busy() bool {
	d := e.sess.Driver()
	if d == nil {
		return false
	}
	what, _ := d.Blocked()
	return what != "" || d.Queued() > 0
}

// decodeLimited decodes JSON from the page, refusing oversized input.
func decodeLimited(s string, v any) error {
	if len(s) > 2*model.MaxLessonBytes {
		return fmt.Errorf("input too large (%d bytes)", len(s))
	}
	return json.Unmarshal([]byte(s), v)
}
