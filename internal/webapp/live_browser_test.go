package webapp_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/internal/servetest"
	"github.com/kafkasim/kafkasim/internal/webapp"
	"github.com/kafkasim/kafkasim/server"
)

// The classroom in the app page, against the server `kafkasim serve`
// runs (server.New with the app mounted at "/", as cmd/kafkasim does): a
// teacher's page and a student's page in one browser, each following the
// room in live mode. They reuse browser_test.go's browser (Chromium
// lookup, flags, open, js, shot).

// serveClassroom serves the app through the classroom server on a free
// loopback port.
func serveClassroom(t *testing.T) string {
	t.Helper()
	app, err := webapp.Build(webapp.Options{Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{App: app, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	return servetest.HTTP(t, srv)
}

// tab opens another page in b's browser.
func (b *browser) newTab() *browser {
	return &browser{tab: b.tab.Tab(), t: b.t, base: b.base, out: b.out}
}

// front makes b's tab the active one (a background tab draws no frames),
// for a screenshot of what its user sees.
func (b *browser) front() {
	b.t.Helper()
	b.bt().Front()
	time.Sleep(1500 * time.Millisecond) // a few frames of software GL
}

// until evaluates expr until it is true (bounded), failing with what the
// page says.
func (b *browser) until(what, expr string) {
	b.t.Helper()
	b.bt().Until(what, expr, 40*time.Second)
}

type liveStatus struct {
	Live    bool   `json:"live"`
	Phase   string `json:"phase"`
	Role    string `json:"role"`
	Room    string `json:"room"`
	Now     int64  `json:"now"`
	Applied int    `json:"applied"`
	Resyncs int    `json:"resyncs"`
}

func (b *browser) live() liveStatus {
	var s liveStatus
	b.js(&s, `kafkasim._call("liveStatus")`)
	return s
}

// brokerState is broker id's state in the page's snapshot.
func brokerState(id int) string {
	return fmt.Sprintf(`(kafkasim.snapshot().brokers.find(b => b.id === %d) || {}).state`, id)
}

func TestLiveClassroom(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	base := serveClassroom(t)
	teacher := newBrowserTimeout(t, base, 600*time.Second)
	teacher.open(base)
	teacher.js(nil, `kafkasim.load("# a class\ncluster brokers=3 seed=4 version=3.9 metadata=kraft\ntopic create orders partitions=1 rf=3 assign=1,2,3\nproducer p1 acks=all\nconsumer c1 group=g topics=orders\nproduce p1 orders value=m1\nwait 1s\n", "a class"), true`)
	teacher.js(nil, `Live.create().then(() => true)`)
	teacher.until("the teacher's page follows its room as driver", `Live.status.phase === "live" && Live.status.role === "driver"`)
	code := teacher.live().Room
	if len(code) < 4 {
		t.Fatalf("room code %q", code)
	}
	teacher.until("the QR code shows", `(() => { const i = document.querySelector(".qr-box img"); return !!i && i.complete && i.naturalWidth > 100; })()`)
	teacher.front()
	teacher.shot("live-01-teacher-qr")
	teacher.js(nil, `document.getElementById("dialog").hidden = true`)

	student := teacher.newTab()
	student.open(base + "?room=" + code)
	student.until("the student's page follows the room", `Live.status.phase === "live" && Live.status.room === "`+code+`"`)
	if st := student.live(); st.Role != "watcher" {
		t.Fatalf("student %+v", st)
	}
	var refused string
	student.js(&refused, `(() => { try { kafkasim.command("crash broker 1"); return "accepted"; } catch (e) { return e.message; } })()`)
	if !strings.Contains(refused, "watching room "+code) || !strings.Contains(refused, "Fork your own copy") {
		t.Fatalf("a watcher's command: %q", refused)
	}
	student.js(&refused, `(() => { try { kafkasim.pause(); return "accepted"; } catch (e) { return e.message; } })()`)
	if !strings.Contains(refused, "watching room") {
		t.Fatalf("a watcher's pause: %q", refused)
	}
	var bar string
	student.js(&bar, `document.getElementById("live-bar").innerText`)
	if !strings.Contains(bar, "You are watching") || !strings.Contains(bar, "Fork my own copy") {
		t.Fatalf("the student's bar: %q", bar)
	}
	student.checkLocked("in the room")
	teacher.checkFree("the teacher's page")
	student.front()
	student.js(nil, `App.onCanvas({type: "click", kind: "broker", broker: 1, x: 420, y: 260}), true`)
	student.shot("live-00-student-locked")
	student.js(nil, `UI.closeMenus(), UI.select(null), true`)

	t.Run("the student follows the teacher", func(t *testing.T) {
		teacher, student := teacher.in(t), student.in(t)
		teacher.js(nil, `UI.run("crash broker 2"), true`)
		student.until("broker 2 crashed on the student's page", brokerState(2)+` === "crashed"`)
		teacher.js(nil, `UI.run("produce p1 orders value=m2"), true`)
		student.until("m2 on the student's page", `kafkasim.events({text: "m2"}).length > 0`)
		teacher.js(nil, `kafkasim.pause(), true`)
		student.until("the room paused", `Live.status.speed === 0`)
		teacher.until("the room paused", `Live.status.speed === 0`)
		// Both pages hold the room's cluster at the same moment: the same
		// trace hash and snapshot.
		var a, b struct {
			Now        int64
			Hash, Snap string
		}
		for i := 0; i < 50; i++ {
			teacher.js(&a, `({now: kafkasim.now(), hash: kafkasim.state().hash, snap: JSON.stringify(kafkasim.snapshot())})`)
			student.js(&b, `({now: kafkasim.now(), hash: kafkasim.state().hash, snap: JSON.stringify(kafkasim.snapshot())})`)
			if a.Now == b.Now && a.Now == teacher.roomNow(code) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if a.Now != b.Now || a.Hash != b.Hash || a.Snap != b.Snap {
			t.Fatalf("teacher at %d hash %s, student at %d hash %s (snapshots equal: %v)", a.Now, a.Hash, b.Now, b.Hash, a.Snap == b.Snap)
		}
		if st := student.live(); st.Resyncs != 0 {
			t.Errorf("the student's page resynced %d times", st.Resyncs)
		}
		teacher.js(nil, `kafkasim.play(), true`)
		student.shot("live-02-student-following")
	})

	t.Run("a lesson and a prediction", func(t *testing.T) {
		teacher, student := teacher.in(t), student.in(t)
		teacher.js(nil, `Live.startLesson("architecture").then(() => true)`)
		student.until("the lesson's first step", `!!Live.status.lesson && Live.status.lesson.step === 0`)
		teacher.js(nil, `Live.runStep(), true`) // its cluster line: loaded in the room
		teacher.until("step 1 ran", `Live.lesson && Live.lesson.ran`)
		teacher.js(nil, `Live.showStep(2), true`) // the predict step, steps 0-1 replayed at once
		student.until("the question", `!!Live.status.prediction && document.querySelectorAll(".cp-choice button").length === 3`)
		student.until("the room's cluster is the lesson's", `kafkasim.events({text: "m2"}).length > 0 && `+brokerState(1)+` === "up"`)
		student.js(nil, `document.querySelectorAll(".cp-choice button")[1].click(), true`)
		teacher.until("the teacher sees the answer", `!!Live.status.tally && Live.status.tally.answered === 1 && Live.status.tally.counts[1] === 1`)
		teacher.front()
		teacher.shot("live-03-teacher-tally")
		student.front()
		student.shot("live-04-student-answered")
		teacher.js(nil, `Live.runStep(), true`)
		student.until("the reveal", `!!Live.status.reveal && Live.status.reveal.correct === 1`)
		student.until("the verdict", `document.querySelector("#class-pane .ls-verdict.ok") !== null`)
		student.shot("live-05-student-reveal")
	})

	t.Run("the teacher's own lesson file", func(t *testing.T) {
		teachOwnLesson(t, teacher.in(t), student.in(t))
	})

	t.Run("a fork diverges without touching the room, then back to live", func(t *testing.T) {
		teacher, student := teacher.in(t), student.in(t)
		student.js(nil, `document.getElementById("live-fork-btn").click(), true`)
		student.until("local mode", `!Live.status.live && document.getElementById("live-fork") !== null`)
		student.checkFree("the student's fork")
		student.js(nil, `kafkasim.command("crash broker 3"), kafkasim.advance(3000), true`)
		if s := student.str(brokerState(3)); s != "crashed" {
			t.Fatalf("the fork's broker 3: %s", s)
		}
		student.js(nil, `kafkasim.seek(Math.max(0, kafkasim.now() - 2000)), true`) // a fork rewinds
		student.shot("live-06-student-fork")
		var room struct {
			Snapshot struct {
				Brokers []struct {
					ID    int    `json:"id"`
					State string `json:"state"`
				} `json:"brokers"`
			} `json:"snapshot"`
		}
		teacher.js(&room, `fetch("api/rooms/`+code+`/snapshot").then(r => r.json())`)
		for _, b := range room.Snapshot.Brokers {
			if b.ID == 3 && b.State != "up" {
				t.Fatalf("the fork's crash reached the room: %+v", room.Snapshot.Brokers)
			}
		}
		if s := teacher.str(brokerState(3)); s != "up" {
			t.Fatalf("the teacher's page shows broker 3 %s", s)
		}
		student.js(nil, `document.querySelector("#live-fork button").click(), true`)
		student.until("live again", `Live.status.phase === "live" && `+brokerState(3)+` === "up"`)
		student.checkLocked("back in the live room")
	})
}

// openLoaded navigates to url and waits (bounded) until the page's engine
// has a session loaded (what the URL opens, or the tab's kept session).
func (b *browser) openLoaded(url string) {
	b.t.Helper()
	b.bt().Navigate(url)
	b.until("the page loads "+url, `!!window.kafkasim && !!kafkasim._engine() && (() => { try { return kafkasim.state().loaded; } catch (e) { return false; } })()`)
}

// roomNow is the room's virtual time from its HTTP info.
func (b *browser) roomNow(code string) int64 {
	var info struct{ Now int64 }
	b.js(&info, `fetch("api/rooms/`+code+`").then(r => r.json())`)
	return info.Now
}

func (b *browser) str(expr string) string {
	var s string
	b.js(&s, expr)
	return s
}

type shareView struct {
	Now  int64  `json:"now"`
	Hash string `json:"hash"`
	Snap string `json:"snap"`
	URL  string `json:"url"`
}

const viewJS = `({now: kafkasim.now(), hash: kafkasim.state().hash, snap: JSON.stringify(kafkasim.snapshot()), url: location.href})`

// TestShareUnderServe: a share link made under kafkasim serve opens, in a
// fresh page, the same session at the same moment (trace hash and
// snapshot); a session too long for a link is stored by the server and
// its short /?share=ID link does the same.
func TestShareUnderServe(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	base := serveClassroom(t)
	b := newBrowserTimeout(t, base, 600*time.Second)
	b.openLoaded(base + "?canvas=0")
	check := func(what, link string, want shareView) {
		t.Helper()
		b.openLoaded(link)
		var got shareView
		b.js(&got, viewJS)
		if got.Now != want.Now || got.Hash != want.Hash || got.Snap != want.Snap {
			t.Fatalf("%s %s: at %d hash %s, want at %d hash %s (snapshots equal: %v)", what, link, got.Now, got.Hash, want.Now, want.Hash, got.Snap == want.Snap)
		}
	}

	short := "# share me\ncluster brokers=3 seed=9 version=2.8 metadata=zk\ntopic create orders partitions=2 rf=3\nproducer p1 acks=1 idempotence=false\nproduce p1 orders value=a\nwait 2s\nnet split 1 | 2,3\nproduce p1 orders value=b\nwait 20s\nnet heal\nwait 5s\n"
	var want shareView
	b.js(nil, fmt.Sprintf(`kafkasim.load(%q), kafkasim.runUntilDone(), kafkasim.advance(1234), kafkasim.command("crash broker 3"), kafkasim.advance(777), true`, short))
	b.js(&want, viewJS)
	var link string
	b.js(&link, `kafkasim.share()`)
	if !strings.Contains(link, "#ksim=") || len(link) > 8192+len(base)+16 {
		t.Fatalf("share link %q", link)
	}
	check("the fragment link", link, want)
	// (This half hung when the page being left changed its address in
	// beforeunload: see browsertest.Navigate.)

	// 1500 records with values deflate cannot shrink: past the 8 KB link.
	var sb strings.Builder
	sb.WriteString("# a long session\ncluster brokers=3 seed=3 version=3.9 metadata=kraft\ntopic create t partitions=3 rf=2\nproducer p1 acks=all\n")
	x := uint32(2463534242)
	for i := 0; i < 1500; i++ {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		fmt.Fprintf(&sb, "produce p1 t value=v%08x%d\nwait %dms\n", x, i, 1+x%40)
	}
	b.openLoaded(base + "?canvas=0")
	b.js(nil, fmt.Sprintf(`kafkasim.load(%q), true`, sb.String()))
	b.js(nil, `kafkasim.runUntilDone(), true`)
	b.js(nil, `kafkasim.advance(2500), true`)
	b.js(&want, viewJS)
	var tooLong bool
	b.js(&tooLong, `kafkasim.share() === null`)
	if !tooLong {
		t.Fatal("a 1500-record session fits a link: the test needs a longer one")
	}
	// Share: stored on the server, the short link in the address bar. (A
	// headless tab's clipboard may never answer: the test skips it.)
	b.js(nil, `Object.defineProperty(navigator, "clipboard", {value: {writeText: () => Promise.reject(new Error("no clipboard in the test"))}}), App.share().then(() => true)`)
	b.js(&link, `location.href`)
	if !strings.Contains(link, "?share=") || len(link) > 200 {
		t.Fatalf("the long session's link %q", link)
	}
	// It stays in the address bar (the page says so) when the session is
	// kept, as it is after every change and every 3 s of play.
	var kept string
	b.js(&kept, `App.persistNow(), location.href`)
	if kept != link {
		t.Fatalf("after persisting, the address bar has %q, not the share link %q", kept, link)
	}
	check("the stored link", link, want)
}
