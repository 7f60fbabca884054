package canvasdev

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/chromedp/chromedp"
)

// BenchResult holds make bench's browser figures.
type BenchResult struct {
	Sizes        map[string][2]int // name -> raw, gzip bytes
	FirstFrameMs float64           // navigation start to the canvas's first frame, cold profile
	EmptyFPS     float64           // the empty Ebiten program
	RefFPS       float64           // the canvas on the moving reference scene
	DecodeMs     float64           // mean wall ms the canvas spent decoding one scene
	Scenes       int64             // scenes the canvas decoded while measured
}

// Bench builds the binaries, serves them on loopback, and measures in one
// headless Chromium: the time to the canvas's first frame, then the frame
// rate of the empty Ebiten program and of the canvas drawing the
// reference sample (posted anew on every animation frame, view both),
// each over dur. extra names more wasm files to size (e.g. the engine's).
func Bench(ctx context.Context, root string, dur time.Duration, extra map[string]string) (*BenchResult, error) {
	dir, err := os.MkdirTemp("", "kafkasim-canvasbench")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := Build(ctx, root, dir, "kafkasim", "empty"); err != nil {
		return nil, err
	}
	res := &BenchResult{Sizes: map[string][2]int{}}
	files := map[string]string{"kafkasim": filepath.Join(dir, "wasm", "kafkasim.wasm"), "empty": filepath.Join(dir, "wasm", "empty.wasm")}
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
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: Handler(root, dir)}
	go srv.Serve(ln)
	defer srv.Close()
	base := "http://" + ln.Addr().String()

	bctx, cancel, err := Browser(ctx, 1000, 800)
	if err != nil {
		return nil, err
	}
	defer cancel()
	// First frame: the canvas page alone, first visit of a fresh profile.
	if err := chromedp.Do(bctx, chromedp.Navigate(base+"/canvas.html")); err != nil {
		return nil, err
	}
	if err := Poll(bctx, `kafkasimCanvas.firstFrameMs !== null`, 60*time.Second); err != nil {
		return nil, err
	}
	if res.FirstFrameMs, err = chromedp.Run(bctx, chromedp.Evaluate[float64](`kafkasimCanvas.firstFrameMs`)); err != nil {
		return nil, err
	}
	if res.EmptyFPS, err = measure(bctx, base+"/harness.html?wasm=empty", dur); err != nil {
		return nil, fmt.Errorf("empty: %v", err)
	}
	if res.RefFPS, err = measure(bctx, base+"/harness.html?sample=reference&play=1&n=240&step=1", dur); err != nil {
		return nil, fmt.Errorf("reference: %v", err)
	}
	st, err := chromedp.Run(bctx, chromedp.Evaluate[struct {
		DecodeMs float64
		Scenes   int64
	}](`__stats()`, chromedp.EvalAwaitPromise))
	if err != nil {
		return nil, err
	}
	res.DecodeMs, res.Scenes = st.DecodeMs, st.Scenes
	return res, nil
}

// measure loads a harness page and counts the canvas iframe's frames over
// dur, after a warm-up second once drawing has begun.
func measure(ctx context.Context, url string, dur time.Duration) (float64, error) {
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		return 0, err
	}
	const frames = `document.getElementById("canvas").contentWindow.kafkasimCanvas.frames`
	if err := Poll(ctx, `(() => { try { return `+frames+` > 10; } catch (e) { return false; } })()`, 60*time.Second); err != nil {
		return 0, err
	}
	time.Sleep(time.Second)
	count := func() (float64, time.Time, error) {
		n, err := chromedp.Run(ctx, chromedp.Evaluate[float64](frames))
		return n, time.Now(), err
	}
	n0, t0, err := count()
	if err != nil {
		return 0, err
	}
	time.Sleep(dur)
	n1, t1, err := count()
	if err != nil {
		return 0, err
	}
	return (n1 - n0) / t1.Sub(t0).Seconds(), nil
}
