//go:build js && wasm

package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"syscall/js"
	"time"

	"github.com/kafkasim/kafkasim/server/protocol"
	"github.com/kafkasim/kafkasim/wasm/app"
)

// liveConn is live mode's connection: the browser's own WebSocket (no
// Go networking in the page) feeding an app.Live. Its callbacks run on
// the page's event loop, like every engine call, so nothing here races.
type liveConn struct {
	ws    js.Value
	l     *app.Live
	funcs []js.Func
	last  float64 // the room's last speed above 0, for play
}

// pumpBudget is the wall time a frame spends on the room's messages.
const pumpBudget = 12 * time.Millisecond

// live is the connection in force; nil in local mode.
var live *liveConn

// errLeave is the answer to what only local mode does.
var errLeave = errors.New("this page follows a live room: leave the room (or fork your own copy) to do that")

// liveHandlers adds live mode's calls to the engine's and, while a room
// is followed, puts the room in the place of the local clock and script:
// ticks do not run the clock (the room's messages do), commands, play,
// pause, speed and advance go to the room for its driver and are refused
// with a clear message for a watcher, rewinding is refused.
func liveHandlers(e *app.Engine, h map[string]Handler) map[string]Handler {
	local := map[string]Handler{}
	for _, name := range []string{"tick", "command", "play", "pause", "speed", "step", "advance", "seek", "load", "switch", "openShare"} {
		local[name] = h[name]
	}
	inLive := map[string]Handler{
		"tick": func(a []js.Value) (any, error) {
			// The room's messages, within this frame's share of time: the
			// picture keeps being drawn however fast the room goes.
			deadline := time.Now().Add(pumpBudget)
			changed := live.l.Pump(func() bool { return time.Now().Before(deadline) })
			return map[string]any{"changed": changed, "now": e.Now(), "version": e.Version()}, nil
		},
		"command": func(a []js.Value) (any, error) { return live.l.Command(str(a, 0)), nil },
		"play": func(a []js.Value) (any, error) {
			return true, live.speed(max(live.last, 1))
		},
		"pause": func(a []js.Value) (any, error) { return false, live.speed(0) },
		"speed": func(a []js.Value) (any, error) {
			x := num(a, 0, 1)
			return x, live.speed(x)
		},
		"step": func(a []js.Value) (any, error) {
			_, err := live.l.Send(protocol.In{Type: protocol.TAdvance, Ms: 100})
			return map[string]any{"stepped": err == nil, "now": e.Now()}, err
		},
		"advance": func(a []js.Value) (any, error) {
			_, err := live.l.Send(protocol.In{Type: protocol.TAdvance, Ms: int64(num(a, 0, 0))})
			return e.Now(), err
		},
		"seek": func(a []js.Value) (any, error) {
			ms := int64(num(a, 0, 0))
			if ms <= e.Now() {
				return e.Now(), errors.New("a live room's time only moves forward: fork your own copy to rewind it")
			}
			_, err := live.l.Send(protocol.In{Type: protocol.TAdvance, Ms: ms - e.Now()})
			return e.Now(), err
		},
		"load": func(a []js.Value) (any, error) {
			text := str(a, 0)
			_, err := live.l.Send(protocol.In{Type: protocol.TLoad, Ksim: text, Name: firstComment(text)})
			return nil, err
		},
		"switch":    func(a []js.Value) (any, error) { return nil, errLeave },
		"openShare": func(a []js.Value) (any, error) { return nil, errLeave },
	}
	for name, fn := range inLive {
		name, fn := name, fn
		h[name] = func(a []js.Value) (any, error) {
			if live == nil {
				return local[name](a)
			}
			return fn(a)
		}
	}
	h["liveConnect"] = func(a []js.Value) (any, error) { return liveConnect(e, str(a, 0), str(a, 1)) }
	h["liveLeave"] = func(a []js.Value) (any, error) {
		if live != nil {
			live.close()
		}
		return e.State(false), nil
	}
	h["liveStatus"] = func(a []js.Value) (any, error) {
		if live == nil {
			return app.LiveStatus{Phase: "local"}, nil
		}
		return live.l.Status(), nil
	}
	h["liveTake"] = func(a []js.Value) (any, error) {
		if live == nil {
			return []json.RawMessage{}, nil
		}
		return live.l.Take(), nil
	}
	h["liveSend"] = func(a []js.Value) (any, error) {
		if live == nil {
			return nil, errors.New("not in a room")
		}
		var in protocol.In
		if err := json.Unmarshal([]byte(str(a, 0)), &in); err != nil {
			return nil, fmt.Errorf("liveSend: %v", err)
		}
		return live.l.Send(in)
	}
	h["liveAnswer"] = func(a []js.Value) (any, error) {
		if live == nil {
			return nil, errors.New("not in a room")
		}
		return nil, live.l.Answer(int(num(a, 0, -1)))
	}
	return h
}

// speed asks the room for a speed (0 pauses).
func (c *liveConn) speed(x float64) error {
	if x > 0 {
		c.last = x
	}
	_, err := c.l.Send(protocol.In{Type: protocol.TSpeed, Speed: &x})
	return err
}

// liveConnect opens a websocket to a room and follows it.
func liveConnect(e *app.Engine, url, token string) (st app.LiveStatus, err error) {
	if !strings.HasPrefix(url, "ws://") && !strings.HasPrefix(url, "wss://") {
		return st, fmt.Errorf("liveConnect: %q is not a ws:// or wss:// URL", url)
	}
	if live != nil {
		live.close()
	}
	defer func() {
		if r := recover(); r != nil { // the WebSocket constructor throws on a bad URL
			err = fmt.Errorf("cannot open %s: %v", url, r)
		}
	}()
	ws := js.Global().Get("WebSocket").New(url)
	c := &liveConn{ws: ws}
	c.l = app.NewLive(e, func(b []byte) error {
		if ws.Get("readyState").Int() != 1 {
			return errors.New("the connection to the room is not open")
		}
		ws.Call("send", string(b))
		return nil
	}, token)
	on := func(name string, fn func(ev js.Value)) {
		f := js.FuncOf(func(_ js.Value, args []js.Value) any {
			defer func() {
				if r := recover(); r != nil {
					js.Global().Get("console").Call("error", fmt.Sprintf("live %s: %v", name, r))
				}
			}()
			if live == c && len(args) > 0 {
				fn(args[0])
			}
			return nil
		})
		c.funcs = append(c.funcs, f)
		ws.Set(name, f)
	}
	on("onmessage", func(ev js.Value) {
		if d := ev.Get("data"); d.Type() == js.TypeString {
			// Queued, then handled within a budget (at least one message
			// per message, so the page keeps the room's pace when it
			// can; the frames' ticks handle the rest). A page whose
			// messages come late only queues them here: its socket is
			// read at once, and it catches up by resync (app.Live).
			c.l.Enqueue([]byte(d.String()), time.Now().UnixMilli())
			if !c.l.Late() {
				deadline := time.Now().Add(pumpBudget)
				c.l.Pump(func() bool { return time.Now().Before(deadline) })
			}
		}
	})
	on("onclose", func(ev js.Value) {
		why := fmt.Sprintf("the connection to room closed (%d", ev.Get("code").Int())
		if r := ev.Get("reason").String(); r != "" {
			why += ": " + r
		}
		c.l.Closed(why + ")")
	})
	on("onerror", func(js.Value) { c.l.Closed("the room cannot be reached") })
	live = c
	return c.l.Status(), nil
}

// close ends the connection; the copy stays as the page's own session.
func (c *liveConn) close() {
	if live == c {
		live = nil
	}
	c.l.Stop()
	for _, name := range []string{"onmessage", "onclose", "onerror"} {
		c.ws.Set(name, js.Null())
	}
	c.ws.Call("close")
	for _, f := range c.funcs {
		f.Release()
	}
}

func firstComment(text string) string {
	for _, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "#") {
			return strings.TrimSpace(strings.TrimLeft(t, "#"))
		}
		if t != "" {
			break
		}
	}
	return "loaded from a page"
}
