package webapp_test

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kafkasim/kafkasim/internal/browsertest"
	"github.com/kafkasim/kafkasim/internal/webapp"
)

// The browser tests drive the real app in headless Chromium: the engine
// wasm, the page shell and the canvas iframe, served by the same handler
// `kafkasim serve` uses, on a free loopback port. They drive virtual time
// through the page API (software GL draws 15-20 frames a second, so
// nothing waits for frames except where the canvas itself is the point)
// and save screenshots to the directory they log.

// browser is a tab of a headless Chromium on the app (internal/browsertest:
// flags, guards, the page's record). t is the test its failures go to (a
// subtest sets it); base is the app's address.
type browser struct {
	tab  *browsertest.Browser
	t    *testing.T
	base string
	out  string
}

// serve builds the app and serves it on a free loopback port.
func serve(t *testing.T) string {
	t.Helper()
	app, err := webapp.Build(webapp.Options{Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: app}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/"
}

func newBrowser(t *testing.T, base string) *browser {
	t.Helper()
	return newBrowserTimeout(t, base, 600*time.Second)
}

// pageStatus is what a failing call reports of the page beside its
// record: where the page is, the engine's state, the live mode's status.
const pageStatus = `({url: location.href, ready: !!window.kafkasim && !!kafkasim._engine(),
	state: (() => { try { const s = kafkasim.state(); return {loaded: s.loaded, now: s.now, playing: s.playing, scriptEnd: s.scriptEnd}; } catch (e) { return String(e); } })(),
	live: (() => { try { return kafkasim._call("liveStatus"); } catch (e) { return String(e); } })()})`

// newBrowserTimeout is newBrowser with the whole session bounded by d
// (each call into the page by browsertest's guard).
func newBrowserTimeout(t *testing.T, base string, d time.Duration) *browser {
	t.Helper()
	tab := browsertest.New(t, browsertest.Options{Session: d, GL: true, Status: pageStatus})
	return &browser{tab: tab, t: t, base: base, out: tab.Out}
}

// bt is b's tab reporting to b.t.
func (b *browser) bt() *browsertest.Browser { return b.tab.WithT(b.t) }

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

func (b *browser) run(a chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	b.bt().Run(a)
}

// js evaluates an expression (awaiting a promise) and decodes its JSON
// value into v.
func (b *browser) js(v any, expr string) {
	b.t.Helper()
	b.bt().JS(v, expr)
}

// open loads url afresh and waits until the page API is ready.
func (b *browser) open(url string) {
	b.t.Helper()
	b.bt().Navigate(url)
	b.js(nil, `new Promise(r => { (function w() { if (window.kafkasim) kafkasim.ready.then(() => r(true)); else setTimeout(w, 50); })(); })`)
}

func (b *browser) shot(name string) {
	b.t.Helper()
	b.bt().Shot(name)
}

func (b *browser) scenario(name string) string {
	b.t.Helper()
	resp, err := http.Get(b.base + "scenarios/" + name + ".ksim")
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	var sb strings.Builder
	buf := make([]byte, 1<<16)
	for {
		n, err := resp.Body.Read(buf)
		sb.Write(buf[:n])
		if err != nil {
			break
		}
	}
	if resp.StatusCode != 200 {
		b.t.Fatalf("scenario %s: %s", name, resp.Status)
	}
	return sb.String()
}

type storyLine struct {
	Kind  string `json:"kind"`
	Text  string `json:"text"`
	Cause bool   `json:"cause"`
}

type story struct {
	Fates   []string    `json:"fates"`
	Summary string      `json:"summary"`
	Lines   []storyLine `json:"lines"`
}

type state struct {
	Now       int64   `json:"now"`
	Playing   bool    `json:"playing"`
	Speed     float64 `json:"speed"`
	Horizon   int64   `json:"horizon"`
	ScriptEnd int64   `json:"scriptEnd"`
	Branch    int     `json:"branch"`
	Hash      string  `json:"hash"`
	Branches  []struct {
		ID     int    `json:"id"`
		ForkAt int64  `json:"forkAt"`
		Change string `json:"change"`
	} `json:"branches"`
}

func (b *browser) state() state {
	var s state
	b.js(&s, `kafkasim.state()`)
	return s
}

func (b *browser) snapshot() string {
	var raw json.RawMessage
	b.js(&raw, `kafkasim.snapshot()`)
	return string(raw)
}

func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	start := time.Now()
	base := serve(t)
	// The engine's part, with the canvas off (?canvas=0): software GL
	// would share the page's main thread with every call.
	b := newBrowser(t, base)
	b.open(base + "?canvas=0")
	acks1 := b.scenario("acks1-leader-death")
	b.js(nil, fmt.Sprintf(`kafkasim.load(%q), kafkasim.runUntilDone(), true`, acks1))

	t.Run("acks1 lost record and its story", func(t *testing.T) {
		b.t = t
		var findings []struct {
			Kind   string   `json:"kind"`
			Values []string `json:"values"`
		}
		b.js(&findings, `kafkasim.findings()`)
		if len(findings) != 1 || findings[0].Kind != "lost" || strings.Join(findings[0].Values, ",") != "m3" {
			t.Errorf("findings %+v, want m3 lost", findings)
		}
		var s story
		b.js(&s, `kafkasim.story("m3")`)
		if len(s.Fates) == 0 || s.Fates[0] != "lost" {
			t.Fatalf("m3 fates %v", s.Fates)
		}
		var election, truncation bool
		for _, l := range s.Lines {
			if l.Kind == "election" && l.Cause && strings.Contains(l.Text, "broker 2 leads orders-0 in epoch 1") {
				election = true
			}
			if l.Kind == "truncate" && l.Cause && strings.Contains(l.Text, "broker 1 truncated orders-0 to offset 2") {
				truncation = true
			}
		}
		if !election || !truncation {
			t.Errorf("m3's story does not name the election (%v) and the truncation (%v) as causes: %+v", election, truncation, s.Lines)
		}
		var evs []struct {
			Text string `json:"text"`
		}
		b.js(&evs, `kafkasim.events({text: "truncate"})`)
		if len(evs) != 1 || !strings.Contains(evs[0].Text, "orders-0@1 truncate to 2, dropping m3") {
			t.Errorf("the old leader did not truncate: %+v", evs)
		}
	})

	t.Run("seek back and forward gives the live run", func(t *testing.T) {
		b.t = t
		live, liveState := b.snapshot(), b.state()
		b.js(nil, `kafkasim.seek(20000)`)
		if s := b.state(); s.Now != 20000 {
			t.Fatalf("now %d after seek(20000)", s.Now)
		}
		var brokers []struct {
			State string `json:"state"`
		}
		b.js(&brokers, `kafkasim.snapshot().brokers`)
		if brokers[0].State != "crashed" {
			t.Errorf("at 20s broker 1 is %s", brokers[0].State)
		}
		b.js(nil, fmt.Sprintf(`kafkasim.seek(%d)`, liveState.Now))
		if got := b.snapshot(); got != live {
			t.Errorf("snapshot after seek back and forward differs from the live run:\n%s\n%s", got, live)
		}
		if got := b.state().Hash; got != liveState.Hash {
			t.Errorf("trace hash %s, live %s", got, liveState.Hash)
		}
	})

	t.Run("a fork keeps both branches", func(t *testing.T) {
		b.t = t
		before := b.state()
		b.js(nil, `kafkasim.seek(900)`)
		var res struct {
			Forked bool `json:"forked"`
			Branch int  `json:"branch"`
		}
		b.js(&res, `kafkasim.command("crash broker 3")`)
		if !res.Forked || res.Branch != 2 {
			t.Fatalf("acting at 0.9s: %+v", res)
		}
		b.js(nil, `kafkasim.runUntilDone(), true`)
		s := b.state()
		if len(s.Branches) != 2 || s.Branches[1].ForkAt != 900 || s.Branches[1].Change != "crash broker 3" {
			t.Errorf("branches %+v", s.Branches)
		}
		var cmp struct {
			DivergeAt int64 `json:"divergeAt"`
		}
		b.js(&cmp, `kafkasim.compare(1, 2)`)
		if cmp.DivergeAt != 900 {
			t.Errorf("diverge at %d, want 900", cmp.DivergeAt)
		}
		b.js(nil, `kafkasim.switchBranch(1)`)
		b.js(nil, fmt.Sprintf(`kafkasim.seek(%d)`, before.Now))
		if got := b.state(); got.Hash != before.Hash || got.Branch != 1 {
			t.Errorf("the first branch changed: hash %s branch %d, want %s", got.Hash, got.Branch, before.Hash)
		}
	})

	t.Run("keyboard shortcuts", func(t *testing.T) {
		b.t = t
		b.js(nil, `document.activeElement && document.activeElement.blur(), kafkasim.pause(), kafkasim.speed(1), true`)
		b.run(chromedp.KeyEvent("?"))
		var hidden bool
		b.js(&hidden, `document.getElementById("help").hidden`)
		if hidden {
			t.Errorf("? did not open the help")
		}
		b.run(chromedp.KeyEvent("\u001b")) // Escape
		b.js(&hidden, `document.getElementById("help").hidden`)
		if !hidden {
			t.Errorf("Escape did not close the help")
		}
		b.run(chromedp.KeyEvent(" "))
		if !b.state().Playing {
			t.Errorf("Space did not play")
		}
		b.run(chromedp.KeyEvent(" "))
		if b.state().Playing {
			t.Errorf("Space did not pause")
		}
		b.run(chromedp.KeyEvent("]"))
		if s := b.state().Speed; s != 2 {
			t.Errorf("] made speed %v, want 2", s)
		}
		now := b.state().Now
		b.run(chromedp.KeyEvent("."))
		if s := b.state(); s.Now <= now {
			t.Errorf("step did not move time (%d -> %d)", now, s.Now)
		}
		b.run(chromedp.KeyEvent("7"))
		var tab bool
		b.js(&tab, `document.getElementById("pane-events").classList.contains("on")`)
		if !tab {
			t.Errorf("7 did not open the events tab")
		}
	})

	t.Run("share link round trip", func(t *testing.T) {
		b.t = t
		b.js(nil, fmt.Sprintf(`kafkasim.load(%q), kafkasim.advance(5500), kafkasim.command("crash broker 2"), kafkasim.advance(3000), true`, acks1))
		var link string
		b.js(&link, `kafkasim.share()`)
		if !strings.Contains(link, "#ksim=") || len(link) > 8<<10 {
			t.Fatalf("share link %q", link)
		}
		want, wantState := b.snapshot(), b.state()
		b.open(strings.Replace(link, "/#", "/?canvas=0#", 1))
		if got := b.state(); got.Hash != wantState.Hash || got.Now != wantState.Now {
			t.Errorf("the link opens t=%d hash %s, want t=%d %s", got.Now, got.Hash, wantState.Now, wantState.Hash)
		}
		if got := b.snapshot(); got != want {
			t.Errorf("the link opens another snapshot")
		}
		// a reload keeps the session (sessionStorage), even without the fragment
		b.js(nil, `App.persistNow(), history.replaceState(null, "", location.pathname + location.search), true`)
		b.open(base + "?canvas=0")
		if got := b.state(); got.Hash != wantState.Hash {
			t.Errorf("a reload lost the session: hash %s, want %s", got.Hash, wantState.Hash)
		}
	})

	// The learner's page, canvas and all.
	b = newBrowser(t, base)
	b.open(base)
	var ready bool
	b.js(&ready, `new Promise(r => { const t0 = Date.now(); (function w() { if (App.canvasReady) r(true); else if (Date.now() - t0 > 30000) r(false); else setTimeout(w, 100); })(); })`)
	if !ready {
		t.Fatal("the canvas never said ready")
	}
	b.js(nil, `new Promise(r => setTimeout(() => r(true), 1500))`) // the welcome cluster moves
	b.shot("01-welcome")
	singleSampled := func(t *testing.T) {
		var aa string
		b.js(&aa, `(() => { const c = document.getElementById("canvas").contentDocument.querySelector("canvas");
			const gl = c && c.getContext("webgl2"); return gl ? String(gl.getContextAttributes().antialias) : "no WebGL 2 context"; })()`)
		if aa != "false" {
			t.Errorf("the canvas's WebGL context has antialias %s, want false (wasm/canvas singleSampled: a multisampled drawing buffer costs every frame and changes no pixel)", aa)
		}
	}
	t.Run("the canvas's drawing buffer is single-sampled", func(t *testing.T) {
		b.t = t
		singleSampled(t)
	})
	t.Run("screenshots of the acks=1 story", func(t *testing.T) {
		b.t = t
		b.js(nil, fmt.Sprintf(`kafkasim.load(%q), kafkasim.runUntilDone(), UI.openStory("m3"), true`, acks1))
		b.shot("02-acks1-story-m3")
		b.js(nil, `UI.tab("files"), true`)
		b.shot("03-acks1-files")
		b.js(nil, `kafkasim.seek(1050), UI.tab("events"), true`)
		b.shot("04-seek-back-1s-m3-only-on-leader")
		b.js(nil, `kafkasim.seek(900), kafkasim.command("crash broker 3"), kafkasim.runUntilDone(), UI.tab("branches"), Panels.renderCompare(2, 1), true`)
		b.shot("05-fork-compare")
		b.js(nil, `kafkasim.switchBranch(1), kafkasim.seek(1000), kafkasim.advance(12), App.setView("spacetime"), true`)
		b.shot("06-spacetime")
		b.js(nil, `App.setView("cluster"), UI.toggleHelp(true), true`)
		b.shot("07-help")
		b.js(nil, `UI.toggleHelp(false), true`)
	})

	t.Run("a mouse click on a broker crashes it", func(t *testing.T) {
		b.t = t
		b.js(nil, fmt.Sprintf(`kafkasim.load(%q), kafkasim.advance(1000), true`, acks1))
		var at *struct{ X, Y float64 }
		b.js(&at, `App.where({kind: "broker", broker: 2})`)
		if at == nil {
			t.Fatal("the canvas does not know where broker 2 is")
		}
		b.run(chromedp.MouseClickXY(at.X, at.Y))
		var menu struct{ X, Y float64 }
		// the canvas sees the click on its next update (a few frames in software GL)
		b.js(&menu, `new Promise(r => { const t0 = Date.now(); (function w() {
			const m = document.getElementById("menu"); const btn = m.hidden ? null : m.querySelector("button");
			if (btn) { const q = btn.getBoundingClientRect(); return r({X: q.left + q.width / 2, Y: q.top + q.height / 2}); }
			if (Date.now() - t0 > 15000) return r(null);
			setTimeout(w, 100); })(); })`)
		if menu.X == 0 {
			t.Fatal("clicking broker 2 opened no menu")
		}
		b.shot("08-broker-menu")
		b.run(chromedp.MouseClickXY(menu.X, menu.Y))
		var st string
		b.js(&st, `kafkasim.snapshot().brokers[1].state`)
		if st != "crashed" {
			t.Errorf("broker 2 is %s after clicking Crash", st)
		}
		b.js(nil, `kafkasim.advance(20000), true`)
		b.shot("09-broker-2-crashed")
	})

	t.Run("a lost WebGL context reloads the canvas and the session comes back", func(t *testing.T) {
		b.t = t
		b.js(nil, `kafkasim.pause(), kafkasim.command("produce p1 orders value=after-loss"), kafkasim.advance(700), App.persistNow(), true`)
		want := b.state()
		// Ebiten reloads its page (the iframe, engine and all) on webglcontextlost.
		var lost bool
		// The loss is reported asynchronously: until the iframe reloads, the
		// old engine still answers, so wait for a new one (a frame drawn
		// from one batch is quick enough to be polled before the reload).
		b.js(&lost, `(() => { window.__engineBeforeLoss = kafkasim._engine(); const c = document.getElementById("canvas").contentDocument.querySelector("canvas");
			const gl = c && c.getContext("webgl2"); const x = gl && gl.getExtension("WEBGL_lose_context");
			if (!x) return false; x.loseContext(); return true; })()`)
		if !lost {
			t.Skip("this Chromium cannot lose the WebGL context on purpose (no WEBGL_lose_context)")
		}
		var back bool
		b.js(&back, `new Promise(r => { const t0 = Date.now(); (function w() {
			let ok = false;
			try { ok = !!kafkasim._engine() && kafkasim._engine() !== window.__engineBeforeLoss && kafkasim.state().hash === `+jsString(want.Hash)+`; } catch (e) {}
			if (ok) return r(true);
			if (Date.now() - t0 > 60000) return r(false);
			setTimeout(w, 100); })(); })`)
		if !back {
			var got json.RawMessage
			b.js(&got, `(() => { try { return kafkasim.state(); } catch (e) { return String(e); } })()`)
			t.Fatalf("after the context loss the session is not back: %s, want t=%d hash %s", got, want.Now, want.Hash)
		}
		if got := b.state(); got.Now != want.Now {
			t.Errorf("restored at t=%d, want %d", got.Now, want.Now)
		}
		b.js(nil, `new Promise(r => { const t0 = Date.now(); (function w() { if (App.canvasReady || Date.now() - t0 > 30000) r(true); else setTimeout(w, 100); })(); })`)
		b.shot("10-after-context-loss")
		singleSampled(t) // the reloaded canvas too
	})
	t.Logf("browser tests took %s", time.Since(start).Round(time.Millisecond))
}
