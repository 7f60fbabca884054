//go:build js && wasm

// Command emptycanvas is an Ebiten program that draws nothing but its
// background: make bench's baseline. The canvas's frame rate on the
// reference scene divided by this one's, in the same browser run, says
// what drawing kafkasim costs beyond what Ebiten itself costs. It loads
// from canvas.html?wasm=empty and keeps kafkasimCanvas.frames like the
// canvas does, and marks the steps of its start as the canvas does
// (performance marks kafkasim:main, game, first-update, first-draw), so
// each step of the page's start can be set beside Ebiten's own.
package main

import (
	"image/color"
	"syscall/js"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/kafkasim/kafkasim/wasm/webgl"
)

type empty struct {
	host    js.Value
	updated bool
}

func (e *empty) Update() error {
	if !e.updated {
		e.updated = true
		mark("first-update")
	}
	return nil
}

func (e *empty) Draw(screen *ebiten.Image) {
	screen.Fill(color.RGBA{0xF5, 0xF3, 0xEE, 0xFF})
	n := e.host.Get("frames").Int() + 1
	e.host.Set("frames", n)
	if n == 1 {
		mark("first-draw")
		// timed as wasm/canvas does: after Ebiten's flush of this frame
		// and the page's rendering update that shows it
		var raf, done js.Func
		done = js.FuncOf(func(js.Value, []js.Value) any {
			done.Release()
			e.host.Set("firstFrameMs", js.Global().Get("performance").Call("now"))
			return nil
		})
		raf = js.FuncOf(func(js.Value, []js.Value) any {
			raf.Release()
			js.Global().Call("setTimeout", done, 0)
			return nil
		})
		js.Global().Call("requestAnimationFrame", raf)
	}
}

func (e *empty) Layout(w, h int) (int, int) { return w, h }

// mark records a step of the start as the performance mark kafkasim:name,
// as wasm/canvas does.
func mark(name string) {
	if p := js.Global().Get("performance"); p.Truthy() && p.Get("mark").Truthy() {
		p.Call("mark", "kafkasim:"+name)
	}
}

func main() {
	mark("main") // the Go runtime and every package's init are done
	host := js.Global().Get("kafkasimCanvas")
	if host.IsUndefined() {
		return
	}
	host.Set("frames", 0)
	if js.Global().Get("URLSearchParams").New(js.Global().Get("location").Get("search")).Call("get", "ss").String() == "1" {
		// make bench's second baseline: the canvas's own single-sampled
		// drawing buffer (webgl.SingleSampled), so that the ratio against
		// it counts only what kafkasim's drawing costs
		webgl.SingleSampled()
	}
	mark("game") // Ebiten starts next
	ebiten.SetRunnableOnUnfocused(true)
	_ = ebiten.RunGame(&empty{host: host})
}
