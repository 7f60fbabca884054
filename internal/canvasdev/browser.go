package canvasdev

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/chromedp/chromedp"
)

// Chromium returns the path of a Chromium to drive: $CHROMIUM, else the
// first of chromium, chromium-browser, google-chrome on PATH.
func Chromium() (string, error) {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p, nil
	}
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("canvasdev: no chromium on PATH (set CHROMIUM, or apt-get install chromium)")
}

// Browser starts a headless Chromium with software WebGL (what Ebiten
// needs where there is no GPU) and a fresh profile, w x h pixels, and
// returns a chromedp context for it; cancel stops it.
func Browser(ctx context.Context, w, h int) (context.Context, context.CancelFunc, error) {
	bin, err := Chromium()
	if err != nil {
		return nil, nil, err
	}
	profile, err := os.MkdirTemp("", "kafkasim-chromium")
	if err != nil {
		return nil, nil, err
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(w, h),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("use-angle", "swiftshader"),
		chromedp.Flag("use-gl", "angle"),
		chromedp.Flag("enable-unsafe-swiftshader", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("mute-audio", true),
	}
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	bctx, bcancel := chromedp.NewContext(actx)
	if err := chromedp.Do(bctx, chromedp.Navigate("about:blank")); err != nil {
		bcancel()
		acancel()
		os.RemoveAll(profile)
		return nil, nil, fmt.Errorf("canvasdev: start %s: %v", bin, err)
	}
	return bctx, func() {
		bcancel()
		acancel()
		os.RemoveAll(profile)
	}, nil
}

// Poll evaluates the JS expression expr every 50 ms until it is true or
// timeout passes.
func Poll(ctx context.Context, expr string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr))
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("canvasdev: %s still false after %v", expr, timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// WaitGPU waits for a browser just started by Browser to be up: it
// creates a WebGL context in a blank tab of its own, closes that tab, lets
// the browser settle a second, and returns how long the context took.
// Right after launch Chromium's GPU process is still starting SwiftShader,
// and the first page to ask for WebGL waits for it: 0.3 to 1.4 s on this
// 2-core machine, against 15 ms for the same page's getContext once the
// browser has been up for a second and a half (with or without an earlier
// context). A learner's browser is up before they open the page, so a
// first frame measured in a browser launched a moment earlier times the
// browser's start, not the page's: Bench and canvasprof -startup call this
// before they navigate ctx's tab, whose profile stays fresh (no cache, no
// compiled code).
func WaitGPU(ctx context.Context) (time.Duration, error) {
	tab, cancel := chromedp.NewContext(ctx)
	defer cancel()
	t0 := time.Now()
	ok, err := chromedp.Run(tab, chromedp.Evaluate[bool](`(() => {
		const gl = document.createElement("canvas").getContext("webgl2");
		if (!gl) return false;
		const lose = gl.getExtension("WEBGL_lose_context");
		if (lose) lose.loseContext();
		return true;
	})()`))
	d := time.Since(t0)
	if err != nil {
		return d, err
	}
	if !ok {
		return d, fmt.Errorf("canvasdev: the browser gives no WebGL2 context")
	}
	if err := chromedp.Cancel(tab); err != nil {
		return d, err
	}
	select {
	case <-ctx.Done():
		return d, ctx.Err()
	case <-time.After(time.Second):
	}
	return d, nil
}
