//go:build js && wasm

// Package webgl holds what kafkasim's Ebiten programs set on the WebGL
// context Ebiten creates: the canvas (wasm/canvas) and make bench's empty
// program (wasm/emptycanvas, which takes the same setting when asked, for
// the stricter of its two baselines).
package webgl

import (
	"syscall/js"
)

// SingleSampled makes the WebGL context Ebiten is about to create for its
// canvas single-sampled (antialias: false), by wrapping that canvas's own
// getContext; call it after Ebiten's init made the canvas (the only one
// in canvas.html) and before ebiten.RunGame creates the context. Ebiten
// asks for the browser's default, a multisampled drawing buffer (4x in
// Chromium), yet every quad of the picture is drawn into Ebiten's
// offscreen image, a texture that is never multisampled; the drawing
// buffer gets only Ebiten's black fill and the offscreen's copy, two
// rectangles over the whole buffer at whole pixels, whose pixels
// multisampling cannot change. It still costs every frame: those draws
// write four samples a pixel and the buffer is resolved before the
// compositor takes it. With software WebGL (SwiftShader, headless
// Chromium, machines without a GPU) that was about 17 of the GPU
// process's 80 ms a frame on make bench's reference scene
// (docs/canvas.md). Returns false when there is no canvas to wrap.
func SingleSampled() bool {
	c := js.Global().Get("document").Call("querySelector", "canvas")
	if !c.Truthy() {
		return false
	}
	orig := c.Get("getContext")
	var wrap js.Func
	wrap = js.FuncOf(func(_ js.Value, args []js.Value) any {
		call := []any{c}
		for i, a := range args {
			if i == 1 && a.Type() == js.TypeObject && (args[0].String() == "webgl2" || args[0].String() == "webgl") {
				a.Set("antialias", false)
			}
			call = append(call, a)
		}
		return orig.Call("call", call...)
	})
	c.Set("getContext", wrap)
	return true
}
