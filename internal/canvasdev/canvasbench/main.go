// Command canvasbench prints make bench's browser figures as KEY VALUE
// lines (scripts/bench.sh formats them): the wasm sizes, raw and gzip, and
// what the page loads before its first frame; the real page's first frame
// on localhost (cold profile, the median of fresh browsers, each up before
// it navigates); the frame rates of the real page playing
// the reference scene (5 brokers, 3 topics x 8 partitions, RF 3, two
// groups, 500 records/s; engine and canvas in one wasm) and of the empty
// Ebiten program in the same headless Chromium, their ratio, the mean
// scene build, whether the engine kept up with 1x, and the load average
// before and after.
//
// Then the browser's CPU per drawn frame of either program, every thread
// of every process under it (from /proc), and the busiest threads.
//
// Each program runs for -warm (10 s) before its frames are counted, and
// the CPU per frame of either half of the count is printed too
// (cpu.*.halves): a steady figure has two about equal halves.
//
//	go run ./internal/canvasdev/canvasbench [-dur 5s] [-warm 10s] [-firstframes 3] [-wasm name=path ...]
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"sort"
	"strings"
	"time"

	"github.com/kafkasim/kafkasim/internal/canvasdev"
)

type files map[string]string

func (f files) String() string { return fmt.Sprint(map[string]string(f)) }
func (f files) Set(v string) error {
	name, path, ok := strings.Cut(v, "=")
	if !ok || name == "" || path == "" {
		return fmt.Errorf("want name=path, got %q", v)
	}
	f[name] = path
	return nil
}

func main() {
	dur := flag.Duration("dur", 5*time.Second, "how long to count frames of each program")
	extra := files{}
	flag.Var(extra, "wasm", "another wasm to size, as name=path (repeatable)")
	warm := flag.Duration("warm", canvasdev.Warm, "how long each program runs before its frames are counted (V8's tier-up of hot code is done by then)")
	nff := flag.Int("firstframes", canvasdev.FirstFrameRuns, "fresh browsers to time the first frame in (1 when only the frame rates matter)")
	flag.Parse()
	if *dur <= 0 || *dur > 5*time.Minute {
		log.Fatalf("canvasbench: -dur %v: want (0, 5m]", *dur)
	}
	if *nff < 1 || *nff > 9 {
		log.Fatalf("canvasbench: -firstframes %d: want 1 to 9", *nff)
	}
	if *warm < 0 || *warm > 5*time.Minute {
		log.Fatalf("canvasbench: -warm %v: want [0, 5m]", *warm)
	}
	canvasdev.FirstFrameRuns, canvasdev.Warm = *nff, *warm
	root, err := canvasdev.Root()
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	r, err := canvasdev.Bench(ctx, root, *dur, extra)
	if err != nil {
		log.Fatal(err)
	}
	var names []string
	for n := range r.Sizes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Printf("size.%s.raw %d\nsize.%s.gzip %d\n", n, r.Sizes[n][0], n, r.Sizes[n][1])
	}
	fmt.Printf("page.gzip %d\nfirstframe.ms %.0f\nengine.ms %.0f\nready.ms %.0f\ncanvas.size %dx%d\n", r.PageGzip, r.FirstFrameMs, r.EngineMs, r.ReadyMs, r.CanvasW, r.CanvasH)
	var steps []string
	for k := range r.Boot {
		steps = append(steps, k)
	}
	sort.Strings(steps)
	for _, k := range steps {
		fmt.Printf("boot.%s.ms %.0f\n", k, r.Boot[k])
	}
	var ffs []string
	for _, ms := range r.FirstFrames {
		ffs = append(ffs, fmt.Sprintf("%.0f", ms))
	}
	fmt.Printf("firstframe.samples %s\nempty.firstframe.ms %.0f\nbrowser.gpuwait.ms %.0f\n", strings.Join(ffs, ","), r.EmptyFirstMs, r.GPUWaitMs)
	fmt.Printf("warm.s %.0f\nfps.empty %.2f\nfps.reference %.2f\n", canvasdev.Warm.Seconds(), r.EmptyFPS, r.RefFPS)
	ratio := 0.0
	if r.EmptyFPS > 0 {
		ratio = r.RefFPS / r.EmptyFPS
	}
	fmt.Printf("fps.ratio %.2f\ntps.reference %.2f\nscene.ms %.2f\nscenes %d\nvirtual.rate %.2f\n", ratio, r.RefTPS, r.SceneMs, r.Scenes, r.VirtualRate)
	if area := float64(r.CanvasW * r.CanvasH); area > 0 {
		fmt.Printf("frame.quads %d\nframe.pixels %.0f\nframe.overdraw %.2f\n", r.Quads, r.Pixels, r.Pixels/area)
	}
	printCPU(r.EmptyCPU, r.RefCPU)
	if r.EmptySSFPS > 0 {
		// the stricter baseline: the empty program single-sampled, as the canvas is
		fmt.Printf("fps.empty.ss %.2f\nfps.ratio.ss %.2f\n", r.EmptySSFPS, r.RefFPS/r.EmptySSFPS)
		if e, rf := r.EmptySSCPU.PerFrame(""), r.RefCPU.PerFrame(""); r.EmptySSCPU.CPU != nil && rf > 0 {
			fmt.Printf("cpu.empty.ss.ms %.1f\ncpu.ratio.ss %.2f\n", e, e/rf)
		}
	}
	fmt.Printf("load.before %s\nload.after %s\n", strings.ReplaceAll(r.LoadBefore, " ", ","), strings.ReplaceAll(r.LoadAfter, " ", ","))
}

// cpuThreads is how many of the busiest threads printCPU lists.
const cpuThreads = 10

// printCPU prints the browser's CPU per drawn frame, in ms, for the empty
// program and the reference scene (cpu.empty.ms, cpu.reference.ms: every
// thread of every process; cpu.ratio, empty over reference: what the frame
// rate ratio comes to when the browser is bound by CPU), then the busiest
// threads of either as cpu.thread.PROCESS/THREAD EMPTY,REFERENCE.
func printCPU(empty, ref canvasdev.Frames) {
	if empty.CPU == nil || ref.CPU == nil {
		return
	}
	e, r := empty.PerFrame(""), ref.PerFrame("")
	fmt.Printf("cpu.empty.ms %.1f\ncpu.reference.ms %.1f\n", e, r)
	if r > 0 {
		fmt.Printf("cpu.ratio %.2f\n", e/r)
	}
	if empty.Halves[0] > 0 && ref.Halves[0] > 0 {
		fmt.Printf("cpu.empty.halves %.1f,%.1f\ncpu.reference.halves %.1f,%.1f\n", empty.Halves[0], empty.Halves[1], ref.Halves[0], ref.Halves[1])
	}
	fmt.Printf("cpu.empty.cores %.2f\ncpu.reference.cores %.2f\n", empty.CPU.Total()/float64(empty.Wall.Milliseconds()), ref.CPU.Total()/float64(ref.Wall.Milliseconds()))
	seen := map[string]bool{}
	var names []string
	for _, top := range [][]string{ref.CPU.Top(), empty.CPU.Top()} {
		for i, k := range top {
			if i < cpuThreads && !seen[k] {
				seen[k] = true
				names = append(names, k)
			}
		}
	}
	sort.Slice(names, func(i, j int) bool { return ref.CPU[names[i]] > ref.CPU[names[j]] })
	for _, k := range names {
		fmt.Printf("cpu.thread.%s %.1f,%.1f\n", strings.ReplaceAll(k, " ", "_"), empty.PerFrame(k), ref.PerFrame(k))
	}
}
