package canvasdev

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	gozk "github.com/go-zookeeper/zk"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/internal/zktest"
	"github.com/kafkasim/kafkasim/server/zookeeper"
	"github.com/kafkasim/kafkasim/wasm/app"
	"github.com/kafkasim/kafkasim/wasm/scene"
)

// engineDriver serves an app.Engine's cluster to the ZooKeeper listener
// as kafkasim serve serves a room's: one lock around the engine, its clock
// advanced by the wall clock (1 virtual ms per wall ms) while running.
type engineDriver struct {
	mu      sync.Mutex
	e       *app.Engine
	running bool
	dos     int // Do calls: each request the listener hands over
	quit    chan struct{}
	done    chan struct{}
}

func newEngineDriver(t *testing.T, e *app.Engine) *engineDriver {
	d := &engineDriver{e: e, running: true, quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(d.done)
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				d.mu.Lock()
				if d.running {
					_ = d.e.Advance(2)
				}
				d.mu.Unlock()
			case <-d.quit:
				return
			}
		}
	}()
	t.Cleanup(func() { close(d.quit); <-d.done })
	return d
}

func (d *engineDriver) Do(ctx context.Context, fn func(c *core.Cluster)) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.dos++
	fn(d.e.Session().Driver().Cluster())
	return ctx.Err()
}

// hold stops the clock (run false) or starts it again.
func (d *engineDriver) hold(stop bool) {
	d.mu.Lock()
	d.running = !stop
	d.mu.Unlock()
}

// step advances the held clock by ms and returns the scene then.
func (d *engineDriver) step(t *testing.T, ms int64) (*scene.Scene, json.RawMessage) {
	t.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.e.Advance(ms); err != nil {
		t.Fatal(err)
	}
	opts := `{"view":"both","span":12}`
	raw, err := d.e.SceneJSON(opts)
	if err != nil {
		t.Fatal(err)
	}
	s, err := d.e.Scene(app.SceneOptions{View: scene.ViewBoth, Span: 12})
	if err != nil {
		t.Fatal(err)
	}
	return s, raw
}

// TestZKClientInBrowser: a real ZooKeeper client (go-zookeeper, speaking
// the protocol to the listener kafkasim serve runs) reads and watches the
// simulated ensemble and deletes /controller; the canvas draws it as a
// box of its own beside zk, with its address and session, its requests
// and the watch events along the link with their labels, in the cluster
// view and the space-time view, and the brokers' election that follows.
// The screenshots go to KAFKASIM_SHOTS (zkcli-read.png, zkcli-election.png,
// zkcli-race.png).
func TestZKClientInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	base := serve(t)
	e := app.New()
	if ei := e.Load("cluster brokers=3 seed=2 version=2.8 metadata=zk\ntopic create orders partitions=2 rf=3\nproducer p1 acks=all\nproduce p1 orders value=m count=4\n"); ei != nil {
		t.Fatal(ei.Msg)
	}
	if err := e.Advance(3000); err != nil {
		t.Fatal(err)
	}
	d := newEngineDriver(t, e)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	zs := zookeeper.Serve(ln, d, zookeeper.Config{})
	defer zs.Close()
	conn, _ := zktest.MustSession(t, zs.Addr().String(), 30*time.Second)
	if _, _, _, err := conn.ChildrenW("/brokers/ids"); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := conn.ExistsW("/controller"); err != nil {
		t.Fatal(err)
	}

	// Hold the clock, send a read: it waits in flight for the picture.
	d.hold(true)
	read := make(chan error, 1)
	// inFlight waits until the listener has handed a request over while
	// the clock is held (the request is then on the simulated wire).
	inFlight := func(send func()) {
		t.Helper()
		d.mu.Lock()
		n := d.dos
		d.mu.Unlock()
		send()
		for i := 0; i < 1000; i++ {
			d.mu.Lock()
			got := d.dos > n
			d.mu.Unlock()
			if got {
				return
			}
			time.Sleep(2 * time.Millisecond)
		}
		t.Fatal("the listener did not take the request")
	}
	inFlight(func() { go func() { _, _, err := conn.Children("/brokers/topics"); read <- err }() })
	s1, raw1 := d.step(t, 1)
	host := ""
	for _, zc := range s1.ZKClients {
		if zc.Session != "" && zc.Last == "getChildren2 /brokers/topics" {
			host = zc.Host
		}
	}
	if host == "" {
		t.Fatalf("no zk client with its session and last request: %+v", s1.ZKClients)
	}
	labelled := false
	for _, m := range s1.Messages {
		if m.From == host && m.To == "zk" && m.Label == "getChildren2 /brokers/topics" && m.InFlight(s1.Now) {
			labelled = true
		}
	}
	if !labelled {
		t.Fatalf("the read is not in flight from %s with its label: %+v", host, s1.Messages)
	}

	// Delete /controller: the client's watch fires, and every broker's.
	del := make(chan error, 1)
	inFlight(func() { go func() { del <- conn.Delete("/controller", -1) }() })
	s2, raw2 := d.step(t, 3)
	var toBrokers int
	for _, m := range s2.Messages {
		if m.Kind == "ZkWatchEvent" && m.Label == "NodeDeleted /controller" && m.InFlight(s2.Now) {
			if _, ok := scene.IsBrokerHost(m.To); ok {
				toBrokers++
			}
		}
	}
	if toBrokers != 3 {
		t.Fatalf("watch events to the brokers in flight: %d, want 3 (%+v)", toBrokers, s2.Messages)
	}

	// Each broker read /controller, found nobody and now sends its create.
	s3, raw3 := d.step(t, 5)
	var creates []string
	for _, m := range s3.Messages {
		if m.Kind == "ZkMulti" && m.InFlight(s3.Now) {
			creates = append(creates, m.From)
		}
	}
	if strings.Join(creates, ",") != "1,2,3" {
		t.Fatalf("creates of /controller in flight from %v, want every broker", creates)
	}

	// Let the clock run (the scenes are taken; a held clock for long would
	// make the client time out): the read and the delete are answered, a
	// broker wins /controller.
	d.hold(false)
	for _, ch := range []chan error{read, del} {
		select {
		case err := <-ch:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no answer")
		}
	}
	if ep := waitEpoch(t, conn); ep != "2" {
		t.Fatalf("controller epoch %s after the delete", ep)
	}
	ctx, cancel, err := Browser(context.Background(), 1000, 800)
	if err != nil {
		t.Fatal(err)
	}
	defer cancel()
	ctx, tcancel := context.WithTimeout(ctx, 3*time.Minute)
	defer tcancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/harness.html?sample=leader-death")); err != nil {
		t.Fatal(err)
	}
	if err := Poll(ctx, `__has("frame") && window.__posted > 0`, 40*time.Second); err != nil {
		t.Fatal(err)
	}
	shots := shotsDir(t)
	for _, sh := range []struct {
		name string
		raw  json.RawMessage
	}{{"zkcli-read", raw1}, {"zkcli-election", raw2}, {"zkcli-race", raw3}} {
		if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`__post(%s)`, sh.raw))); err != nil {
			t.Fatal(err)
		}
		settle(t, ctx)
		if bad, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`__has("error")`)); bad {
			e, _ := chromedp.Run(ctx, chromedp.Evaluate[scene.Error](`__last("error")`))
			t.Fatalf("%s: the canvas refused the scene: %s", sh.name, e.Error)
		}
		png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.ID("canvas")))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(shots, sh.name+".png")
		if err := os.WriteFile(p, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot %s", p)
	}
}

func waitEpoch(t *testing.T, conn *gozk.Conn) string {
	t.Helper()
	for i := 0; i < 200; i++ {
		if b, _, err := conn.Get("/controller_epoch"); err == nil && string(b) != "1" {
			return string(b)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the controller epoch did not change")
	return ""
}
