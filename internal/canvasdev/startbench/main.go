// Command startbench sets the page's start beside the empty Ebiten
// program's, step by step, each in a fresh headless Chromium that is up
// before it navigates (canvasdev.WaitGPU), as canvasbench times the first
// frame: for each round it loads the real page (/) and the empty program
// (the harness's canvas.html?wasm=empty, an iframe of the page's canvas
// size), in turn, and prints the first frame, the canvas iframe's
// performance marks (kafkasim:instantiated, main, game, first-update,
// first-draw; the page's engine too) and the shell's App.bootMs, on the
// top page's clock, and the CPU the browser's processes spent from
// navigation to that frame, by process and thread. Then the medians.
//
//	go run ./internal/canvasdev/startbench [-n 3] [-only page|empty] [-wasm path]
//
// -wasm serves that file as the page's wasm/kafkasim.wasm (to compare a
// build with other flags without touching the tree).
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/tracing"
	"github.com/chromedp/chromedp"

	"github.com/kafkasim/kafkasim/internal/canvasdev"
	"github.com/kafkasim/kafkasim/internal/webapp"
)

func main() {
	n := flag.Int("n", 3, "rounds (each a fresh browser per program)")
	only := flag.String("only", "", "page or empty: time that one alone")
	wasm := flag.String("wasm", "", "serve this file as the page's wasm/kafkasim.wasm")
	threads := flag.Bool("threads", false, "print each sample's CPU by thread")
	other := flag.String("other", "", "another source tree: its page (\"other\") is timed in turn with this one's")
	flag.StringVar(&traceOut, "trace", "", "write each sample's Chrome trace to this prefix (+ prog, round, .json)")
	flag.Parse()
	if *n < 1 || *n > 20 || (*only != "" && *only != "page" && *only != "empty") {
		log.Fatal("startbench: -n in [1, 20], -only page or empty")
	}
	root, err := canvasdev.Root()
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	dir, err := os.MkdirTemp("", "kafkasim-startbench")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := canvasdev.Build(ctx, root, dir, "empty"); err != nil {
		log.Fatal(err)
	}
	app, err := webapp.Build(webapp.Options{Root: root, Log: os.Stderr})
	if err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	dev := canvasdev.Handler(root, dir)
	mux := http.NewServeMux()
	mux.Handle("/harness.html", dev)
	mux.Handle("/wasm/empty.wasm", dev)
	if *wasm != "" {
		mux.HandleFunc("/wasm/kafkasim.wasm", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/wasm")
			http.ServeFile(w, r, *wasm)
		})
	}
	mux.Handle("/", app)
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	defer srv.Close()
	base := "http://" + ln.Addr().String()

	progs := []string{"page", "empty"}
	if *only != "" {
		progs = []string{*only}
	}
	bases := map[string]string{"page": base, "empty": base}
	if *other != "" {
		oapp, err := webapp.Build(webapp.Options{Root: *other, Log: os.Stderr})
		if err != nil {
			log.Fatal(err)
		}
		oln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			log.Fatal(err)
		}
		osrv := &http.Server{Handler: oapp}
		go osrv.Serve(oln)
		defer osrv.Close()
		bases["other"] = "http://" + oln.Addr().String()
		progs = append([]string{"other"}, progs...)
	}
	all := map[string][]sample{}
	for r := 0; r < *n; r++ {
		for _, p := range progs {
			s, err := run(ctx, bases[p], p, r+1)
			if err != nil {
				log.Fatalf("%s: %v", p, err)
			}
			all[p] = append(all[p], s)
			fmt.Printf("%s round %d: %s\n", p, r+1, s.line())
			if *threads {
				s.printThreads()
			}
		}
	}
	for _, p := range progs {
		fmt.Printf("median %s: %s\n", p, medianLine(all[p]))
	}
}

// sample is one cold start.
type sample struct {
	ff    float64            // first frame, ms from navigation
	marks map[string]float64 // the iframe's kafkasim:* marks, shell bootMs as boot.*
	cpu   map[string]float64 // ms of CPU by process type, and by "type/thread"
	load  string
}

// order is how marks print.
var order = []string{"instantiated", "main", "engine", "game", "first-update", "first-draw", "first-scene", "boot.engine", "boot.restored"}

func (s sample) line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "ff %.0f |", s.ff)
	for _, k := range order {
		if v, ok := s.marks[k]; ok {
			fmt.Fprintf(&b, " %s %.0f", k, v)
		}
	}
	fmt.Fprintf(&b, " | cpu %.0f (renderer %.0f, main %.0f, gpu %.0f) | load %s", s.cpu["all"], s.cpu["renderer"], s.cpu["renderer/CrRendererMain"], s.cpu["gpu-process"], s.load)
	return b.String()
}

func (s sample) printThreads() {
	var ks []string
	for k := range s.cpu {
		if strings.Contains(k, "/") && s.cpu[k] >= 20 {
			ks = append(ks, k)
		}
	}
	sort.Slice(ks, func(i, j int) bool { return s.cpu[ks[i]] > s.cpu[ks[j]] })
	for _, k := range ks {
		fmt.Printf("    %7.0f %s\n", s.cpu[k], k)
	}
}

func medianLine(ss []sample) string {
	med := func(f func(sample) (float64, bool)) (float64, bool) {
		var v []float64
		for _, s := range ss {
			if x, ok := f(s); ok {
				v = append(v, x)
			}
		}
		if len(v) == 0 {
			return 0, false
		}
		slices.Sort(v)
		return v[len(v)/2], true
	}
	var b strings.Builder
	ff, _ := med(func(s sample) (float64, bool) { return s.ff, true })
	fmt.Fprintf(&b, "ff %.0f |", ff)
	for _, k := range order {
		if v, ok := med(func(s sample) (float64, bool) { v, ok := s.marks[k]; return v, ok }); ok {
			fmt.Fprintf(&b, " %s %.0f", k, v)
		}
	}
	for _, k := range []string{"all", "renderer", "renderer/CrRendererMain", "gpu-process"} {
		v, _ := med(func(s sample) (float64, bool) { return s.cpu[k], true })
		fmt.Fprintf(&b, " %s %.0f", k, v)
	}
	return b.String()
}

// run starts a fresh browser, waits for it to be up, loads prog and
// waits for its first frame.
func run(ctx context.Context, base, prog string, round int) (sample, error) {
	s := sample{marks: map[string]float64{}}
	bctx, cancel, err := canvasdev.Browser(ctx, 1280, 800)
	if err != nil {
		return s, err
	}
	defer cancel()
	if _, err := canvasdev.WaitGPU(bctx); err != nil {
		return s, err
	}
	url, done, ff := base+"/", `window.App && App.firstFrameMs !== null`, `App.firstFrameMs`
	if prog == "empty" {
		url = base + "/harness.html?wasm=empty&w=818&h=292"
		done = `(() => { try { return document.getElementById("canvas").contentWindow.kafkasimCanvas.firstFrameMs != null; } catch (e) { return false; } })()`
		ff = `(() => { const f = document.getElementById("canvas").contentWindow; return f.kafkasimCanvas.firstFrameMs + f.performance.timeOrigin - performance.timeOrigin; })()`
	}
	var stop func() error
	if traceOut != "" {
		if stop, err = startTrace(bctx, fmt.Sprintf("%s%s%d.json", traceOut, prog, round)); err != nil {
			return s, err
		}
	}
	c0 := cpuTimes()
	s.load = loadavg()
	if err := chromedp.Do(bctx, chromedp.Navigate(url)); err != nil {
		return s, err
	}
	if err := canvasdev.Poll(bctx, done, 90*time.Second); err != nil {
		return s, err
	}
	c1 := cpuTimes()
	if stop != nil {
		if err := stop(); err != nil {
			return s, err
		}
	}
	s.cpu = map[string]float64{}
	for k, v := range c1 {
		d := v - c0[k]
		s.cpu[k] += d
		if typ, _, ok := strings.Cut(k, "/"); ok {
			s.cpu[typ] += d
			s.cpu["all"] += d
		}
	}
	if s.ff, err = chromedp.Run(bctx, chromedp.Evaluate[float64](ff)); err != nil {
		return s, err
	}
	marks, err := chromedp.Run(bctx, chromedp.Evaluate[map[string]float64](canvasdev.CanvasMarksJS(true)))
	if err != nil {
		return s, err
	}
	boot, err := chromedp.Run(bctx, chromedp.Evaluate[map[string]float64](`(window.App && App.bootMs) || {}`))
	if err != nil {
		return s, err
	}
	for k, v := range boot {
		marks["boot."+k] = v
	}
	s.marks = marks
	return s, nil
}

// cpuTimes returns the CPU ms of every thread of this process's
// descendants (the browser), keyed "type/thread" (type: browser,
// renderer, gpu-process, utility, ...), summed over threads of one name.
func cpuTimes() map[string]float64 {
	ents, _ := os.ReadDir("/proc")
	parent := map[int]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := stat(filepath.Join("/proc", e.Name(), "stat")); ok {
			parent[pid] = st.ppid
		}
	}
	me := os.Getpid()
	mine := func(pid int) bool {
		for i := 0; i < 64 && pid > 1; i++ {
			if pid = parent[pid]; pid == me {
				return true
			}
		}
		return false
	}
	out := map[string]float64{}
	for pid := range parent {
		if !mine(pid) {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		typ := "browser"
		for _, a := range strings.FieldsFunc(string(cmd), func(r rune) bool { return r == 0 || r == ' ' }) {
			if t, ok := strings.CutPrefix(a, "--type="); ok {
				typ = t
			}
		}
		if !strings.Contains(string(cmd), "chrom") {
			continue
		}
		tasks, _ := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "task"))
		for _, t := range tasks {
			if st, ok := stat(filepath.Join("/proc", strconv.Itoa(pid), "task", t.Name(), "stat")); ok {
				out[typ+"/"+st.comm] += st.cpuMs
			}
		}
	}
	return out
}

type procStat struct {
	comm  string
	ppid  int
	cpuMs float64
}

// stat reads /proc/.../stat: comm, ppid, utime+stime in ms (USER_HZ 100).
func stat(path string) (procStat, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return procStat{}, false
	}
	s := string(b)
	i, j := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if i < 0 || j < i {
		return procStat{}, false
	}
	f := strings.Fields(s[j+1:])
	if len(f) < 13 {
		return procStat{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return procStat{comm: s[i+1 : j], ppid: ppid, cpuMs: (ut + st) * 10}, true
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], ",")
}

var traceOut string

// traceCategories: what compiles and runs the wasm, the GPU process's
// work, IPC and the main thread's tasks.
var traceCategories = []string{"toplevel", "blink.user_timing", "loading", "v8", "v8.wasm", "gpu", "viz", "cc", "blink", "devtools.timeline", "ipc", "mojom", "disabled-by-default-gpu.service", "disabled-by-default-devtools.timeline", "disabled-by-default-v8.wasm.detailed", "disabled-by-default-v8.wasm.turbofan"}

// startTrace starts a Chrome trace of every process; the function it
// returns stops it and writes the events as a JSON array to path.
func startTrace(ctx context.Context, path string) (func() error, error) {
	var mu sync.Mutex
	var parts [][]byte
	done := make(chan struct{})
	if err := chromedp.Listen(ctx, func(ev any) {
		switch e := ev.(type) {
		case *tracing.EventDataCollected:
			mu.Lock()
			for _, v := range e.Value {
				parts = append(parts, []byte(v))
			}
			mu.Unlock()
		case *tracing.EventTracingComplete:
			close(done)
		}
	}); err != nil {
		return nil, err
	}
	if _, err := chromedp.Call(ctx, tracing.Start, tracing.StartParams{TraceConfig: &tracing.TraceConfig{IncludedCategories: traceCategories}}); err != nil {
		return nil, err
	}
	return func() error {
		if _, err := chromedp.Call(ctx, tracing.End, cdp.Empty{}); err != nil {
			return err
		}
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			return fmt.Errorf("trace: no tracingComplete")
		}
		mu.Lock()
		defer mu.Unlock()
		b := append([]byte("["), bytes.Join(parts, []byte(","))...)
		return os.WriteFile(path, append(b, ']'), 0o644)
	}, nil
}
