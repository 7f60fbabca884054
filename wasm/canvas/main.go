//go:build js && wasm

// Command canvas is the kafkasim page's one WebAssembly binary: the
// engine (wasm/engine: the real core behind wasm/app, exposed as
// __kafkasimEngine) and the Ebiten canvas that draws it, together in the
// canvas iframe (canvas.html at the repository root). The page shell calls
// the engine synchronously through the same-origin iframe.contentWindow;
// the canvas reads the engine's scene in-process on each update (no JSON),
// and posts clicks, hovers and answers to queries to the shell (the
// protocol is in wasm/scene/proto.go). A scene posted to the iframe (as
// internal/canvasdev's harness does with sample scenes) is drawn instead
// of the engine's from then on. canvas.html?draw=0 runs the engine alone
// (no WebGL: the page's ?canvas=0).
package main

import (
	"encoding/json"
	"sync"
	"syscall/js"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/kafkasim/kafkasim/wasm/engine"
	"github.com/kafkasim/kafkasim/wasm/webgl"
)

// maxInbox bounds the messages waiting for the next Update; past it the
// oldest are dropped (a newer scene replaces them anyway).
const maxInbox = 256

// bridge is the canvas's side of canvas.html: receive is called from JS
// with each message's JSON text and must not block; take hands the
// messages to Update.
type bridge struct {
	mu    sync.Mutex
	inbox []string
	host  js.Value
	// releaseGC turns the collector back on after the start (holdGC).
	releaseGC func()
}

func (b *bridge) receive(_ js.Value, args []js.Value) any {
	if len(args) == 0 || args[0].Type() != js.TypeString {
		return nil
	}
	s := args[0].String()
	b.mu.Lock()
	if len(b.inbox) >= maxInbox {
		b.inbox = b.inbox[1:]
	}
	b.inbox = append(b.inbox, s)
	b.mu.Unlock()
	return nil
}

func (b *bridge) take() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	in := b.inbox
	b.inbox = nil
	return in
}

// post sends v (a protocol message) to the page.
func (b *bridge) post(v any) {
	data, err := json.Marshal(v)
	if err != nil {
		return
	}
	b.host.Call("post", string(data))
}

// firstFrame is called from Draw of the first frame that shows a
// cluster. It marks kafkasim:first-scene and posts the frame message with
// the time since navigation start once that frame can be seen: Ebiten
// flushes a frame's commands to WebGL (the shader programs' compile and
// link, the textures' upload) after Draw returns, and the page shows the
// canvas's new picture with its next rendering update (the shell's
// animation frame, style, layout and paint included). The time is taken
// in a timeout queued from the next animation frame, which runs after
// that update. (Were Draw itself called from an animation frame, as
// Ebiten's later frames are, this would count one frame more.) The
// collector held for the start (holdGC) runs again from then.
func (b *bridge) firstFrame(n int64) {
	mark("first-scene")
	var raf, done js.Func
	done = js.FuncOf(func(js.Value, []js.Value) any {
		done.Release()
		ms := js.Global().Get("performance").Call("now").Float()
		b.host.Set("firstFrameMs", ms)
		b.post(map[string]any{"type": "frame", "n": n, "ms": ms})
		b.releaseGC()
		return nil
	})
	raf = js.FuncOf(func(js.Value, []js.Value) any {
		raf.Release()
		js.Global().Call("setTimeout", done, 0)
		return nil
	})
	js.Global().Call("requestAnimationFrame", raf)
}

// countFrame keeps kafkasimCanvas.frames current, which make bench reads.
func (b *bridge) countFrame() {
	b.host.Set("frames", b.host.Get("frames").Int()+1)
}

// mark records a step of the start as the performance mark kafkasim:name
// (canvasbench prints them as boot.canvas.NAME.ms).
func mark(name string) {
	if p := js.Global().Get("performance"); p.Truthy() && p.Get("mark").Truthy() {
		p.Call("mark", "kafkasim:"+name)
	}
}

func main() {
	mark("main") // the Go runtime and every package's init are done
	release := holdGC()
	host := js.Global().Get("kafkasimCanvas")
	if host.IsUndefined() {
		release()
		js.Global().Get("console").Call("error", "kafkasim canvas: load me from canvas.html")
		return
	}
	br := &bridge{host: host, releaseGC: release}
	host.Set("frames", 0)
	host.Set("receive", js.FuncOf(br.receive))
	// Messages that arrived before the wasm ran.
	if early := host.Get("early"); early.Type() == js.TypeObject {
		for i := 0; i < early.Length(); i++ {
			br.receive(js.Undefined(), []js.Value{early.Index(i)})
		}
	}
	eng := engine.Start()
	mark("engine")
	if d := host.Get("draw"); d.Type() == js.TypeBoolean && !d.Bool() {
		release()
		br.post(map[string]string{"type": "ready"})
		select {}
	}
	gm := newGame(br, eng)
	mark("game") // the sprite sheet is built; Ebiten starts next
	ebiten.SetWindowTitle("kafkasim")
	ebiten.SetRunnableOnUnfocused(true)
	webgl.SingleSampled()
	// Draw paints every pixel of the screen (its background first), so
	// Ebiten's clear of it before each Draw is a full pass over the canvas
	// for nothing: about 4 ms a frame in SwiftShader (docs/canvas.md).
	ebiten.SetScreenClearedEveryFrame(false)
	br.post(map[string]string{"type": "ready"})
	if err := ebiten.RunGame(gm); err != nil {
		release()
		br.post(map[string]string{"type": "error", "error": err.Error()})
	}
}
