package lessons

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Summary is one entry of the lesson index.
type Summary struct {
	ID            string   `json:"id"`
	Title         string   `json:"title"`
	Order         int      `json:"order"`
	Summary       string   `json:"summary"`
	Prerequisites []string `json:"prerequisites"`
	Steps         int      `json:"steps"`
}

// Index lists the bundled lessons of lang, in order.
func Index(lang string) ([]Summary, error) {
	ls, err := Bundled(lang)
	if err != nil {
		return nil, err
	}
	out := make([]Summary, 0, len(ls))
	for _, l := range ls {
		out = append(out, Summary{ID: l.ID, Title: l.Title, Order: l.Order, Summary: l.Summary,
			Prerequisites: l.Prerequisites, Steps: len(l.Steps)})
	}
	return out, nil
}

// Get returns the bundled lesson id in lang.
func Get(lang, id string) (*Lesson, error) {
	ls, err := Bundled(lang)
	if err != nil {
		return nil, err
	}
	for _, l := range ls {
		if l.ID == id {
			return l, nil
		}
	}
	return nil, fmt.Errorf("no lesson %q in %s", id, lang)
}

// ParseJSON is Parse for the page (wasm/lessonparse): the lesson as
// {"ok": Lesson}, or {"error": {"msg": ..., "line": N}} with the file's
// line when the file does not parse.
func ParseJSON(src, lang string) string {
	type errInfo struct {
		Msg  string `json:"msg"`
		Line int    `json:"line,omitempty"`
	}
	var out struct {
		OK    *Lesson  `json:"ok,omitempty"`
		Error *errInfo `json:"error,omitempty"`
	}
	l, err := Parse([]byte(src), lang)
	var le *Error
	switch {
	case err == nil:
		out.OK = l
	case errors.As(err, &le):
		out.Error = &errInfo{Msg: le.Msg, Line: le.Line}
	default:
		out.Error = &errInfo{Msg: err.Error()}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return `{"error":{"msg":"lesson: cannot encode"}}`
	}
	return string(b)
}
