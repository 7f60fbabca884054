package webapp_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafkasim/kafkasim/internal/servetest"
	"github.com/kafkasim/kafkasim/server/storage"
)

// TestRestoredRoomInLivePage: kafkasim restarted from a --data-dir that
// kcat filled, a page joins its room and follows it (the restore is in
// the room's history), showing the records kcat wrote before the
// restart; then, on a CPU slowed 6 times, the page follows a franz-go
// storm: it is never dropped, its live bar counts the clients' requests
// per API, it catches up when it falls behind, and it ends with the
// room's exact cluster, kcat's and franz-go's records counted.
func TestRestoredRoomInLivePage(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser and real clients")
	}
	dir := t.TempDir()
	script := "# restored\ncluster brokers=3 seed=4 version=3.9 metadata=kraft\ntopic create orders partitions=2 rf=3\nwait 2s\n"

	// The first run: kcat produces into a room whose logs go to dir.
	o1 := startOutsideServe(t, script)
	st1, err := storage.Open(dir, storage.Options{Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st1.Cluster(); err != nil {
		t.Fatal(err)
	}
	if err := st1.Follow(context.Background(), storage.FromRoom(o1.srv.DefaultRoom())); err != nil {
		t.Fatal(err)
	}
	kp := startKcat(t, "-b", o1.kafka, "-P", "-t", "orders", "-X", "acks=all")
	for i := 0; i < 12; i++ {
		fmt.Fprintf(kp.in, "from-disk-%d\n", i)
	}
	kp.in.Close()
	kp.cmd.Wait()
	time.Sleep(500 * time.Millisecond) // followers fetch the last batch
	st1.Sync()
	if err := st1.Close(); err != nil {
		t.Fatal(err)
	}

	// The restart from dir, and a page following it.
	st2, err := storage.Open(dir, storage.Options{Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	line, err := st2.Cluster()
	if err != nil || line == "" {
		t.Fatalf("the data dir's cluster: %q, %v", line, err)
	}
	o := startOutsideServe(t, "# restarted from its data dir\n"+line+"\n")
	room := o.srv.DefaultRoom()
	if err := st2.Restore(context.Background(), storage.FromRoom(room)); err != nil {
		t.Fatal(err)
	}
	if err := st2.Follow(context.Background(), storage.FromRoom(room)); err != nil {
		t.Fatal(err)
	}
	code := o.srv.DefaultCode()
	b := newBrowserTimeout(t, o.url, 600*time.Second)
	b.open(o.url + "?room=" + code)
	b.until("the page follows the restored room", `Live.status.phase === "live"`)
	b.until("the restored records in the page's copy", `kafkasim.snapshot().topics.find(t => t.name === "orders").partitions.reduce((n, p) => n + p.replicas.find(r => r.broker === p.leader).leo, 0) === 12`)
	if st := b.live(); st.Phase != "live" {
		t.Fatalf("the page: %+v", st)
	}
	b.js(nil, `App.setView("cluster"), true`)
	b.shot("outside-05-restored-room")

	// A storm on a slow CPU.
	b.run(func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, tg, emulation.SetCPUThrottlingRate, emulation.SetCPUThrottlingRateParams{Rate: 6})
		return chromedp.Void{}, err
	})
	fp, err := kgo.NewClient(kgo.SeedBrokers(o.kafka), kgo.DefaultProduceTopic("orders"), kgo.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer fp.Close()
	var acked atomic.Int64
	ctx, stopStorm := context.WithCancel(context.Background())
	go func() {
		tk := time.NewTicker(10 * time.Millisecond)
		defer tk.Stop()
		for i := 0; ctx.Err() == nil; i++ {
			<-tk.C
			for j := 0; j < 20; j++ {
				fp.Produce(ctx, &kgo.Record{Value: []byte(fmt.Sprintf("storm-%d-%d", i, j))}, func(_ *kgo.Record, err error) {
					if err == nil {
						acked.Add(1)
					}
				})
			}
		}
	}()
	type liveX struct {
		Phase    string `json:"phase"`
		Behind   int64  `json:"behind"`
		Queued   int    `json:"queued"`
		Skipped  int    `json:"skipped"`
		CatchUps int    `json:"catchUps"`
		Note     string `json:"note"`
		Traffic  *struct {
			Requests int64              `json:"requests"`
			Rate     float64            `json:"rate"`
			PerAPI   map[string]float64 `json:"perAPI"`
		} `json:"traffic"`
	}
	var lx liveX
	var bar string
	var worst int64
	start := time.Now()
	for time.Since(start) < 12*time.Second {
		time.Sleep(2 * time.Second)
		b.js(&lx, `kafkasim._call("liveStatus")`)
		worst = max(worst, lx.Behind)
		if lx.Phase == "closed" || lx.Phase == "diverged" || lx.Phase == "unreplayable" {
			t.Fatalf("during the storm the page went %s: %+v", lx.Phase, lx)
		}
		bar = b.str(`document.getElementById("live-bar") ? document.getElementById("live-bar").innerText : (document.getElementById("live-lag").textContent + " " + document.getElementById("live-traffic").textContent)`)
		t.Logf("%4.1fs: %s %+v; bar: %q", time.Since(start).Seconds(), lx.Phase, lx, bar)
	}
	b.shot("outside-06-storm-on-slow-cpu")
	stopStorm()
	if lx.Traffic == nil || lx.Traffic.Requests == 0 || lx.Traffic.PerAPI["Produce"] <= 0 || !strings.Contains(bar, "real clients:") || !strings.Contains(bar, "Produce") {
		t.Fatalf("the live bar does not count the storm: %+v, %q", lx.Traffic, bar)
	}
	b.run(func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, tg, emulation.SetCPUThrottlingRate, emulation.SetCPUThrottlingRateParams{Rate: 1})
		return chromedp.Void{}, err
	})
	fp.Close()
	time.Sleep(500 * time.Millisecond)
	if err := room.SetSpeed(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	h, err := room.History(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if h.Stopped != "" || !strings.Contains(h.Ksim, "\nrestore 1/") {
		t.Fatalf("the room's history stopped (%q) or has no restore", h.Stopped)
	}
	b.bt().Until("the page at the room's moment", fmt.Sprintf(`kafkasim.now() === %d && Live.status.applied === %d && Live.status.phase === "live"`, h.At, h.N), 180*time.Second)
	var page struct{ Hash string }
	b.js(&page, `({hash: kafkasim.state().hash})`)
	if hash, _ := servetest.Replay(t, h.Ksim, h.At); hash != page.Hash {
		t.Fatalf("the page's trace hash %s, a replay of the room's history %s", page.Hash, hash)
	}
	var counters struct {
		Produced, Acked, Consumed int64
	}
	b.js(&counters, `kafkasim.scene({view: "cluster"}).counters`)
	if counters.Produced < acked.Load() || counters.Acked < acked.Load() {
		t.Fatalf("the picture's counters %+v: franz-go had %d records acked since the restart", counters, acked.Load())
	}
	b.js(nil, `App.setView("both"), true`)
	b.shot("outside-07-caught-up")
	load, _ := os.ReadFile("/proc/loadavg")
	t.Logf("storm on a 6x slower CPU: %d records acked, the page at most %d ms behind, %d batches skipped, %d catch-ups; then at %d ms it holds the room's cluster (hash %s); counters %+v; load average %s",
		acked.Load(), worst, lx.Skipped, lx.CatchUps, h.At, page.Hash, counters, strings.TrimSpace(string(load)))
}
