package webapp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gozk "github.com/go-zookeeper/zk"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/scenario"
	"github.com/kafkasim/kafkasim/internal/servetest"
	"github.com/kafkasim/kafkasim/internal/webapp"
	"github.com/kafkasim/kafkasim/internal/zktest"
	"github.com/kafkasim/kafkasim/server"
	"github.com/kafkasim/kafkasim/server/room"
)

// The protocol X-ray (issues 11 and 12): a page in live mode follows
// kafkasim serve's default room while real programs use it: kcat
// (librdkafka, a process of its own) produces and consumes, franz-go
// produces and consumes in a group, a go-zookeeper client reads and
// holds a watch. The page draws their boxes and labelled messages,
// never stops following, and holds the room's exact cluster.

// outsideServe is `kafkasim serve` in the test's process: the app, the
// classroom server, the default room (with serve's prelude, the local
// network of room.LocalNetwork), its Kafka listeners (broker N on
// base+N-1) and its ZooKeeper listener, on loopback.
type outsideServe struct {
	srv   *server.Server
	url   string
	kafka string // broker 1's host:port
	zk    string
}

func startOutsideServe(t *testing.T, script string) *outsideServe {
	t.Helper()
	app, err := webapp.Build(webapp.Options{Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{App: app, Scenario: script, ScenarioName: "x-ray", Prelude: room.LocalNetwork, Speed: 1, Logf: func(string, ...any) {}})
	if err != nil {
		t.Fatal(err)
	}
	o := &outsideServe{srv: srv, url: servetest.HTTP(t, srv)}
	o.kafka, o.zk = servetest.Listeners(t, srv)
	return o
}

// kcatProc is a kcat process left running (a producer fed line by line,
// or a consumer), killed at the end.
type kcatProc struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

func startKcat(t *testing.T, args ...string) *kcatProc {
	t.Helper()
	if _, err := exec.LookPath("kcat"); err != nil {
		t.Skip("kcat is not installed (.ci/run installs it)")
	}
	cmd := exec.Command("kcat", args...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &kcatProc{cmd: cmd, in: in, out: bufio.NewScanner(out)}
	t.Cleanup(p.stop)
	return p
}

func (p *kcatProc) stop() {
	if p.cmd.Process != nil && p.cmd.ProcessState == nil {
		p.in.Close()
		p.cmd.Process.Kill()
		p.cmd.Wait()
	}
}

type pageScene struct {
	Messages []struct {
		From  string `json:"from"`
		To    string `json:"to"`
		Kind  string `json:"kind"`
		Label string `json:"label"`
	} `json:"messages"`
	ZKClients []struct {
		Host    string `json:"host"`
		Session string `json:"session"`
		Last    string `json:"last"`
	} `json:"zkClients"`
}

// labels is what the page's scene labels now, by the software named.
func (b *browser) labels() (map[string]string, pageScene) {
	var sc pageScene
	b.js(&sc, `kafkasim.scene({view: "both", span: 3000})`)
	out := map[string]string{}
	for _, m := range sc.Messages {
		for _, sw := range []string{"librdkafka", "kgo"} {
			if strings.Contains(m.Label, sw) {
				out[sw] = m.Label
			}
		}
		if strings.HasPrefix(m.From, "zkcli") || strings.HasPrefix(m.To, "zkcli") {
			if m.Label != "" {
				out["zkcli"] = m.Label
			}
		}
	}
	return out, sc
}

func TestOutsideClientsInLivePage(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser and real clients")
	}
	o := startOutsideServe(t, "# real clients\ncluster brokers=3 seed=9 version=3.9 metadata=zk\ntopic create orders partitions=3 rf=3\ntopic create clicks partitions=6 rf=3\nwait 3s\n")
	room := o.srv.DefaultRoom()
	code := o.srv.DefaultCode()
	b := newBrowserTimeout(t, o.url, 600*time.Second)
	b.open(o.url + "?room=" + code)
	b.until("the page follows the room", `Live.status.phase === "live"`)
	b.js(nil, `(() => { window.__notes = []; const o = Live.onNotice.bind(Live); Live.onNotice = m => { if (m.type === "live") __notes.push(kafkasim.now() + " " + m.phase + ": " + m.note); o(m); }; return true; })()`)
	notes := func() string {
		var n []string
		b.js(&n, `window.__notes`)
		return strings.Join(n, "\n")
	}
	defer func() {
		if t.Failed() {
			t.Logf("the page's live notes:\n%s", notes())
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Second)
	defer cancel()

	// A ZooKeeper client: a session, reads, a watch; reads go on while
	// the picture is taken.
	zc, _ := zktest.MustSession(t, o.zk, 10*time.Second)
	_, _, watch, err := zc.ChildrenW("/brokers/topics")
	if err != nil {
		t.Fatal(err)
	}
	var stopZK atomic.Bool
	var zkWG sync.WaitGroup
	zkWG.Add(1)
	go func() {
		defer zkWG.Done()
		for !stopZK.Load() {
			zc.Get("/brokers/topics/orders/partitions/0/state")
			zc.Children("/brokers/ids")
			time.Sleep(250 * time.Millisecond)
		}
	}()

	// kcat: a producer fed a line every 200 ms and a consumer.
	kp := startKcat(t, "-b", o.kafka, "-P", "-t", "orders", "-X", "acks=all")
	kc := startKcat(t, "-b", o.kafka, "-C", "-t", "orders", "-o", "beginning", "-q", "-u")
	var stopKcat atomic.Bool
	var kcatWG sync.WaitGroup
	kcatWG.Add(1)
	go func() {
		defer kcatWG.Done()
		for i := 0; !stopKcat.Load(); i++ {
			if _, err := fmt.Fprintf(kp.in, "kcat-%d\n", i); err != nil {
				return
			}
			time.Sleep(200 * time.Millisecond)
		}
	}()
	gotKcat := make(chan string, 1)
	go func() {
		if kc.out.Scan() {
			gotKcat <- kc.out.Text()
		}
	}()

	// franz-go: a group consumer of clicks and a producer.
	fc, err := kgo.NewClient(kgo.SeedBrokers(o.kafka), kgo.ConsumeTopics("clicks"), kgo.ConsumerGroup("dashboard"), kgo.FetchMaxWait(500*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer fc.Close()
	fp, err := kgo.NewClient(kgo.SeedBrokers(o.kafka), kgo.DefaultProduceTopic("clicks"))
	if err != nil {
		t.Fatal(err)
	}
	defer fp.Close()
	var consumed atomic.Int64
	go func() {
		for ctx.Err() == nil {
			fs := fc.PollFetches(ctx)
			consumed.Add(int64(fs.NumRecords()))
			if fc.Context().Err() != nil {
				return
			}
		}
	}()
	for i := 0; i < 20; i++ {
		if err := fp.ProduceSync(ctx, &kgo.Record{Value: []byte(fmt.Sprintf("click-%d", i))}).FirstErr(); err != nil {
			t.Fatalf("franz-go produce %d: %v", i, err)
		}
	}
	select {
	case v := <-gotKcat:
		t.Logf("kcat -C read %q", v)
	case <-time.After(60 * time.Second):
		t.Fatal("kcat -C read nothing")
	}
	for deadline := time.Now().Add(60 * time.Second); consumed.Load() < 20; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the franz-go group consumed %d of 20", consumed.Load())
		}
	}

	// The picture: each client's box and labelled messages.
	var labels map[string]string
	var sc pageScene
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(150 * time.Millisecond) {
		labels, sc = b.labels()
		if labels["librdkafka"] != "" && labels["kgo"] != "" && labels["zkcli"] != "" && len(sc.ZKClients) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page's picture lacks a client: labels %v, zk clients %+v, live %+v", labels, sc.ZKClients, b.live())
		}
	}
	t.Logf("labels in the page's picture: %v; zk client %+v", labels, sc.ZKClients[0])
	b.js(nil, `App.setView("cluster"), true`)
	b.shot("outside-01-xray-cluster")
	b.js(nil, `App.setView("both"), true`)
	b.shot("outside-02-xray-both")

	// The watch fires when the room makes a topic; the page follows.
	if err := room.Exec(ctx, "t", servetest.Steps(t, "topic create payments partitions=1 rf=3"), nil); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-watch:
		if ev.Type != gozk.EventNodeChildrenChanged {
			t.Fatalf("watch event %+v", ev)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the watch did not fire")
	}
	b.until("the page has the new topic", `kafkasim.snapshot().topics.some(t => t.name === "payments")`)

	// A storm: franz-go produces thousands of records a second while the
	// page follows; it stays live, keeps up and keeps drawing.
	var stormN atomic.Int64
	stormCtx, stopStorm := context.WithCancel(ctx)
	go func() {
		tk := time.NewTicker(10 * time.Millisecond)
		defer tk.Stop()
		for i := 0; stormCtx.Err() == nil; i++ {
			<-tk.C
			for j := 0; j < 20; j++ { // 2000 records a second
				fp.Produce(stormCtx, &kgo.Record{Value: []byte(fmt.Sprintf("storm-%d-%d", i, j))}, func(*kgo.Record, error) { stormN.Add(1) })
			}
		}
	}()
	type tracking struct {
		Phase   string `json:"phase"`
		Lag     int64  `json:"lag"`
		Frames  int    `json:"frames"`
		Applied int    `json:"applied"`
	}
	b.js(nil, `(() => { window.__frames = 0; const f = () => { window.__frames++; requestAnimationFrame(f); }; requestAnimationFrame(f); return true; })()`)
	var worstLag int64
	var tr tracking
	start := time.Now()
	for time.Since(start) < 5*time.Second {
		time.Sleep(time.Second)
		b.js(&tr, `({phase: Live.status.phase, lag: Live.status.roomNow - kafkasim.now(), frames: window.__frames, applied: Live.status.applied})`)
		worstLag = max(worstLag, tr.Lag)
		if tr.Phase != "live" {
			t.Fatalf("during the storm the page went %s: %+v", tr.Phase, b.live())
		}
	}
	acked := stormN.Load()
	var roomLag int64
	b.js(&roomLag, `(async () => { const r = await (await fetch("api/rooms/`+code+`")).json(); return r.now - kafkasim.now(); })()`)
	b.shot("outside-03-storm")
	stopStorm()
	secs := time.Since(start).Seconds()
	fps := float64(tr.Frames) / secs
	load, _ := os.ReadFile("/proc/loadavg")
	t.Logf("storm: %d records acked in %.1fs (%.0f/s); the page replayed %d commands, drew %.1f frames/s, was at most %d ms behind the room's last batch and %d ms behind the room at the end (load average %s)",
		acked, secs, float64(acked)/secs, tr.Applied, fps, worstLag, roomLag, strings.TrimSpace(string(load)))
	if acked < 2000 || tr.Frames == 0 {
		t.Fatalf("the storm: %d records, %d frames", acked, tr.Frames)
	}
	// Not stalled: once the storm ends the page catches up with the room.
	caught := time.Now()
	for ok := false; !ok; {
		b.js(&ok, `(async () => { const r = await (await fetch("api/rooms/`+code+`")).json(); return Live.status.phase === "live" && r.now - kafkasim.now() < 1000; })()`)
		if time.Since(caught) > 90*time.Second {
			t.Fatalf("the page has not caught up with the room 90 s after the storm: %+v", b.live())
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("caught up %v after the storm", time.Since(caught).Round(100*time.Millisecond))

	// The clients leave; the room pauses; the page holds the room's
	// cluster at the room's moment, and a replay of the room's history
	// has the page's trace hash.
	stopZK.Store(true)
	zkWG.Wait()
	stopKcat.Store(true)
	kcatWG.Wait()
	kp.stop()
	kc.stop()
	fc.Close()
	fp.Close()
	zc.Close()
	time.Sleep(500 * time.Millisecond)
	if err := room.SetSpeed(ctx, 0); err != nil {
		t.Fatal(err)
	}
	h, err := room.History(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b.until("the page at the room's moment", fmt.Sprintf(`kafkasim.now() === %d && Live.status.applied === %d`, h.At, h.N))
	var page struct {
		Hash, Snap string
	}
	b.js(&page, `({hash: kafkasim.state().hash, snap: JSON.stringify(kafkasim.snapshot())})`)
	roomSnap, _ := json.Marshal(h.Snapshot)
	var a, c any
	json.Unmarshal([]byte(page.Snap), &a)
	json.Unmarshal(roomSnap, &c)
	ja, _ := json.Marshal(a)
	jc, _ := json.Marshal(c)
	if string(ja) != string(jc) {
		t.Fatalf("the page's snapshot differs from the room's:\n%.2000s\n%.2000s", ja, jc)
	}
	if hash, _ := servetest.Replay(t, h.Ksim, h.At); hash != page.Hash {
		t.Fatalf("the page's trace hash %s, a replay of the room's history %s", page.Hash, hash)
	}
	if st := b.live(); st.Phase != "live" || st.Resyncs != 0 {
		t.Fatalf("live status at the end: %+v", st)
	}
	if h.Stopped != "" || strings.Count(h.Ksim, "\noutside ") < 100 {
		t.Fatalf("the room's history stopped (%q) or has %d outside lines", h.Stopped, strings.Count(h.Ksim, "\noutside "))
	}
	t.Logf("at %d ms the page and the room agree: %d commands (%d outside), %d KB of history, hash %s", h.At, h.N, strings.Count(h.Ksim, "\noutside "), len(h.Ksim)>>10, page.Hash)

	// The room's export (GET history.ksim, issue 10) runs as `kafkasim
	// run` runs a file, to the room's state.
	resp, err := http.Get(o.url + "api/rooms/" + code + "/history.ksim")
	if err != nil {
		t.Fatal(err)
	}
	export, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	esc, err := scenario.Parse(string(export))
	if err != nil {
		t.Fatalf("the export does not parse: %v", err)
	}
	res, err := scenario.Run(esc, scenario.RunOptions{NoTrace: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(res.Cluster.Snapshot()); string(got) != string(roomSnap) {
		t.Fatalf("the export runs to another state (%d bytes of export)", len(export))
	}

	// Forking: the copy becomes the page's own session; it rewinds to
	// the middle of the storm (replaying the real clients' requests) and
	// takes a command of its own, which never reaches the room.
	b.js(nil, `document.getElementById("live-fork-btn").click(), true`)
	b.until("local mode", `!Live.status.live`)
	back := h.At - 12000
	b.js(nil, fmt.Sprintf(`kafkasim.seek(%d), true`, back))
	if st := b.state(); st.Now != back {
		t.Fatalf("the fork rewound to %d, want %d", st.Now, back)
	}
	b.js(nil, `App.setView("both"), true`)
	b.shot("outside-04-fork-rewound")
	labels, _ = b.labels()
	if labels["kgo"] == "" {
		t.Errorf("the rewound fork draws no franz-go message: %v", labels)
	}
	b.js(nil, `kafkasim.command("crash broker 2"), kafkasim.advance(500), true`)
	if s := b.str(brokerState(2)); s != "crashed" {
		t.Fatalf("the fork's broker 2: %s", s)
	}
	var rs struct{ Snapshot core.Snapshot }
	if err := getJSON(o.url+"api/rooms/"+code+"/snapshot", &rs); err != nil {
		t.Fatal(err)
	}
	for _, br := range rs.Snapshot.Brokers {
		if br.State != "up" {
			t.Fatalf("the fork's crash reached the room: %+v", rs.Snapshot.Brokers)
		}
	}
}

func getJSON(url string, v any) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(v)
}
