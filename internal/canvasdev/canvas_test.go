package canvasdev

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kafkasim/kafkasim/wasm/scene"
)

// shotsDir is where the browser tests save screenshots: $KAFKASIM_SHOTS,
// else kafkasim-shots in the temporary directory.
func shotsDir(t testing.TB) string {
	d := os.Getenv("KAFKASIM_SHOTS")
	if d == "" {
		d = filepath.Join(os.TempDir(), "kafkasim-shots")
	}
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

var built struct {
	once sync.Once
	dir  string
	root string
	err  error
}

// serve builds the canvas once per test binary and serves the harness on
// a loopback port for the test's lifetime.
func serve(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		built.root, built.err = Root()
		if built.err != nil {
			return
		}
		built.dir, built.err = os.MkdirTemp("", "kafkasim-canvastest")
		if built.err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			built.err = Build(ctx, built.root, built.dir, "kafkasim")
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: Handler(built.root, built.dir)}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

type where struct {
	Found      bool
	X, Y, W, H float64
}

// TestCanvasInBrowser loads the canvas in headless Chromium through the
// harness, posts fixture scenes, saves a screenshot of each, finds
// elements by a where-query and clicks them with the real mouse, and
// checks the click messages the canvas posts back and its refusal of a
// bad scene.
func TestCanvasInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	base := serve(t)
	ctx, cancel, err := Browser(context.Background(), 1000, 800)
	if err != nil {
		t.Fatal(err)
	}
	defer cancel()
	// Generous: make test runs other packages beside this one on two cores.
	ctx, tcancel := context.WithTimeout(ctx, 4*time.Minute)
	defer tcancel()
	shots := shotsDir(t)

	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/harness.html?sample=leader-death")); err != nil {
		t.Fatal(err)
	}
	if err := Poll(ctx, `__has("frame") && window.__posted > 0`, 40*time.Second); err != nil {
		t.Fatal(err)
	}
	// load shows another sample in the same canvas, as the engine posts a new scene.
	load := func(name, view string, play bool) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[*int](fmt.Sprintf(`__show(%q, %q, %v).then(() => null)`, name, view, play), chromedp.EvalAwaitPromise)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		settle(t, ctx)
	}
	shot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.ID("canvas")))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(shots, name+".png")
		if err := os.WriteFile(p, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot %s", p)
	}
	find := func(ref scene.Ref) where {
		t.Helper()
		b, _ := json.Marshal(ref)
		w, err := chromedp.Run(ctx, chromedp.Evaluate[where](fmt.Sprintf(`__where(%s)`, b), chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		if !w.Found {
			t.Fatalf("where %s: not found", b)
		}
		return w
	}
	click := func(w where) scene.Click {
		t.Helper()
		off, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(() => { const r = document.getElementById("canvas").getBoundingClientRect(); return [r.left, r.top]; })()`))
		if err != nil {
			t.Fatal(err)
		}
		before, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`__canvasMsgs.filter(m => m.type === "click").length`))
		if err := chromedp.Do(ctx, chromedp.MouseClickXY(off[0]+w.X, off[1]+w.Y)); err != nil {
			t.Fatal(err)
		}
		if err := Poll(ctx, fmt.Sprintf(`__canvasMsgs.filter(m => m.type === "click").length > %d`, before), 10*time.Second); err != nil {
			t.Fatal(err)
		}
		c, err := chromedp.Run(ctx, chromedp.Evaluate[scene.Click](`__last("click")`))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}

	settle(t, ctx)
	shot("canvas-leader-death")
	c := click(find(scene.Ref{Kind: scene.KindBroker, Broker: 2}))
	if c.Kind != scene.KindBroker || c.Broker != 2 || c.View != scene.ViewCluster {
		t.Errorf("click on broker 2 posted %+v", c)
	}
	c = click(find(scene.Ref{Kind: scene.KindRecord, Partition: "orders-0", Broker: 1, Offset: 2}))
	if c.Kind != scene.KindRecord || c.Partition != "orders-0" || c.Broker != 1 || c.Offset != 2 {
		t.Errorf("click on the lost record posted %+v", c)
	}
	c = click(find(scene.Ref{Kind: scene.KindConsumer, Name: "c1"}))
	if c.Kind != scene.KindConsumer || c.Name != "c1" {
		t.Errorf("click on consumer c1 posted %+v", c)
	}

	// A scene the canvas must refuse: it says why and keeps drawing the last good one.
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`__post({type: "scene", scene: {v: 99, brokers: [], partitions: []}})`)); err != nil {
		t.Fatal(err)
	}
	if err := Poll(ctx, `__has("error")`, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	e, _ := chromedp.Run(ctx, chromedp.Evaluate[scene.Error](`__last("error")`))
	if !strings.Contains(e.Error, "version 99") {
		t.Errorf("bad scene: error %q, want it to name version 99", e.Error)
	}
	if w := find(scene.Ref{Kind: scene.KindBroker, Broker: 2}); !w.Found {
		t.Errorf("after a refused scene the last good one is gone")
	}

	load("faults", "", false)
	shot("canvas-faults-both")
	lane := find(scene.Ref{Kind: scene.KindLane, Name: "c1"})
	lane.Y += 100 // on the lane below its label, inside the window of time
	c = click(lane)
	if c.Kind != scene.KindLane || c.Name != "c1" || c.View != scene.ViewSpaceTime || c.At <= 0 {
		t.Errorf("click on lane c1 posted %+v, want a lane click with a time", c)
	}
	load("faults", "cluster", false)
	shot("canvas-faults-cluster")
	load("reference", "", true)
	shot("canvas-reference-both")
	load("storm", "cluster", false)
	shot("canvas-storm")
}

// settle waits for the canvas to have drawn two frames after the newest
// scene arrived.
func settle(t *testing.T, ctx context.Context) {
	t.Helper()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.getElementById("canvas").contentWindow.kafkasimCanvas.frames`))
	if err != nil {
		t.Fatal(err)
	}
	if err := Poll(ctx, fmt.Sprintf(`document.getElementById("canvas").contentWindow.kafkasimCanvas.frames > %d`, n+2), 20*time.Second); err != nil {
		t.Fatal(err)
	}
}
