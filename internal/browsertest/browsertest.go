// Package browsertest opens headless Chromium for the browser tests (the
// app's in internal/webapp, the classroom page's in server): one place for
// the Chromium lookup, its flags, the bound on a whole session, a guard on
// every call, and a record of what the page said (console lines,
// exceptions, navigations, lifecycle events, same-origin requests and how
// they ended). A page that stops answering fails its test within one
// call's guard, with that record and the page's status, instead of sitting
// out the session's bound.
package browsertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// Options shape a browser. Zero values take the defaults.
type Options struct {
	// Session bounds the whole browser (default 600 s: a loaded machine).
	Session time.Duration
	// Call guards each call into the page (default 120 s).
	Call time.Duration
	// Width and Height of the window (default 1440x900).
	Width, Height int
	// GL turns on software WebGL (SwiftShader through ANGLE), for pages
	// that draw with WebGL.
	GL bool
	// Status is a JavaScript expression whose value a failure reports
	// beside the record (evaluated with a short guard of its own).
	Status string
}

// Browser is one tab of a headless Chromium. Its methods fail T on an
// error or a guard that ran out.
type Browser struct {
	T   testing.TB
	Ctx context.Context
	// Out is the directory screenshots go to (KAFKASIM_SCREENSHOTS, or
	// kafkasim-browser-test in the temporary directory).
	Out  string
	opts Options
	rec  *recorder
}

// Chromium is the path of a Chromium (KAFKASIM_CHROMIUM first); the test
// is skipped without one.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, c := range []string{os.Getenv("KAFKASIM_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if c == "" {
			continue
		}
		if p, err := exec.LookPath(c); err == nil {
			return p
		}
	}
	t.Skip("no chromium here (.ci/run installs it)")
	return ""
}

// New starts a headless Chromium and opens its first tab; the browser
// stops when the test ends.
func New(t testing.TB, o Options) *Browser {
	t.Helper()
	if o.Session <= 0 {
		o.Session = 600 * time.Second
	}
	if o.Call <= 0 {
		o.Call = 120 * time.Second
	}
	if o.Width <= 0 || o.Height <= 0 {
		o.Width, o.Height = 1440, 900
	}
	bin := Chromium(t)
	out := os.Getenv("KAFKASIM_SCREENSHOTS")
	if out == "" {
		out = filepath.Join(os.TempDir(), "kafkasim-browser-test")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots in %s", out)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(o.Width, o.Height),
	}
	if o.GL {
		opts = append(opts, chromedp.Flag("use-angle", "swiftshader"), chromedp.Flag("use-gl", "angle"), chromedp.Flag("enable-unsafe-swiftshader", true))
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, o.Session)
	t.Cleanup(func() { cancelT(); cancelC(); cancelA() })
	b := &Browser{T: t, Ctx: ctx, Out: out, opts: o}
	b.listen()
	return b
}

// Tab opens another tab in b's browser, with its own record.
func (b *Browser) Tab() *Browser {
	ctx, cancel := chromedp.NewContext(b.Ctx)
	b.T.Cleanup(cancel)
	nb := &Browser{T: b.T, Ctx: ctx, Out: b.Out, opts: b.opts}
	nb.listen()
	return nb
}

// WithT is b for a subtest: the same tab, failures reported to t.
func (b *Browser) WithT(t testing.TB) *Browser {
	nb := *b
	nb.T = t
	return &nb
}

// listen starts the tab (in the session's context, so that no call's
// guard can end the browser) and records what it reports.
func (b *Browser) listen() {
	b.T.Helper()
	b.rec = newRecorder()
	if err := chromedp.Listen(b.Ctx, b.rec.event); err != nil {
		b.T.Fatalf("the browser did not start: %v", err)
	}
}

// Record is what the tab reported lately, oldest first, one line each.
func (b *Browser) Record() string { return b.rec.String() }

// fail ends the test with what went wrong, the tab's record and status.
func (b *Browser) fail(what string, err error) {
	b.T.Helper()
	msg := fmt.Sprintf("%s: %v", what, err)
	if errors.Is(err, context.DeadlineExceeded) {
		if b.Ctx.Err() != nil {
			msg = fmt.Sprintf("%s: the browser session's %v ran out", what, b.opts.Session)
		} else {
			msg = fmt.Sprintf("%s: no answer from the page within %v", what, b.opts.Call)
		}
	}
	b.T.Fatalf("%s\n%s", msg, b.report())
}

// report is the status expression's value (if the page still answers)
// and the record.
func (b *Browser) report() string {
	s := ""
	if b.opts.Status != "" {
		ctx, cancel := context.WithTimeout(b.Ctx, 5*time.Second)
		raw, err := chromedp.Run(ctx, chromedp.Evaluate[json.RawMessage](`(() => { try { return `+b.opts.Status+`; } catch (e) { return "status: " + e; } })()`))
		cancel()
		if err != nil {
			s = fmt.Sprintf("page status: no answer (%v)\n", err)
		} else {
			s = fmt.Sprintf("page status: %s\n", raw)
		}
	}
	return s + "what the page reported last:\n" + b.rec.String()
}

// Run runs a chromedp action under the call guard.
func (b *Browser) Run(a chromedp.Action[chromedp.Void]) {
	b.T.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, b.opts.Call)
	defer cancel()
	if _, err := chromedp.Run(ctx, a); err != nil {
		b.fail("browser action", err)
	}
}

// Try evaluates expr (awaiting a promise) under the call guard and
// returns its JSON value or the error.
func (b *Browser) Try(expr string) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(b.Ctx, b.opts.Call)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[json.RawMessage](expr, chromedp.EvalAwaitPromise))
}

// JS evaluates expr (awaiting a promise) and decodes its JSON value into
// v (when not nil).
func (b *Browser) JS(v any, expr string) {
	b.T.Helper()
	raw, err := b.Try(expr)
	if err != nil {
		b.fail(expr, err)
	}
	if v != nil {
		if err := json.Unmarshal(raw, v); err != nil {
			b.T.Fatalf("%s: %v (%s)", expr, err, raw)
		}
	}
}

// Until evaluates expr until it is true, for at most d, failing with the
// last error, the page's status and its record.
func (b *Browser) Until(what, expr string, d time.Duration) {
	b.T.Helper()
	deadline := time.Now().Add(d)
	for {
		raw, err := b.Try(expr)
		if err == nil && string(raw) == "true" {
			return
		}
		if err != nil && b.Ctx.Err() != nil {
			b.fail(what, err)
		}
		if time.Now().After(deadline) {
			b.T.Fatalf("%s: not within %v (last: %s %v)\n%s", what, d, raw, err, b.report())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Navigate loads url and waits for its load event, under the call guard.
// From about:blank first, so that a URL differing only in its fragment
// loads afresh.
//
// chromedp's wait for a load ends at the first same-document navigation
// it sees before the new document commits, and the page being left can
// make one (history.replaceState in a beforeunload handler): the wait for
// about:blank then returns while the page is still leaving, and the next
// navigation, sent during that, is lost: nothing loads and the wait for
// it never ends. So about:blank must be the document (polled) before url
// is asked for; about:blank itself has no handlers to race.
func (b *Browser) Navigate(url string) {
	b.T.Helper()
	b.rec.note("test: navigate to about:blank")
	b.Run(chromedp.Navigate("about:blank"))
	b.Until("about:blank replaces the page", `location.href === "about:blank" && document.readyState === "complete"`, b.opts.Call)
	b.rec.note("test: navigate to %s", shortURL(url))
	b.Run(chromedp.Navigate(url))
	b.rec.note("test: %s loaded", shortURL(url))
}

// Front makes b's tab the active one (a background tab draws no frames).
func (b *Browser) Front() {
	b.T.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, b.opts.Call)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Action[chromedp.Void](func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, t, page.BringToFront, cdp.Empty{})
		return chromedp.Void{}, err
	})); err != nil {
		b.fail("bring the tab to the front", err)
	}
}

// Shot saves a screenshot as Out/name.png after two animation frames, and
// returns its path.
func (b *Browser) Shot(name string) string {
	b.T.Helper()
	b.JS(nil, `new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`)
	ctx, cancel := context.WithTimeout(b.Ctx, b.opts.Call)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.fail("screenshot "+name, err)
	}
	p := filepath.Join(b.Out, name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		b.T.Fatal(err)
	}
	b.T.Logf("screenshot %s", p)
	return p
}
