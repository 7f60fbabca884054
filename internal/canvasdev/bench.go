package canvasdev

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kafkasim/kafkasim/internal/webapp"
	"github.com/kafkasim/kafkasim/wasm/scene/sample"
)

// BenchResult holds make bench's browser figures.
type BenchResult struct {
	Sizes        map[string][2]int // name -> raw, gzip bytes
	PageGzip     int               // what the page loads before its first frame, gzip
	FirstFrameMs float64           // navigation start to the first frame showing the cluster, cold profile, the browser up (WaitGPU): the median of FirstFrames
	FirstFrames  []float64         // each fresh browser's first frame (FirstFrameRuns of them, the last the browser measured on)
	GPUWaitMs    float64           // how long the just-launched browser took to give a WebGL context (WaitGPU): not in FirstFrameMs
	EngineMs     float64           // navigation start to the engine up in the iframe (wasm fetched, compiled, started)
	ReadyMs      float64           // navigation start to kafkasim.ready (engine up, session loaded)
	EmptyFPS     float64           // the empty Ebiten program, in an iframe of the page's canvas size
	RefFPS       float64           // the real page playing the reference scene at 1x
	SceneMs      float64           // mean wall ms the canvas spent building one scene from the engine
	RefTPS       float64           // Ebiten's updates a second on the reference scene (ActualTPS, at the end)
	RefCPU       Frames            // the reference scene's frames counted and the browser's CPU over them
	EmptyCPU     Frames            // the same for the empty program
	// EmptySSFPS, EmptySSCPU: the empty program again with the canvas's
	// single-sampled drawing buffer (webgl.SingleSampled): a stricter
	// baseline than Ebiten's default, whose ratio counts only what
	// kafkasim's drawing costs (the canvas sheds the default's
	// multisampling cost, which the empty program pays)
	EmptySSFPS   float64
	EmptySSCPU   Frames
	Scenes       int64   // scenes built while measured
	Quads        int     // quads the reference scene's last frame drew (before the stats were asked for)
	Pixels       float64 // and their area, overlaps counted (the canvas's background fill not included)
	VirtualRate  float64 // virtual ms the engine ran per wall ms while measured (1 = kept up)
	CanvasW      int     // the canvas iframe's size in the page
	CanvasH      int
	EmptyFirstMs float64            // the empty program's first frame, from its iframe's navigation (warm browser, not cold)
	Boot         map[string]float64 // App.bootMs: when each step of the shell's start ended; canvas.NAME: the iframe's kafkasim:NAME marks; empty.NAME: the empty program's (its iframe's clock)
	LoadBefore   string             // /proc/loadavg's first three fields, before and after
	LoadAfter    string
}

// Bench builds the app as `kafkasim serve` does (webapp.Build, cached) and
// the empty Ebiten program, serves both on loopback, and measures in one
// headless Chromium (window w x h): the cold first frame of the real page
// (fresh profile), then the frame rate of the real page playing
// sample.ReferenceScript at 1x (the engine and the canvas in one wasm, as a
// learner runs it), then that of the empty Ebiten program in an iframe of
// the same size, each over dur. extra names more wasm files to size.
func Bench(ctx context.Context, root string, dur time.Duration, extra map[string]string) (*BenchResult, error) {
	res := &BenchResult{Sizes: map[string][2]int{}, LoadBefore: loadavg()}
	dir, err := os.MkdirTemp("", "kafkasim-canvasbench")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := Build(ctx, root, dir, "empty"); err != nil {
		return nil, err
	}
	app, err := webapp.Build(webapp.Options{Root: root, Log: os.Stderr})
	if err != nil {
		return nil, err
	}
	files := map[string]string{"empty": filepath.Join(dir, "wasm", "empty.wasm")}
	for k, v := range extra {
		files[k] = v
	}
	for name, p := range files {
		raw, gz, err := Sizes(p)
		if err != nil {
			return nil, err
		}
		res.Sizes[name] = [2]int{raw, gz}
	}
	for _, p := range app.Paths() {
		raw, gz := app.Size(p)
		if strings.HasPrefix(p, "/wasm/") && strings.HasSuffix(p, ".wasm") {
			res.Sizes[strings.TrimSuffix(strings.TrimPrefix(p, "/wasm/"), ".wasm")] = [2]int{raw, gz}
		}
		if firstLoad(p) {
			res.PageGzip += gz
		}
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	dev := Handler(root, dir)
	mux := http.NewServeMux()
	mux.Handle("/harness.html", dev)
	mux.Handle("/wasm/empty.wasm", dev)
	mux.Handle("/", app)
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	defer srv.Close()
	base := "http://" + ln.Addr().String()

	// First frame: the page, first visit of a fresh profile (the welcome
	// cluster), on the page's clock from its navigation start, once the
	// browser is up (WaitGPU: not the browser's own start). One sample
	// swings by a second with what else the machine runs: the figure is
	// the median of FirstFrameRuns fresh browsers, the last of which goes
	// on to the frame rates.
	for i := 0; i < FirstFrameRuns-1; i++ {
		bctx, cancel, err := Browser(ctx, 1280, 800)
		if err != nil {
			return nil, err
		}
		_, ms, err := firstFrame(bctx, base)
		cancel()
		if err != nil {
			return nil, err
		}
		res.FirstFrames = append(res.FirstFrames, ms)
	}
	bctx, cancel, err := Browser(ctx, 1280, 800)
	if err != nil {
		return nil, err
	}
	defer cancel()
	gpu, ms, err := firstFrame(bctx, base)
	if err != nil {
		return nil, err
	}
	res.GPUWaitMs = float64(gpu.Microseconds()) / 1000
	res.FirstFrames = append(res.FirstFrames, ms)
	res.FirstFrameMs = median(res.FirstFrames)
	if res.ReadyMs, err = chromedp.Run(bctx, chromedp.Evaluate[float64](`App.readyMs || 0`)); err != nil {
		return nil, err
	}
	if res.EngineMs, err = chromedp.Run(bctx, chromedp.Evaluate[float64](`kafkasim.engineMs || 0`)); err != nil {
		return nil, err
	}
	if res.Boot, err = chromedp.Run(bctx, chromedp.Evaluate[map[string]float64](`App.bootMs || {}`)); err != nil {
		return nil, err
	}
	// The canvas iframe's steps (performance marks kafkasim:*, canvas.html
	// and wasm/canvas), on the page's clock.
	canvasBoot, err := chromedp.Run(bctx, chromedp.Evaluate[map[string]float64](CanvasMarksJS(true)))
	if err != nil {
		return nil, err
	}
	for k, v := range canvasBoot {
		res.Boot["canvas."+k] = v
	}
	size, err := chromedp.Run(bctx, chromedp.Evaluate[[]int](`(() => { const f = document.getElementById("canvas"); return [f.clientWidth, f.clientHeight]; })()`))
	if err != nil || len(size) != 2 {
		return nil, fmt.Errorf("canvas size: %v", err)
	}
	res.CanvasW, res.CanvasH = size[0], size[1]

	// The reference scene in the real page, playing at 1x.
	script := sample.ReferenceScript(int((Warm + dur).Seconds()) + 20)
	if _, err := chromedp.Run(bctx, chromedp.Evaluate[bool](fmt.Sprintf(`kafkasim.load(%q, "reference scene"), kafkasim.speed(1), kafkasim.advance(3000), kafkasim.play(), true`, script))); err != nil {
		return nil, fmt.Errorf("loading the reference scene: %v", err)
	}
	const frames = `document.getElementById("canvas").contentWindow.kafkasimCanvas.frames`
	t0 := time.Now()
	v0, s0, err := pageStats(bctx)
	if err != nil {
		return nil, err
	}
	pid := 0
	if c := chromedp.FromContext(bctx); c != nil && c.Browser != nil && c.Browser.Process() != nil {
		pid = c.Browser.Process().Pid
	}
	fps, refCPU, err := countFrames(bctx, frames, dur, pid)
	if err != nil {
		return nil, fmt.Errorf("reference: %v", err)
	}
	res.RefCPU = refCPU
	v1, s1, err := pageStats(bctx)
	if err != nil {
		return nil, err
	}
	res.RefFPS, res.RefTPS, res.Quads, res.Pixels = fps, s1.TPS, s1.Quads, s1.Pixels
	res.VirtualRate = float64(v1.Now-v0.Now) / float64(time.Since(t0).Milliseconds())
	if res.Scenes = s1.Scenes - s0.Scenes; res.Scenes > 0 {
		res.SceneMs = (s1.DecodeMs*float64(s1.Scenes) - s0.DecodeMs*float64(s0.Scenes)) / float64(res.Scenes)
	}

	// The empty Ebiten program, same browser, an iframe of the same size.
	if err := chromedp.Do(bctx, chromedp.Navigate(fmt.Sprintf("%s/harness.html?wasm=empty&w=%d&h=%d", base, res.CanvasW, res.CanvasH))); err != nil {
		return nil, err
	}
	if res.EmptyFPS, res.EmptyCPU, err = countFrames(bctx, frames, dur, pid); err != nil {
		return nil, fmt.Errorf("empty: %v", err)
	}
	if res.EmptyFirstMs, err = chromedp.Run(bctx, chromedp.Evaluate[float64](`document.getElementById("canvas").contentWindow.kafkasimCanvas.firstFrameMs || 0`)); err != nil {
		return nil, err
	}
	// The empty program's steps (wasm/emptycanvas marks the same
	// kafkasim:* steps), on its iframe's clock like EmptyFirstMs: the peer
	// of each boot.canvas.* step (warm browser; startbench times both cold).
	emptyBoot, err := chromedp.Run(bctx, chromedp.Evaluate[map[string]float64](CanvasMarksJS(false)))
	if err != nil {
		return nil, err
	}
	for k, v := range emptyBoot {
		res.Boot["empty."+k] = v
	}
	// The empty program with the canvas's context setting.
	if err := chromedp.Do(bctx, chromedp.Navigate(fmt.Sprintf("%s/harness.html?wasm=empty&ss=1&w=%d&h=%d", base, res.CanvasW, res.CanvasH))); err != nil {
		return nil, err
	}
	if res.EmptySSFPS, res.EmptySSCPU, err = countFrames(bctx, frames, dur, pid); err != nil {
		return nil, fmt.Errorf("empty, single-sampled: %v", err)
	}
	res.LoadAfter = loadavg()
	return res, nil
}

// FirstFrameRuns is how many fresh browsers Bench times the first frame in
// (canvasbench -firstframes; at least 1: the last goes on to the frame
// rates).
var FirstFrameRuns = 3

// firstFrame waits for the fresh browser of ctx to be up (WaitGPU: how
// long that took is returned first), opens the page at base and returns
// its App.firstFrameMs.
func firstFrame(ctx context.Context, base string) (time.Duration, float64, error) {
	gpu, err := WaitGPU(ctx)
	if err != nil {
		return gpu, 0, err
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/")); err != nil {
		return gpu, 0, err
	}
	if err := Poll(ctx, `window.App && App.firstFrameMs !== null`, 90*time.Second); err != nil {
		return gpu, 0, fmt.Errorf("first frame: %v", err)
	}
	ms, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`App.firstFrameMs`))
	return gpu, ms, err
}

// median is the middle of v (the mean of the two middle ones for an even
// count); 0 for none.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// firstLoad reports whether the page fetches p before its first frame:
// the shell, the canvas page, the Go runtime, the main wasm and the
// assets (the welcome scenario among them); not the bundled examples,
// the lessons' JSON or the lesson parser, fetched on demand.
func firstLoad(p string) bool {
	switch {
	case p == "/index.html", p == "/canvas.html", p == "/wasm/wasm_exec.js", p == "/wasm/kafkasim.wasm", p == "/scenarios/index.json":
		return true
	case strings.HasPrefix(p, "/assets/"):
		return true
	}
	return false
}

type engineState struct {
	Now int64 `json:"now"`
}

type canvasStats struct {
	Scenes   int64   `json:"scenes"`
	DecodeMs float64 `json:"decodeMs"`
	TPS      float64 `json:"tps"`
	Quads    int     `json:"quads"`
	Pixels   float64 `json:"pixels"`
}

// pageStats reads the engine's clock and the canvas's scene statistics.
func pageStats(ctx context.Context) (engineState, canvasStats, error) {
	st, err := chromedp.Run(ctx, chromedp.Evaluate[engineState](`kafkasim.state()`))
	if err != nil {
		return st, canvasStats{}, err
	}
	cs, err := chromedp.Run(ctx, chromedp.Evaluate[canvasStats](`new Promise((res) => {
		const f = document.getElementById("canvas");
		const on = (e) => { if (e.source === f.contentWindow && e.data && e.data.type === "stats") { removeEventListener("message", on); res(e.data); } };
		addEventListener("message", on);
		f.contentWindow.postMessage(JSON.stringify({ type: "stats" }), location.origin);
		setTimeout(() => res({ scenes: 0, decodeMs: 0 }), 5000);
	})`, chromedp.EvalAwaitPromise))
	return st, cs, err
}

// Frames is what countFrames saw: frames drawn over a wall time, and the
// CPU the browser's threads ran meanwhile (ReadCPU of the browser's
// process; empty where it could not be read).
type Frames struct {
	N      float64
	Wall   time.Duration
	CPU    CPU
	Halves [2]float64 // CPU ms per frame, every thread, over the first and the second half of Wall (0 when not read)
}

// PerFrame is CPU milliseconds per drawn frame of thread k ("" for all).
func (f Frames) PerFrame(k string) float64 {
	if f.N <= 0 {
		return 0
	}
	if k == "" {
		return f.CPU.Total() / f.N
	}
	return f.CPU[k] / f.N
}

// countFrames waits for the iframe to draw, lets it warm up for Warm, and
// counts its frames over dur, reading the CPU of the browser pid (and
// every process under it) at both ends and half way (pid 0: not read):
// the two halves' CPU per frame (Frames.Halves) say whether the figure
// was steady.
func countFrames(ctx context.Context, frames string, dur time.Duration, pid int) (float64, Frames, error) {
	if err := Poll(ctx, `(() => { try { return `+frames+` > 10; } catch (e) { return false; } })()`, 60*time.Second); err != nil {
		return 0, Frames{}, err
	}
	time.Sleep(Warm)
	count := func() (float64, time.Time, error) {
		n, err := chromedp.Run(ctx, chromedp.Evaluate[float64](frames))
		return n, time.Now(), err
	}
	cpu := func() CPU {
		if pid == 0 {
			return nil
		}
		c, _ := ReadCPU(pid)
		return c
	}
	c0 := cpu()
	n0, t0, err := count()
	if err != nil {
		return 0, Frames{}, err
	}
	time.Sleep(dur / 2)
	cm := cpu()
	nm, _, err := count()
	if err != nil {
		return 0, Frames{}, err
	}
	time.Sleep(dur - dur/2)
	n1, t1, err := count()
	if err != nil {
		return 0, Frames{}, err
	}
	c1 := cpu()
	f := Frames{N: n1 - n0, Wall: t1.Sub(t0), CPU: c1.Sub(c0)}
	if pid != 0 && nm > n0 && n1 > nm {
		f.Halves = [2]float64{cm.Sub(c0).Total() / (nm - n0), c1.Sub(cm).Total() / (n1 - nm)}
	}
	return f.N / f.Wall.Seconds(), f, nil
}

// Warm is how long countFrames lets a program run before it counts
// (canvasbench -warm). V8 compiles a wasm function again in TurboFan
// once it is hot, on worker threads: for the reference scene's code that
// went on through its first 10-15 s (about 25 ms of CPU a frame in the
// first 5 s, 6-8 in the next 10, 2-3 after; docs/canvas.md), a one-time
// cost of the page's start and not the frame rate a learner gets for the
// rest of a session, while the empty program, which runs almost no code
// of its own, had it done within a second. Both programs get the same
// warm-up.
var Warm = 10 * time.Second

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// CanvasMarksJS is a script that evaluates to the canvas iframe's
// performance marks kafkasim:NAME (canvas.html, wasm/canvas and
// wasm/emptycanvas set them) as {NAME: ms}, rounded, on the page's clock
// when pageClock is set and on the iframe's own otherwise; {} when the
// iframe is not there (yet).
func CanvasMarksJS(pageClock bool) string {
	off := "0"
	if pageClock {
		off = "f.performance.timeOrigin - performance.timeOrigin"
	}
	return `(() => {
		const o = {};
		try {
			const f = document.getElementById("canvas").contentWindow;
			const off = ` + off + `;
			for (const e of f.performance.getEntriesByType("mark")) if (e.name.startsWith("kafkasim:")) o[e.name.slice(9)] = Math.round(e.startTime + off);
		} catch (e) {}
		return o;
	})()`
}
