//go:build js && wasm

// Command canvas is the Ebiten canvas of the kafkasim page: it runs in
// an iframe (canvas.html at the repository root), receives scenes from
// the engine by postMessage (relayed by canvas.html as JSON text), draws
// them, and posts back clicks, hovers and answers to queries (the
// protocol is in wasm/scene/proto.go). It simulates nothing.
// Without an engine, internal/canvasdev's harness posts sample scenes.
package main

import (
	"encoding/json"
	"sync"
	"syscall/js"

	"github.com/hajimehoshi/ebiten/v2"
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

// firstFrame posts the frame message with the time since navigation start.
func (b *bridge) firstFrame(n int64) {
	ms := js.Global().Get("performance").Call("now").Float()
	b.host.Set("firstFrameMs", ms)
	b.post(map[string]any{"type": "frame", "n": n, "ms": ms})
}

// countFrame keeps kafkasimCanvas.frames current, which make bench reads.
func (b *bridge) countFrame() {
	b.host.Set("frames", b.host.Get("frames").Int()+1)
}

func main() {
	host := js.Global().Get("kafkasimCanvas")
	if host.IsUndefined() {
		js.Global().Get("console").Call("error", "kafkasim canvas: load me from canvas.html")
		return
	}
	br := &bridge{host: host}
	host.Set("frames", 0)
	host.Set("receive", js.FuncOf(br.receive))
	// Messages that arrived before the wasm ran.
	if early := host.Get("early"); early.Type() == js.TypeObject {
		for i := 0; i < early.Length(); i++ {
			br.receive(js.Undefined(), []js.Value{early.Index(i)})
		}
	}
	gm := newGame(br)
	ebiten.SetWindowTitle("kafkasim")
	ebiten.SetRunnableOnUnfocused(true)
	br.post(map[string]string{"type": "ready"})
	if err := ebiten.RunGame(gm); err != nil {
		br.post(map[string]string{"type": "error", "error": err.Error()})
	}
}
