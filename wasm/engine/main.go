//go:build js && wasm

// Command engine is the page's WebAssembly engine: the real kafkasim core
// (core, core/scenario, core/check) behind wasm/app, exposed to the page
// as globalThis.__kafkasimEngine, an object of functions that take plain
// values and return JSON text. assets/app.js wraps it as window.kafkasim
// (docs/page-api.md). No ebiten here: the canvas is another binary in an
// iframe, fed the scenes this engine builds.
package main

import (
	"encoding/json"
	"fmt"
	"syscall/js"

	"github.com/kafkasim/kafkasim/wasm/app"
)

func main() {
	e := app.New()
	api := js.Global().Get("Object").New()
	for name, fn := range handlers(e) {
		api.Set(name, js.FuncOf(wrap(name, fn)))
	}
	// sceneText returns the scene envelope as JSON text, ready to post to
	// the canvas without another encode ("" when there is nothing to draw).
	api.Set("sceneText", js.FuncOf(func(_ js.Value, args []js.Value) (out any) {
		defer func() {
			if r := recover(); r != nil {
				out = ""
			}
		}()
		raw, err := e.SceneJSON(str(args, 0))
		if err != nil {
			return ""
		}
		return string(raw)
	}))
	js.Global().Set("__kafkasimEngine", api)
	if ready := js.Global().Get("__kafkasimEngineReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {}
}

// result is what every call returns, as JSON: the value, or an error.
type result struct {
	OK    any    `json:"ok,omitempty"`
	Error any    `json:"error,omitempty"`
	Now   *int64 `json:"now,omitempty"`
}

type handler func(args []js.Value) (any, error)

// wrap turns a handler into a JS function returning JSON text; a panic
// becomes an error answer rather than killing the engine.
func wrap(name string, h handler) func(js.Value, []js.Value) any {
	return func(_ js.Value, args []js.Value) (out any) {
		defer func() {
			if r := recover(); r != nil {
				b, _ := json.Marshal(result{Error: map[string]string{"msg": fmt.Sprintf("internal error in %s: %v", name, r)}})
				out = string(b)
			}
		}()
		v, err := h(args)
		var res result
		if err != nil {
			res.Error = map[string]string{"msg": err.Error()}
		} else if ei, ok := v.(*app.ErrorInfo); ok {
			if ei != nil {
				res.Error = ei
			} else {
				res.OK = true
			}
		} else {
			res.OK = v
			if v == nil {
				res.OK = true
			}
		}
		b, err := json.Marshal(res)
		if err != nil {
			b, _ = json.Marshal(result{Error: map[string]string{"msg": name + ": " + err.Error()}})
		}
		return string(b)
	}
}

// lessonOrError answers a parsed lesson, or its error with the line.
func lessonOrError(l any, ei *app.ErrorInfo) (any, error) {
	if ei != nil {
		return ei, nil
	}
	return l, nil
}

func str(args []js.Value, i int) string {
	if i < len(args) && args[i].Type() == js.TypeString {
		return args[i].String()
	}
	return ""
}

func num(args []js.Value, i int, def float64) float64 {
	if i < len(args) && args[i].Type() == js.TypeNumber {
		return args[i].Float()
	}
	return def
}

func handlers(e *app.Engine) map[string]handler {
	return map[string]handler{
		"load":    func(a []js.Value) (any, error) { return e.Load(str(a, 0)), nil },
		"command": func(a []js.Value) (any, error) { return e.Command(str(a, 0)), nil },
		"tick": func(a []js.Value) (any, error) {
			changed, err := e.Tick(num(a, 0, 0))
			return map[string]any{"changed": changed, "now": e.Now(), "version": e.Version()}, err
		},
		"advance": func(a []js.Value) (any, error) { return e.Now(), e.Advance(int64(num(a, 0, 0))) },
		"play":    func(a []js.Value) (any, error) { e.Play(); return e.Playing(), nil },
		"pause":   func(a []js.Value) (any, error) { e.Pause(); return false, nil },
		"step": func(a []js.Value) (any, error) {
			ok, err := e.Step()
			return map[string]any{"stepped": ok, "now": e.Now()}, err
		},
		"seek":      func(a []js.Value) (any, error) { return e.Now(), e.SeekTo(int64(num(a, 0, 0))) },
		"speed":     func(a []js.Value) (any, error) { return e.SetSpeed(num(a, 0, 1)), nil },
		"now":       func(a []js.Value) (any, error) { return e.Now(), nil },
		"state":     func(a []js.Value) (any, error) { return e.State(num(a, 0, 0) != 0), nil },
		"snapshot":  func(a []js.Value) (any, error) { return e.Snapshot(), nil },
		"findings":  func(a []js.Value) (any, error) { return e.Findings(), nil },
		"story":     func(a []js.Value) (any, error) { return e.Story(str(a, 0)) },
		"script":    func(a []js.Value) (any, error) { return e.Script(), nil },
		"share":     func(a []js.Value) (any, error) { return e.Share() },
		"openShare": func(a []js.Value) (any, error) { return e.OpenShare(str(a, 0)), nil },
		"switch":    func(a []js.Value) (any, error) { return e.Now(), e.Switch(int(num(a, 0, 0))) },
		"compare": func(a []js.Value) (any, error) {
			return e.Compare(int(num(a, 0, 0)), int(num(a, 1, 0)), int64(num(a, 2, -1)))
		},
		"events": func(a []js.Value) (any, error) {
			var q app.EventQuery
			if s := str(a, 0); s != "" {
				if err := json.Unmarshal([]byte(s), &q); err != nil {
					return nil, fmt.Errorf("events: bad query: %v", err)
				}
			}
			return e.Events(q), nil
		},
		"segments": func(a []js.Value) (any, error) {
			return e.Segments(str(a, 0), int(num(a, 1, 0)), int64(num(a, 2, -1)))
		},
		"metadata": func(a []js.Value) (any, error) { return e.Metadata() },
		"offsets":  func(a []js.Value) (any, error) { return e.Offsets() },
		"metrics":  func(a []js.Value) (any, error) { return e.Metrics() },
		"overview": func(a []js.Value) (any, error) { return e.Overview() },
		"describe": func(a []js.Value) (any, error) { return e.Describe(str(a, 0)) },
		"recordAt": func(a []js.Value) (any, error) {
			return e.RecordValue(str(a, 0), int(num(a, 1, 0)), int64(num(a, 2, 0)))
		},
		"scene": func(a []js.Value) (any, error) {
			return e.SceneJSON(str(a, 0))
		},
		// the lesson pane (wasm/app/lessons.go)
		"lessonIndex": func(a []js.Value) (any, error) { return e.LessonIndex(str(a, 0)) },
		"lesson":      func(a []js.Value) (any, error) { return e.Lesson(str(a, 0), str(a, 1)) },
		"lessonParse": func(a []js.Value) (any, error) {
			l, ei := e.LessonParse(str(a, 0), str(a, 1))
			return lessonOrError(l, ei)
		},
		"lessonCheck":  func(a []js.Value) (any, error) { return e.LessonCheck(str(a, 0), str(a, 1)) },
		"lessonJudge":  func(a []js.Value) (any, error) { return e.LessonJudge(str(a, 0), str(a, 1)) },
		"lessonRefs":   func(a []js.Value) (any, error) { return e.LessonRefs(str(a, 0)) },
		"lessonReplay": func(a []js.Value) (any, error) { return e.LessonReplay(str(a, 0), int(num(a, 1, 0))) },
		"busy":         func(a []js.Value) (any, error) { return e.Busy(), nil },
	}
}
