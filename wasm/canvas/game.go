//go:build js && wasm

package main

import (
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"github.com/kafkasim/kafkasim/wasm/app"
	"github.com/kafkasim/kafkasim/wasm/layout"
	"github.com/kafkasim/kafkasim/wasm/scene"
)

// game is the ebiten.Game. The state it draws is the newest scene, which
// it reads from the engine in-process whenever the engine's scene version
// moved (or, once one was posted, the newest posted scene); the little it
// keeps of its own is the wall time that scene arrived (to run the clock
// between scenes), the layout cache and the element under the pointer (so
// hover is posted only when it changes). Update and Draw never change the
// engine.
type game struct {
	g   *gfx
	br  *bridge
	eng *app.Engine

	// posted: a scene came by postMessage (the harness): draw posted
	// scenes from then on, not the engine's.
	posted bool
	seen   uint64 // the engine's scene version drawn

	builtAt   time.Time     // when the last engine scene was built
	buildCost time.Duration // and how long that took
	failed    string        // the last scene error posted (posted once)

	s      *scene.Scene
	recvAt time.Time
	lay    *layout.Layout
	w, h   float64

	hover   scene.Ref
	hovered bool

	// pending is the newest scene not yet decoded; it is decoded at most
	// once per drawn frame (Update can run several times per frame when
	// frames are slow, and decoding is the costly part of a scene).
	pending   []byte
	tick      *scene.Inbound // a tick that came after pending
	drewSince bool

	updated        bool // Update ran once (the kafkasim:first-update mark)
	firstSent      bool
	frames, scenes int64
	decodeTotal    time.Duration // decoding posted scenes, or building the engine's
	drawn          int
	quads          int     // quads of the last frame drawn (gfx.count)
	pixels         float64 // and their area
}

// maxSceneGap bounds the wall time between two engine scenes while the
// clock runs.
const maxSceneGap = 200 * time.Millisecond

func newGame(br *bridge, eng *app.Engine) *game {
	return &game{g: newGfx(), br: br, eng: eng}
}

// pull takes the engine's scene when its version moved since the one
// drawn. Nothing loaded yet is no error; a scene that fails its own
// validation is reported once and the last good one stays.
func (gm *game) pull() {
	if gm.eng == nil || !gm.eng.Session().Loaded() {
		return
	}
	v := gm.eng.SceneVersion()
	if gm.s != nil && v == gm.seen {
		return
	}
	// While time runs, the canvas moves the clock and the messages between
	// scenes itself: a scene at most every twice its own cost (at most
	// maxSceneGap apart) keeps building under a third of the frame budget.
	if gm.s != nil && gm.s.Rate > 0 && time.Since(gm.builtAt) < min(2*gm.buildCost, maxSceneGap) {
		return
	}
	t0 := time.Now()
	s, err := gm.eng.CurrentScene()
	gm.buildCost = time.Since(t0)
	gm.builtAt = time.Now()
	gm.decodeTotal += gm.buildCost
	gm.seen = v
	if err != nil {
		if err.Error() != gm.failed {
			gm.failed = err.Error()
			gm.br.post(scene.Error{Type: scene.MsgError, Error: err.Error()})
		}
		return
	}
	gm.s, gm.recvAt, gm.lay = s, time.Now(), nil
	gm.scenes++
}

// Update takes what the engine posted, keeps the newest scene, answers
// queries, and turns the pointer into hover and click messages.
func (gm *game) Update() error {
	if !gm.updated {
		gm.updated = true
		mark("first-update")
	}
	var queries []*scene.Inbound
	for _, raw := range gm.br.take() {
		in, err := scene.DecodeInbound([]byte(raw))
		if err != nil {
			gm.br.post(scene.Error{Type: scene.MsgError, Error: err.Error()})
			continue
		}
		switch in.Type {
		case scene.MsgScene:
			gm.pending, gm.tick, gm.posted = in.Scene, nil, true
		case scene.MsgTick:
			switch {
			case gm.pending != nil: // for the scene still to decode
				gm.tick = in
			case gm.s != nil:
				gm.s.Now, gm.s.Rate, gm.recvAt = in.Now, in.Rate, time.Now()
			}
		default:
			queries = append(queries, in)
		}
	}
	if gm.pending != nil && (gm.drewSince || gm.s == nil) {
		last := gm.pending
		gm.pending, gm.drewSince = nil, false
		t0 := time.Now()
		s, err := scene.Decode(last)
		gm.decodeTotal += time.Since(t0)
		if err != nil {
			gm.br.post(scene.Error{Type: scene.MsgError, Error: err.Error()})
		} else {
			gm.s, gm.recvAt, gm.lay = s, time.Now(), nil
			gm.scenes++
			if t := gm.tick; t != nil {
				s.Now, s.Rate = t.Now, t.Rate
			}
		}
		gm.tick = nil
	}
	if !gm.posted && (gm.drewSince || gm.s == nil) {
		// at most one scene a drawn frame: Update can run several times
		// a frame when frames are slow
		gm.drewSince = false
		gm.pull()
	}
	l := gm.layout()
	for _, q := range queries {
		gm.answer(q, l)
	}
	if l != nil {
		gm.pointer(l)
	}
	return nil
}

func (gm *game) now() float64 {
	if gm.s == nil {
		return 0
	}
	return layout.Now(gm.s, float64(time.Since(gm.recvAt).Microseconds())/1000)
}

func (gm *game) layout() *layout.Layout {
	if gm.s == nil || gm.w == 0 {
		return nil
	}
	if gm.lay == nil || gm.lay.W != gm.w || gm.lay.H != gm.h {
		gm.lay = layout.Build(gm.s, gm.w, gm.h)
	}
	return gm.lay
}

func (gm *game) answer(q *scene.Inbound, l *layout.Layout) {
	switch q.Type {
	case scene.MsgWhere:
		w := scene.Where{Type: scene.MsgWhere, ID: q.ID}
		if l != nil {
			if r, ok := l.Find(*q.Ref, gm.now()); ok {
				c := r.Center()
				w.Found, w.X, w.Y, w.W, w.H = true, c.X, c.Y, r.W, r.H
			}
		}
		gm.br.post(w)
	case scene.MsgStats:
		gm.br.post(gm.stats())
	}
}

func (gm *game) stats() scene.Stats {
	st := scene.Stats{Type: scene.MsgStats, Frames: gm.frames, FPS: ebiten.ActualFPS(), TPS: ebiten.ActualTPS(), Scenes: gm.scenes, Drawn: gm.drawn, Quads: gm.quads, Pixels: gm.pixels}
	if gm.scenes > 0 {
		st.DecodeMs = float64(gm.decodeTotal.Microseconds()) / 1000 / float64(gm.scenes)
	}
	return st
}

func (gm *game) pointer(l *layout.Layout) {
	x, y := ebiten.CursorPosition()
	p := layout.Pt{X: float64(x), Y: float64(y)}
	hit, ok := l.Hit(p, gm.now())
	if ok != gm.hovered || hit.Ref != gm.hover {
		gm.hover, gm.hovered = hit.Ref, ok
		c := scene.Click{Type: scene.MsgHover, X: p.X, Y: p.Y}
		if ok {
			c.Ref, c.View, c.At = hit.Ref, hit.View, hit.At
		}
		gm.br.post(c)
	}
	for _, b := range []ebiten.MouseButton{ebiten.MouseButtonLeft, ebiten.MouseButtonMiddle, ebiten.MouseButtonRight} {
		if inpututil.IsMouseButtonJustPressed(b) && ok {
			gm.br.post(scene.Click{Type: scene.MsgClick, Ref: hit.Ref, X: p.X, Y: p.Y, Button: int(b), View: hit.View, At: hit.At})
		}
	}
}

// Draw draws the newest scene at the virtual time the clock has reached.
// It fills the whole screen first, in every frame: Ebiten does not clear
// it (SetScreenClearedEveryFrame(false), main), and presents a frame only
// when Draw changed the screen.
func (gm *game) Draw(screen *ebiten.Image) {
	gm.frames++
	if gm.frames == 1 {
		mark("first-draw") // Ebiten's first frame, a scene or not
	}
	gm.drewSince = true
	gm.br.countFrame()
	gm.g.count() // this frame's quads from here
	l := gm.layout()
	if l == nil {
		gm.br.releaseGC() // no cluster in the first frame: the restore comes after it
		screen.Fill(cBG)
		gm.g.text(screen, "kafkasim canvas: waiting for a scene", 12, 12, cFaint)
		gm.g.flush()
		return
	}
	if !gm.firstSent { // the first frame that shows a cluster
		gm.firstSent = true
		gm.br.firstFrame(gm.frames)
	}
	d := drawer{g: gm.g, dst: screen, l: l, s: gm.s, now: gm.now(), rate: gm.s.Rate}
	if gm.hovered {
		d.hover = &gm.hover
	}
	d.frame()
	gm.g.flush()
	gm.drawn = d.drawn
	gm.quads, gm.pixels = gm.g.count()
}

// Layout makes one logical pixel one CSS pixel, the unit of every
// coordinate in the protocol.
func (gm *game) Layout(w, h int) (int, int) {
	gm.w, gm.h = float64(w), float64(h)
	return w, h
}
