package webapp_test

import (
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/internal/webapp"
)

// TestWelcomeInFirstFrameWhenItsTextIsLate: the welcome scenario's text
// arrives seconds after the wasm was served (its response held by the
// server here; in a cold start it was read late when the page's thread
// was busy with the wasm's stream), and Ebiten's first frame still shows
// the cluster: canvas.html starts Go only once that fetch settled
// (index.html's beforeGo), so the engine's start loads it
// (App.restoreEarly). Without the wait the first Draw was "waiting for a
// scene" and the cluster came with a later frame.
func TestWelcomeInFirstFrameWhenItsTextIsLate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	app, err := webapp.Build(webapp.Options{Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	// The text comes 6 s after the wasm was served: after the module
	// compiled, even on a loaded machine.
	const late = 6 * time.Second
	served := make(chan struct{})
	var once sync.Once
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/assets/welcome.ksim" {
			select {
			case <-served:
				time.Sleep(late)
			case <-time.After(time.Minute):
			}
		}
		app.ServeHTTP(w, r)
		if r.URL.Path == "/wasm/kafkasim.wasm" {
			once.Do(func() { close(served) })
		}
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: slow}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	base := "http://" + ln.Addr().String() + "/"

	b := newBrowser(t, base)
	b.open(base)
	var got struct {
		Draw, Scene, Main, Text float64
		N                       int
		Name                    string
	}
	b.js(&got, `new Promise((res) => { (function w() {
		if (App.firstFrameMs === null) { setTimeout(w, 50); return; }
		const f = document.getElementById("canvas").contentWindow;
		// the marks on this page's clock
		const off = f.performance.timeOrigin - performance.timeOrigin;
		const at = (n) => { const e = f.performance.getEntriesByName("kafkasim:" + n); return e.length ? e[0].startTime + off : -1; };
		const text = performance.getEntriesByType("resource").find((e) => e.name.endsWith("/assets/welcome.ksim"));
		res({n: App.firstFrameN, draw: at("first-draw"), scene: at("first-scene"), main: at("main"), text: text ? text.responseEnd : -1, name: App.scenarioName});
	})(); })`)
	t.Logf("welcome text at %.0f ms; canvas marks: main %.0f, first-draw %.0f, first-scene %.0f ms (frame %d); scenario %q", got.Text, got.Main, got.Draw, got.Scene, got.N, got.Name)
	if got.N != 1 {
		t.Errorf("the first frame with the cluster is the canvas's frame %d (%.0f ms after Ebiten's first): the first Draw had no scene", got.N, got.Scene-got.Draw)
	}
	if got.Text < 0 || got.Main < got.Text {
		t.Errorf("Go started at %.0f ms, before the welcome text arrived (%.0f ms)", got.Main, got.Text)
	}
	if got.Name != "welcome: a live cluster" {
		t.Errorf("scenario %q, want the welcome", got.Name)
	}
}
