//go:build js && wasm

// Command emptycanvas is an Ebiten program that draws nothing but its
// background: make bench's baseline. The canvas's frame rate on the
// reference scene divided by this one's, in the same browser run, says
// what drawing kafkasim costs beyond what Ebiten itself costs. It loads
// from canvas.html?wasm=empty and keeps kafkasimCanvas.frames like the
// canvas does.
package main

import (
	"image/color"
	"syscall/js"

	"github.com/hajimehoshi/ebiten/v2"
)

type empty struct{ host js.Value }

func (e *empty) Update() error { return nil }

func (e *empty) Draw(screen *ebiten.Image) {
	screen.Fill(color.RGBA{0xF5, 0xF3, 0xEE, 0xFF})
	n := e.host.Get("frames").Int() + 1
	e.host.Set("frames", n)
	if n == 1 {
		e.host.Set("firstFrameMs", js.Global().Get("performance").Call("now"))
	}
}

func (e *empty) Layout(w, h int) (int, int) { return w, h }

func main() {
	host := js.Global().Get("kafkasimCanvas")
	if host.IsUndefined() {
		return
	}
	host.Set("frames", 0)
	ebiten.SetRunnableOnUnfocused(true)
	_ = ebiten.RunGame(&empty{host: host})
}
