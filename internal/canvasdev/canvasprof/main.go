// Command canvasprof profiles the real page playing make bench's
// reference scene: it serves the app as canvasbench does, but with the
// page's wasm built keeping its function names (no -s -w), records a
// Chrome CPU profile of the page (shell and canvas iframe share the main
// thread) while the scene plays at 1x, writes it as a .cpuprofile (open
// it in Chrome DevTools' Performance panel) and prints the functions
// with the most self time and the most total time.
//
//	go run ./internal/canvasdev/canvasprof [-dur 5s] [-o ref.cpuprofile] [-top 40]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/profiler"
	"github.com/chromedp/chromedp"

	"github.com/kafkasim/kafkasim/internal/canvasdev"
	"github.com/kafkasim/kafkasim/internal/webapp"
	"github.com/kafkasim/kafkasim/wasm/scene/sample"
)

func main() {
	dur := flag.Duration("dur", 5*time.Second, "how long to profile")
	out := flag.String("o", "", "write the profile here (.cpuprofile)")
	top := flag.Int("top", 40, "functions to list")
	interval := flag.Int64("interval", 200, "sampling interval, µs")
	startup := flag.Bool("startup", false, "profile the first load (navigation to first frame) instead of the reference scene")
	flag.Parse()
	if *dur <= 0 || *dur > 2*time.Minute || *top < 1 || *top > 1000 || *interval < 50 || *interval > 100000 {
		log.Fatal("canvasprof: -dur in (0, 2m], -top in [1, 1000], -interval in [50, 100000]")
	}
	root, err := canvasdev.Root()
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir, err := os.MkdirTemp("", "kafkasim-canvasprof")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	wasm := filepath.Join(dir, "kafkasim.wasm")
	args := []string{"build", "-trimpath"} // the page's flags (webapp.Target.BuildArgs) but -s -w: names kept
	for _, p := range webapp.ColdPackages {
		args = append(args, "-gcflags="+p+"=-l")
	}
	cmd := exec.CommandContext(ctx, "go", append(args, "-o", wasm, "./wasm/canvas")...)
	cmd.Dir, cmd.Env = root, append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		log.Fatalf("canvasprof: go build: %v\n%s", err, b)
	}
	app, err := webapp.Build(webapp.Options{Root: root, Log: os.Stderr})
	if err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/wasm/kafkasim.wasm", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/wasm")
		http.ServeFile(w, r, wasm)
	})
	mux.Handle("/", app)
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	defer srv.Close()
	bctx, bcancel, err := canvasdev.Browser(ctx, 1280, 800)
	if err != nil {
		log.Fatal(err)
	}
	defer bcancel()
	if _, err := chromedp.Call(bctx, profiler.Enable, cdp.Empty{}); err != nil {
		log.Fatal(err)
	}
	if _, err := chromedp.Call(bctx, profiler.SetSamplingInterval, profiler.SetSamplingIntervalParams{Interval: *interval}); err != nil {
		log.Fatal(err)
	}
	// Count WebGL draw calls in every frame (the canvas iframe's too).
	if _, err := chromedp.Call(bctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: glCounter}); err != nil {
		log.Fatal(err)
	}
	if *startup {
		if _, err := canvasdev.WaitGPU(bctx); err != nil { // the browser up, as canvasbench measures
			log.Fatal(err)
		}
		if _, err := chromedp.Call(bctx, profiler.Start, cdp.Empty{}); err != nil {
			log.Fatal(err)
		}
	}
	if err := chromedp.Do(bctx, chromedp.Navigate("http://"+ln.Addr().String()+"/")); err != nil {
		log.Fatal(err)
	}
	if err := canvasdev.Poll(bctx, `window.App && App.firstFrameMs !== null`, 90*time.Second); err != nil {
		log.Fatal(err)
	}
	if *startup {
		res, err := chromedp.Call(bctx, profiler.Stop, cdp.Empty{})
		if err != nil {
			log.Fatal(err)
		}
		ms, _ := chromedp.Run(bctx, chromedp.Evaluate[[]float64](`[kafkasim.engineMs || 0, App.readyMs || 0, App.firstFrameMs]`))
		fmt.Printf("engine.ms, ready.ms, firstframe.ms %v, load %s\n", ms, load())
		finish(res.Profile, *out, *top)
		return
	}
	script := sample.ReferenceScript(int(dur.Seconds()) + 20)
	if _, err := chromedp.Run(bctx, chromedp.Evaluate[bool](fmt.Sprintf(`kafkasim.load(%q, "reference scene"), kafkasim.speed(1), kafkasim.advance(3000), kafkasim.play(), true`, script))); err != nil {
		log.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	const frames = `document.getElementById("canvas").contentWindow.kafkasimCanvas.frames`
	f0, _ := chromedp.Run(bctx, chromedp.Evaluate[float64](frames))
	t0 := time.Now()
	if _, err := chromedp.Call(bctx, profiler.Start, cdp.Empty{}); err != nil {
		log.Fatal(err)
	}
	time.Sleep(*dur)
	res, err := chromedp.Call(bctx, profiler.Stop, cdp.Empty{})
	if err != nil {
		log.Fatal(err)
	}
	f1, _ := chromedp.Run(bctx, chromedp.Evaluate[float64](frames))
	gl, _ := chromedp.Run(bctx, chromedp.Evaluate[[]float64](`(() => { const w = document.getElementById("canvas").contentWindow; return [w.__glDraws || 0, w.__glPrograms || 0, w.__glUniforms || 0]; })()`))
	if len(gl) == 3 && f1 > 0 {
		fmt.Printf("since load, per frame: %.1f draw calls, %.1f useProgram, %.1f uniform calls\n", gl[0]/f1, gl[1]/f1, gl[2]/f1)
	}
	fmt.Printf("frames %.0f in %.1fs: %.2f fps (profiling slows it a little), load %s\n", f1-f0, time.Since(t0).Seconds(), (f1-f0)/time.Since(t0).Seconds(), load())
	finish(res.Profile, *out, *top)
}

// glCounter counts WebGL draw calls, program switches and uniform
// uploads in window.__glDraws, __glPrograms, __glUniforms.
const glCounter = `(() => {
  const count = (proto, names, key) => {
    if (!proto) return;
    for (const n of names) {
      const f = proto[n];
      if (typeof f !== "function") continue;
      proto[n] = function (...a) { window[key] = (window[key] || 0) + 1; return f.apply(this, a); };
    }
  };
  for (const P of [window.WebGL2RenderingContext && WebGL2RenderingContext.prototype, window.WebGLRenderingContext && WebGLRenderingContext.prototype]) {
    count(P, ["drawElements", "drawArrays"], "__glDraws");
    count(P, ["useProgram"], "__glPrograms");
    count(P, ["uniform1f", "uniform2fv", "uniform4fv", "uniform1fv", "uniform1iv", "uniform1i", "uniformMatrix4fv", "uniform2f", "uniform4f"], "__glUniforms");
  }
})();`

// finish writes the profile to out (when named) and prints its report.
func finish(p *profiler.Profile, out string, top int) {
	if out != "" {
		b, _ := json.Marshal(p)
		if err := os.WriteFile(out, b, 0o644); err != nil {
			log.Fatal(err)
		}
	}
	report(p, top)
}

func load() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return string(b[:min(len(b), 14)])
}

// report prints self and total time by function name (recursion counted
// once per sample for total).
func report(p *profiler.Profile, top int) {
	byID := map[int64]*profiler.ProfileNode{}
	parent := map[int64]int64{}
	for _, n := range p.Nodes {
		byID[n.ID] = n
		for _, c := range n.Children {
			parent[c] = n.ID
		}
	}
	name := func(n *profiler.ProfileNode) string {
		f := n.CallFrame
		s := f.FunctionName
		if s == "" {
			s = "(anonymous)"
		}
		if f.URL != "" {
			s += " " + filepath.Base(f.URL)
		}
		return s
	}
	self, total := map[string]float64{}, map[string]float64{}
	var all float64
	for i, id := range p.Samples {
		dt := 0.0
		if i+1 < len(p.TimeDeltas) {
			dt = float64(p.TimeDeltas[i+1]) / 1000
		}
		all += dt
		n := byID[id]
		self[name(n)] += dt
		seen := map[string]bool{}
		for x, ok := id, true; ok; x, ok = parent[x] {
			nm := name(byID[x])
			if !seen[nm] {
				seen[nm] = true
				total[nm] += dt
			}
		}
	}
	list := func(title string, m map[string]float64) {
		type kv struct {
			k string
			v float64
		}
		var l []kv
		for k, v := range m {
			l = append(l, kv{k, v})
		}
		sort.Slice(l, func(i, j int) bool { return l[i].v > l[j].v })
		fmt.Printf("\n%s (of %.0f ms sampled)\n", title, all)
		for i := 0; i < len(l) && i < top; i++ {
			fmt.Printf("%9.1f ms %5.1f%%  %s\n", l[i].v, 100*l[i].v/all, l[i].k)
		}
	}
	list("self", self)
	list("total", total)
	// A timeline: in each 100 ms of the profile, the three functions with
	// the most total time there that are not just the call chain's roots.
	fmt.Printf("\ntimeline (ms from profile start: the busiest non-root functions)\n")
	type bucket map[string]float64
	var buckets []bucket
	at := 0.0
	for i, id := range p.Samples {
		if i < len(p.TimeDeltas) {
			at += float64(p.TimeDeltas[i]) / 1000
		}
		b := int(at / 100)
		for len(buckets) <= b {
			buckets = append(buckets, bucket{})
		}
		// the frame 3 levels below the outermost interesting one
		var chain []string
		for x, ok := id, true; ok; x, ok = parent[x] {
			chain = append(chain, name(byID[x]))
		}
		depth := 0
		for j := len(chain) - 1; j >= 0; j-- {
			nm := chain[j]
			if nm == "(root)" || strings.HasPrefix(nm, "js-to-wasm") || strings.HasPrefix(nm, "wasm_") || strings.HasPrefix(nm, "_resume") || strings.HasPrefix(nm, "run wasm_exec") || strings.HasPrefix(nm, "(anonymous)") || strings.HasPrefix(nm, "runtime.") || strings.HasPrefix(nm, "syscall_js.handleEvent") {
				continue
			}
			depth++
			if depth == 3 || j == 0 {
				buckets[b][nm] += 1
				break
			}
		}
	}
	for i, b := range buckets {
		type kv struct {
			k string
			v float64
		}
		var l []kv
		for k, v := range b {
			l = append(l, kv{k, v})
		}
		sort.Slice(l, func(i, j int) bool { return l[i].v > l[j].v })
		line := fmt.Sprintf("%6d", i*100)
		for j := 0; j < len(l) && j < 3; j++ {
			line += fmt.Sprintf("  %s(%.0f)", l[j].k, l[j].v)
		}
		fmt.Println(line)
	}
}
