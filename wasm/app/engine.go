// Package app is the browser engine's Go side, free of syscall/js so it
// is tested natively: a Session (the timeline), the play/pause/speed
// transport driven by the page's animation frames, and the views the page
// shows (state, events, stories, findings, panels, comparisons). The
// wasm/engine package exposes Engine's methods on window as JSON, inside
// the page's one binary (wasm/canvas), which also draws its scenes.
package app

import (
	"errors"
	"fmt"
	"math"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/check"
	"github.com/kafkasim/kafkasim/core/scenario"
	"github.com/kafkasim/kafkasim/wasm/session"
	"github.com/kafkasim/kafkasim/wasm/story"
)

// Speed limits: virtual ms per wall ms, on a log scale.
const (
	MinSpeed = 0.01
	MaxSpeed = 100
	// MaxFrameMs caps one frame's wall time (a tab back from the
	// background must not jump minutes ahead).
	MaxFrameMs = 250
	// PrepareMs is the virtual time of replay a paused frame spends
	// building rewind checkpoints.
	PrepareMs = 1000
)

// Engine is one page's engine.
type Engine struct {
	sess    *session.Session
	playing bool
	speed   float64
	acc     float64 // fractional virtual ms not yet run
	version uint64  // bumped on every change the page must redraw for
	loadVer uint64  // bumped on every Load, Seek back or Switch (caches key on it)
	fcache  *findings
	scache  *sceneCache
	mcache  msgCache  // messages of the last scene, for the next (msgcache.go)
	kcache  markCache // and its marks
	dscan   dupScan   // deliveries per record, for findings' dupCount

	sceneOpts SceneOptions // what the canvas draws (SetSceneOptions)
	optsVer   uint64       // bumped by SetSceneOptions

	outZK map[int64]string // live mode: the room's outside ZooKeeper sessions (live_outside.go)

	// shareScript and shareEnc memoise Share's compressed script: the page
	// persists the session every 3 s while it plays and only the moment
	// changes (deflating a long script was 8% of the main thread).
	shareScript, shareEnc string
}

// New returns an engine with nothing loaded, at 1x, paused.
func New() *Engine {
	return &Engine{sess: session.New(session.StoreOptions{}), speed: 1}
}

// ErrorInfo is an error for the page: Line and Col point into the script
// or command when known (1-based; 0 when not).
type ErrorInfo struct {
	Msg  string `json:"msg"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"col,omitempty"`
}

func errorInfo(err error) *ErrorInfo {
	if err == nil {
		return nil
	}
	var se *scenario.Error
	if errors.As(err, &se) {
		return &ErrorInfo{Msg: se.Msg, Line: se.Line, Col: se.Col}
	}
	return &ErrorInfo{Msg: err.Error()}
}

// Load replaces the session with a script.
func (e *Engine) Load(text string) *ErrorInfo {
	if err := e.sess.Load(text); err != nil {
		return errorInfo(err)
	}
	e.playing, e.acc = false, 0
	e.version++
	e.loadVer++
	return nil
}

// Session is the timeline (for views and tests).
func (e *Engine) Session() *session.Session { return e.sess }

// CommandResult is what a console command did.
type CommandResult struct {
	At     int64      `json:"at"`
	Error  *ErrorInfo `json:"error,omitempty"`
	Output string     `json:"output,omitempty"`
	Forked bool       `json:"forked,omitempty"` // acting in the past started a new branch
	Branch int        `json:"branch"`
}

// Command runs one scenario-language line now.
func (e *Engine) Command(line string) CommandResult {
	before := len(e.sess.Branches())
	res, err := e.sess.Command(line)
	out := CommandResult{At: res.At, Output: res.Output, Error: errorInfo(err)}
	if err == nil && res.Error != "" {
		out.Error = &ErrorInfo{Msg: res.Error}
	}
	if b := e.sess.Branch(); b != nil {
		out.Branch = b.ID
	}
	out.Forked = len(e.sess.Branches()) > before
	e.version++
	if out.Forked {
		e.loadVer++
	}
	return out
}

// Tick is one animation frame of wallMs: while playing, virtual time
// moves by wallMs*speed. It reports whether anything changed.
//
// While paused, a frame builds rewind checkpoints instead (at most
// PrepareMs of replay; session.Session.Prepare), so that dragging the
// timeline back on a long history starts near the target.
func (e *Engine) Tick(wallMs float64) (bool, error) {
	if !e.playing && e.sess.Loaded() {
		e.sess.Prepare(PrepareMs)
		return false, nil
	}
	if !e.playing || !e.sess.Loaded() || math.IsNaN(wallMs) || wallMs <= 0 {
		return false, nil
	}
	e.acc += math.Min(wallMs, MaxFrameMs) * e.speed
	whole := int64(e.acc)
	if whole < 1 {
		return false, nil
	}
	e.acc -= float64(whole)
	return true, e.Advance(whole)
}

// Advance runs ms of virtual time now, playing or not (tests and lessons
// drive the engine by ticks with it).
func (e *Engine) Advance(ms int64) error {
	if ms < 0 {
		return fmt.Errorf("advance %d ms: time only moves forward (use seek)", ms)
	}
	if ms > core.MaxWait {
		return fmt.Errorf("advance %d ms: at most 24 hours at a time", ms)
	}
	e.version++
	err := e.sess.RunTo(e.sess.Now() + ms)
	if err != nil {
		e.playing = false
	}
	return err
}

// Play, Pause and Toggle start and stop the clock.
func (e *Engine) Play() { e.playing = e.sess.Loaded(); e.version++ }

// Pause stops the clock.
func (e *Engine) Pause() { e.playing = false; e.version++ }

// Playing reports whether the clock runs.
func (e *Engine) Playing() bool { return e.playing }

// Step pauses and runs to the next trace event.
func (e *Engine) Step() (bool, error) {
	e.playing = false
	e.version++
	return e.sess.Step()
}

// SeekTo moves to virtual time ms (replaying when backwards).
func (e *Engine) SeekTo(ms int64) error {
	e.version++
	e.loadVer++ // a seek back replays: counts restart
	e.acc = 0
	return e.sess.GoTo(ms)
}

// SetSpeed sets the speed, clamped to [MinSpeed, MaxSpeed].
func (e *Engine) SetSpeed(x float64) float64 {
	if math.IsNaN(x) || x <= 0 {
		x = 1
	}
	e.speed = math.Max(MinSpeed, math.Min(MaxSpeed, x))
	e.version++
	return e.speed
}

// Speed is the current speed.
func (e *Engine) Speed() float64 { return e.speed }

// Now is the virtual time.
func (e *Engine) Now() int64 { return e.sess.Now() }

// Version changes whenever the engine did something the page should
// redraw for.
func (e *Engine) Version() uint64 { return e.version }

// Snapshot is the core's Snapshot now (nil before Load).
func (e *Engine) Snapshot() *core.Snapshot {
	if d := e.sess.Driver(); d != nil {
		return d.Cluster().Snapshot()
	}
	return nil
}

// Story is the life story of the record(s) with this value.
func (e *Engine) Story(value string) (*story.Story, error) {
	d := e.sess.Driver()
	if d == nil {
		return nil, session.ErrNoSession
	}
	return story.Build(d.Cluster(), d.Events().Trace(), value, d.Events().Forgotten() > 0), nil
}

// Findings are the checker's violations now; each lists the values whose
// stories explain it.
func (e *Engine) Findings() []check.Violation {
	d := e.sess.Driver()
	if d == nil {
		return []check.Violation{}
	}
	vs := check.All(d.Cluster())
	if vs == nil {
		vs = []check.Violation{}
	}
	return vs
}

// FindingsCount is len(Findings()) for the page's tab badge: while
// playing it is recounted at most every findingsEvery virtual ms (the
// checker reads the whole history); paused it is always current. It
// shares the scene's checker pass (findingsCached).
func (e *Engine) FindingsCount() int {
	if e.sess.Driver() == nil {
		return 0
	}
	return e.findingsCached().count
}

// Script is the session as a .ksim (see session.Session.Script).
func (e *Engine) Script() string { return e.sess.Script() }

// ShareLink is a share link's fragment, or TooLong when the session is
// past session.MaxShareLink (then the page offers the .ksim file).
type ShareLink struct {
	Fragment string `json:"fragment,omitempty"`
	Bytes    int    `json:"bytes"`
	TooLong  bool   `json:"tooLong,omitempty"`
}

// Share encodes the session and the current moment as a link fragment.
func (e *Engine) Share() (ShareLink, error) {
	if !e.sess.Loaded() {
		return ShareLink{}, session.ErrNoSession
	}
	script := e.sess.Script()
	if script != e.shareScript || e.shareEnc == "" {
		enc, err := session.EncodeShareScript(script)
		if err != nil {
			return ShareLink{}, err
		}
		e.shareScript, e.shareEnc = script, enc
	}
	f := session.ShareAt(e.shareEnc, e.sess.Now())
	if len(f) > session.MaxShareLink {
		return ShareLink{Bytes: len(f), TooLong: true}, nil
	}
	return ShareLink{Fragment: f, Bytes: len(f)}, nil
}

// OpenShare loads a share link's fragment and seeks to its moment.
func (e *Engine) OpenShare(fragment string) *ErrorInfo {
	sh, err := session.DecodeShare(fragment)
	if err != nil {
		return errorInfo(err)
	}
	if ei := e.Load(sh.Script); ei != nil {
		return ei
	}
	if err := e.SeekTo(sh.At); err != nil {
		return errorInfo(err)
	}
	return nil
}

// Switch makes another branch current, at the same moment.
func (e *Engine) Switch(id int) error {
	e.version++
	e.loadVer++
	return e.sess.Switch(id)
}
