//go:build !js

package app

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	gozk "github.com/go-zookeeper/zk"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafkasim/kafkasim/internal/servetest"
	"github.com/kafkasim/kafkasim/internal/zktest"
	"github.com/kafkasim/kafkasim/server"
	"github.com/kafkasim/kafkasim/server/client"
	"github.com/kafkasim/kafkasim/wasm/scene"
)

const outsideScenario = `cluster brokers=3 seed=9 version=3.9 metadata=zk
topic create orders partitions=3 rf=3
wait 3s
`

// outsideServe is kafkasim serve in one process: the classroom server,
// its default room's Kafka listeners (broker N on base+N-1) and its
// ZooKeeper listener, all on loopback.
type outsideServe struct {
	srv      *server.Server
	base     string // http
	kafka    string // broker 1's host:port
	zk       string
	c        *client.Client
	stopKafk func()
}

func startOutsideServe(t testing.TB, script string) *outsideServe {
	t.Helper()
	s, err := server.New(server.Config{Scenario: script, ScenarioName: "outside", Speed: 1, Logf: func(string, ...any) {}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() { s.Close(); hs.Close() })
	o := &outsideServe{srv: s, base: hs.URL}
	if o.c, err = client.New(hs.URL); err != nil {
		t.Fatal(err)
	}
	o.kafka, o.zk = servetest.Listeners(t, s)
	return o
}

// pump keeps f's Live fed for d of wall time (the room keeps streaming).
func (f *follower) pump(d time.Duration) {
	deadline := time.After(d)
	for {
		select {
		case b, ok := <-f.msgs:
			if !ok {
				f.t.Fatal("the socket closed")
			}
			f.l.Receive(b)
		case <-deadline:
			return
		}
	}
}

// background feeds f from a goroutine-free loop while fn runs on
// another goroutine: Live is pumped here, fn does the clients' work.
func (f *follower) while(what string, fn func() error) {
	f.t.Helper()
	start := time.Now()
	defer func() { f.t.Logf("%s: %v", what, time.Since(start).Round(time.Millisecond)) }()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case b, ok := <-f.msgs:
			if !ok {
				f.t.Fatalf("%s: the socket closed", what)
			}
			f.l.Receive(b)
		case err := <-done:
			if err != nil {
				f.t.Fatalf("%s: %v", what, err)
			}
			return
		case <-deadline:
			f.t.Fatalf("%s: not within 60s (status %+v)", what, f.l.Status())
		}
	}
}

// TestLiveFollowsOutsideClients: a page in live mode follows a room that
// a real franz-go client produces to and consumes from (in a group) and
// a real ZooKeeper client reads and watches: the copy never stops, its
// state and trace hash are the room's, and its picture has the clients'
// boxes and their labelled messages. The room's exported history replays
// to the same state.
func TestLiveFollowsOutsideClients(t *testing.T) {
	if testing.Short() {
		t.Skip("real clients against a served room")
	}
	o := startOutsideServe(t, outsideScenario)
	ctx := testCtx(t)
	f := follow(t, o.c, o.base, o.srv.DefaultCode(), "")
	f.until("live", func(s LiveStatus) bool { return s.Phase == PhaseLive })

	var zc *gozk.Conn
	defer func() {
		if zc != nil {
			zc.Close()
		}
	}()
	var watch <-chan gozk.Event
	f.while("ZooKeeper reads and a watch", func() error {
		var err error
		if zc, _, err = zktest.Session(o.zk, 10*time.Second); err != nil {
			return err
		}
		if _, _, err := zc.Children("/brokers/topics"); err != nil {
			return err
		}
		if _, _, err := zc.Get("/brokers/topics/orders/partitions/0/state"); err != nil {
			return err
		}
		_, _, w, err := zc.ChildrenW("/brokers/ids")
		watch = w
		return err
	})

	cl, err := kgo.NewClient(kgo.SeedBrokers(o.kafka), kgo.ConsumeTopics("orders"), kgo.ConsumerGroup("g1"),
		kgo.FetchMaxWait(500*time.Millisecond), kgo.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	const n = 30
	zkStop := make(chan struct{})
	go func() {
		for {
			select {
			case <-zkStop:
				return
			case <-time.After(100 * time.Millisecond):
				zc.Get("/brokers/topics/orders/partitions/0/state")
				zc.Children("/brokers/ids")
			}
		}
	}()
	f.while("franz-go produces and its group consumes", func() error {
		for i := 0; i < n; i++ {
			r := &kgo.Record{Topic: "orders", Key: []byte(fmt.Sprint("k", i%5)), Value: []byte(fmt.Sprintf("m%d # \"quoted\"", i))}
			if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
				return fmt.Errorf("produce %d: %v", i, err)
			}
		}
		got := 0
		for got < n {
			fs := cl.PollFetches(ctx)
			if ctx.Err() != nil {
				return fmt.Errorf("consumed %d of %d: %v", got, n, fs.Errors())
			}
			got += fs.NumRecords()
		}
		return cl.CommitUncommittedOffsets(ctx)
	})
	close(zkStop)
	if st := f.l.Status(); st.Phase != PhaseLive || st.Resyncs != 0 {
		for _, n := range f.l.Take() {
			if strings.Contains(string(n), `"type":"live"`) {
				t.Log(string(n))
			}
		}
		t.Fatalf("after the clients' work: %+v", st)
	}

	// The picture now: franz-go's box and labelled messages, the
	// ZooKeeper client's box with its session and its labelled reads.
	sc, err := f.e.Scene(SceneOptions{View: scene.ViewBoth, Span: 5000}) // a few of the client's heartbeats and fetches: at 1x a message is in flight about 2 ms
	if err != nil {
		t.Fatal(err)
	}
	var kgoLabels, zkLabels []string
	for _, m := range sc.Messages {
		switch {
		case strings.Contains(m.Label, "kgo/") || strings.Contains(m.Label, "franz-go"):
			kgoLabels = append(kgoLabels, m.Label)
		case scene.IsZKClientHost(m.From) || scene.IsZKClientHost(m.To):
			zkLabels = append(zkLabels, m.Label)
		}
	}
	if len(kgoLabels) == 0 {
		t.Errorf("no franz-go message labelled in the copy's picture (%d messages)", len(sc.Messages))
	}
	if len(sc.ZKClients) != 1 || sc.ZKClients[0].Session == "" {
		t.Errorf("ZooKeeper clients in the picture: %+v (zk labels %v)", sc.ZKClients, zkLabels)
	}

	// A topic made in the room fires the watch; the copy follows it.
	f.while("a watch on /brokers/topics", func() error {
		_, _, w, err := zc.ChildrenW("/brokers/topics")
		watch = w
		return err
	})
	if err := o.srv.DefaultRoom().Exec(ctx, "t", servetest.Steps(t, "topic create payments partitions=1 rf=3"), nil); err != nil {
		t.Fatal(err)
	}
	f.while("the watch fires", func() error {
		select {
		case ev := <-watch:
			if ev.Type != gozk.EventNodeChildrenChanged {
				return fmt.Errorf("watch event %+v", ev)
			}
			return nil
		case <-time.After(20 * time.Second):
			return fmt.Errorf("no watch event")
		}
	})
	// The clients leave (franz-go leaves its group), so that nothing
	// comes in at the paused moment after the history below.
	f.while("the clients close", func() error {
		cl.Close()
		zc.Close()
		return nil
	})
	f.pump(300 * time.Millisecond)

	// Pause the room: the copy reaches the room's moment with the room's
	// state, and a replay of the room's history has the copy's hash.
	if err := o.srv.DefaultRoom().SetSpeed(ctx, 0); err != nil {
		t.Fatal(err)
	}
	h, err := o.srv.DefaultRoom().History(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f.until("the copy at the room's moment", func(s LiveStatus) bool { return s.Now == h.At && s.Applied >= h.N })
	if st := f.l.Status(); st.Applied != h.N {
		t.Fatalf("the copy replayed %d commands, the room's history has %d", st.Applied, h.N)
	}
	if d := sameSnapshot(f.e.Snapshot(), h.Snapshot); d != "" {
		t.Fatalf("the copy differs from the room: %s", d)
	}
	if h.Stopped != "" || !strings.Contains(h.Ksim, "\noutside {\"type\":\"request\"") {
		t.Fatalf("the history stopped (%q) or has no outside requests", h.Stopped)
	}
	hash, snap := servetest.Replay(t, h.Ksim, h.At)
	if hash != f.e.sess.Driver().TraceHash() {
		t.Errorf("a replay of the room's history has hash %s, the copy %s", hash, f.e.sess.Driver().TraceHash())
	}
	if d := sameSnapshot(snap, h.Snapshot); d != "" {
		t.Errorf("a replay of the room's history differs from the room: %s", d)
	}
	if st := f.l.Status(); st.Phase != PhaseLive || st.Resyncs != 0 || st.Applied < 20 {
		for _, n := range f.l.Take() {
			if strings.Contains(string(n), `"type":"live"`) {
				t.Log(string(n))
			}
		}
		t.Fatalf("at the end: %+v", st)
	}
	b, _ := json.Marshal(f.l.Status())
	t.Logf("copy: %s; %d franz-go labels (e.g. %q), zk labels %v", b, len(kgoLabels), first(kgoLabels), zkLabels)
}

func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}
