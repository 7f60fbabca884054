//go:build js && wasm

// Command lessonparse parses a teacher's own lesson file in the page: the
// Markdown parser (goldmark) is here and not in the page's main wasm, so
// the page loads this small binary only when someone opens a lesson file
// or URL (bundled lessons arrive as JSON rendered when the app is built).
// It sets globalThis.__kafkasimLessonParse(text, lang), which returns
// lessons.ParseJSON's answer as JSON text, and calls
// globalThis.__kafkasimLessonParseReady when that is a function.
package main

import (
	"syscall/js"

	"github.com/kafkasim/kafkasim/lessons"
)

func main() {
	js.Global().Set("__kafkasimLessonParse", js.FuncOf(func(_ js.Value, args []js.Value) (out any) {
		defer func() {
			if r := recover(); r != nil {
				out = `{"error":{"msg":"internal error parsing the lesson"}}`
			}
		}()
		if len(args) < 2 || args[0].Type() != js.TypeString || args[1].Type() != js.TypeString {
			return `{"error":{"msg":"lessonparse: want (text, lang)"}}`
		}
		return lessons.ParseJSON(args[0].String(), args[1].String())
	}))
	if ready := js.Global().Get("__kafkasimLessonParseReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {}
}
