//go:build js && wasm

// Package engine is the page's engine API in WebAssembly: the real
// kafkasim core (core, core/scenario, core/check) behind wasm/app,
// exposed as globalThis.__kafkasimEngine, an object of functions that
// take plain values and return JSON text. It runs inside the canvas
// binary (wasm/canvas), in the canvas iframe; the page shell reaches it
// synchronously through the same-origin iframe.contentWindow, and
// assets/api.js wraps it as window.kafkasim (docs/page-api.md). The
// canvas reads the engine's scene in-process, with no JSON in between.
//
// Every function the page can call is in Handlers (this file) or added
// with Register before Start: this is the one place to hook into.
package engine

import (
	"encoding/json"
	"fmt"
	"syscall/js"

	"github.com/kafkasim/kafkasim/wasm/app"
)

// Handler is one engine function: its arguments as the page passed
// them; its value is encoded as {"ok": value} and its error as
// {"error": {"msg": ...}} (an *app.ErrorInfo value as that error).
type Handler func(args []js.Value) (any, error)

var extra = map[string]func(*app.Engine) Handler{}

// Register adds a function to the engine's API (call it before Start,
// e.g. from an init function): mk is given the page's engine. A name
// already in Handlers is refused with a panic at start-up, so no one
// replaces another's function by accident.
func Register(name string, mk func(*app.Engine) Handler) { extra[name] = mk }

// Start makes the page's engine, exposes its API as
// globalThis.__kafkasimEngine and calls globalThis.__kafkasimEngineReady
// when that is a function. It returns the engine for in-process readers
// (the canvas).
func Start() *app.Engine {
	e := app.New()
	api := js.Global().Get("Object").New()
	hs := Handlers(e)
	for name, mk := range extra {
		if _, dup := hs[name]; dup {
			panic("engine.Register: " + name + " is already an engine function")
		}
		hs[name] = mk(e)
	}
	hs = liveHandlers(e, hs) // live mode takes the clock and the script while a room is followed: live.go
	for name, fn := range hs {
		api.Set(name, js.FuncOf(wrap(name, fn)))
	}
	js.Global().Set("__kafkasimEngine", api)
	if ready := js.Global().Get("__kafkasimEngineReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	return e
}

// result is what every call returns, as JSON: the value, or an error.
type result struct {
	OK    any    `json:"ok,omitempty"`
	Error any    `json:"error,omitempty"`
	Now   *int64 `json:"now,omitempty"`
}

// wrap turns a handler into a JS function returning JSON text; a panic
// becomes an error answer rather than killing the engine.
func wrap(name string, h Handler) func(js.Value, []js.Value) any {
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

// Handlers are the engine's functions (docs/page-api.md says what each
// does through window.kafkasim).
func Handlers(e *app.Engine) map[string]Handler {
	return map[string]Handler{
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
		"seek":     func(a []js.Value) (any, error) { return e.Now(), e.SeekTo(int64(num(a, 0, 0))) },
		"speed":    func(a []js.Value) (any, error) { return e.SetSpeed(num(a, 0, 1)), nil },
		"now":      func(a []js.Value) (any, error) { return e.Now(), nil },
		"state":    func(a []js.Value) (any, error) { return e.State(num(a, 0, 0) != 0), nil },
		"snapshot": func(a []js.Value) (any, error) { return e.Snapshot(), nil },
		"findings": func(a []js.Value) (any, error) { return e.Findings(), nil },
		// findingsCount: the tab badge's count, cheap while playing
		"findingsCount": func(a []js.Value) (any, error) { return e.FindingsCount(), nil },
		"story":         func(a []js.Value) (any, error) { return e.Story(str(a, 0)) },
		"script":        func(a []js.Value) (any, error) { return e.Script(), nil },
		"share":         func(a []js.Value) (any, error) { return e.Share() },
		"openShare":     func(a []js.Value) (any, error) { return e.OpenShare(str(a, 0)), nil },
		"switch":        func(a []js.Value) (any, error) { return e.Now(), e.Switch(int(num(a, 0, 0))) },
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
		// view sets what the canvas draws (app.SceneOptions as JSON); the
		// canvas reads the scene in-process on its next frame.
		"view": func(a []js.Value) (any, error) { return nil, e.SetSceneOptionsJSON(str(a, 0)) },
		// the lesson pane (wasm/app/lessons.go); bundled lessons are
		// static JSON and a teacher's file is parsed by wasm/lessonparse
		"lessonCheck":  func(a []js.Value) (any, error) { return e.LessonCheck(str(a, 0), str(a, 1)) },
		"lessonJudge":  func(a []js.Value) (any, error) { return e.LessonJudge(str(a, 0), str(a, 1)) },
		"lessonRefs":   func(a []js.Value) (any, error) { return e.LessonRefs(str(a, 0)) },
		"lessonReplay": func(a []js.Value) (any, error) { return e.LessonReplay(str(a, 0), int(num(a, 1, 0))) },
		"busy":         func(a []js.Value) (any, error) { return e.Busy(), nil },
	}
}
