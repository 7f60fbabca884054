package webapp_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// lessonPage is a headless Chromium on the app, for the lesson pane: the
// browser of browser_test.go (same Chromium flags, same served app) with a
// longer deadline, since a lesson walk replays the cluster at every Back.
type lessonPage struct{ *browser }

func newLessonPage(t *testing.T) *lessonPage {
	t.Helper()
	return &lessonPage{newBrowserTimeout(t, serve(t), 600*time.Second)}
}

func (p *lessonPage) open(url string) {
	p.t.Helper()
	p.run(chromedp.Navigate(url))
	p.js(nil, `new Promise(r => { (function w() { if (window.kafkasim) kafkasim.ready.then(() => r(true)); else setTimeout(w, 50); })(); })`)
}

// click clicks the first element matching a CSS selector, by the page's
// own click() so that it is exactly what a learner's click does, and
// waits for the lesson fetches the click started (bundled lessons are
// JSON the page fetches; a teacher's file is parsed by a wasm loaded on
// first use).
func (p *lessonPage) click(sel string) {
	p.t.Helper()
	var ok bool
	p.js(&ok, `(() => { const e = document.querySelector(`+jsString(sel)+`); if (!e || e.disabled) return false; e.click(); return kafkasim.lessons.idle().then(() => true); })()`)
	if !ok {
		var html string
		p.js(&html, `document.getElementById("lesson").innerText`)
		p.t.Fatalf("no enabled %s in the lesson pane:\n%s", sel, html)
	}
}

// settle waits (bounded) until the pane is not running a step; it presses
// Skip so animated waits finish at once.
func (p *lessonPage) settle() {
	p.t.Helper()
	var phase string
	p.js(&phase, `new Promise((res, rej) => { const t0 = Date.now(); (function w() {
		if (Lessons.phase !== "running") return res(Lessons.phase);
		Lessons.skipping = true;
		if (Date.now() - t0 > 60000) return rej("step still running after 60 s");
		setTimeout(w, 50); })(); })`)
}

func (p *lessonPage) shot(name string) string {
	p.t.Helper()
	p.js(nil, `new Promise(r => setTimeout(() => requestAnimationFrame(() => requestAnimationFrame(() => r(true))), 300))`)
	return p.bt().Shot(strings.TrimSuffix(name, ".png"))
}

func jsString(s string) string { b, _ := json.Marshal(s); return string(b) }

type paneState struct {
	I       int    `json:"i"`
	Phase   string `json:"phase"`
	Lang    string `json:"lang"`
	Title   string `json:"title"`
	Text    string `json:"text"`
	Verdict string `json:"verdict"`
}

func (p *lessonPage) state() paneState {
	p.t.Helper()
	var s paneState
	p.js(&s, `({i: Lessons.i, phase: Lessons.phase, lang: Lessons.lang, title: Lessons.lesson ? Lessons.lesson.title : "",
		text: document.getElementById("lesson").innerText,
		verdict: (document.querySelector(".ls-verdict") || {}).className || ""})`)
	return s
}

// TestLessonPane walks the architecture lesson end to end in the page: Run
// and Next, a prediction answered right, Back (the cluster rewinds: the
// consumer the prediction started is gone), forward again to the act step
// and its Show me, the finish, progress kept in localStorage across a
// reload, and the same step in Chinese; screenshots of a judged prediction
// in English and a step in Chinese.
func TestLessonPane(t *testing.T) {
	p := newLessonPage(t)
	p.open(p.base + "?lesson=architecture&lang=en")
	if s := p.state(); s.Title != "Producers push, consumers pull" || s.I != 0 || s.Phase != "ready" {
		t.Fatalf("the lesson did not open at its first step: %+v", s)
	}
	p.click(".ls-next") // Run step 1: the cluster starts
	p.settle()
	var brokers int
	p.js(&brokers, `kafkasim.snapshot().brokers.length`)
	if brokers != 3 {
		t.Fatalf("step 1 ran, but the cluster has %d brokers", brokers)
	}
	p.click(".ls-next") // Next
	p.click(".ls-next") // Run step 2
	p.settle()
	p.click(".ls-next") // Next: the prediction
	if s := p.state(); s.I != 2 || !strings.Contains(s.Text, "What does it receive") {
		t.Fatalf("not at the prediction: %+v", s)
	}
	p.click(`.ls-choice[data-k="1"] input`) // "nothing: it starts at the end of the log"
	p.click(".ls-next")
	p.settle()
	if s := p.state(); s.Phase != "judged" || !strings.Contains(s.Verdict, "ok") {
		t.Fatalf("the right answer was not judged right: %+v", s)
	}
	var consumers []string
	p.js(&consumers, `kafkasim.snapshot().consumers.map(c => c.name)`)
	if len(consumers) != 1 || consumers[0] != "c1" {
		t.Fatalf("after the prediction ran, consumers %v", consumers)
	}
	p.shot("lesson-en-predict.png")

	// Back twice: to the prediction's start, then to step 2; the cluster is
	// rebuilt by replay, so c1 is gone and the records are still there.
	p.click(".ls-back")
	p.click(".ls-back")
	if s := p.state(); s.I != 1 || s.Phase != "ready" {
		t.Fatalf("Back: %+v", s)
	}
	p.js(&consumers, `kafkasim.snapshot().consumers.map(c => c.name)`)
	if len(consumers) != 0 {
		t.Fatalf("Back did not rewind the cluster: consumers %v", consumers)
	}

	// Forward to the act step, wrong answer this time, then Show me.
	p.click(".ls-next")
	p.settle()
	p.click(".ls-next")
	p.click(`.ls-choice[data-k="0"] input`) // "m1 and m2: the broker pushes"
	p.click(".ls-next")
	p.settle()
	if s := p.state(); !strings.Contains(s.Verdict, "no") || !strings.Contains(s.Text, "What happened:") {
		t.Fatalf("a wrong answer was not judged wrong: %+v", s)
	}
	p.click(".ls-next")
	p.click(".ls-next") // run step 4 (m3)
	p.settle()
	p.click(".ls-next") // the act step
	if s := p.state(); s.I != 4 || s.Phase != "acting" {
		t.Fatalf("not acting: %+v", s)
	}
	p.click(".ls-actbtns button") // Hint
	p.shot("lesson-en-act.png")
	p.click(".ls-showme")
	p.settle()
	if s := p.state(); s.Phase != "done" {
		t.Fatalf("show me did not complete the task: %+v", s)
	}
	var got []string
	p.js(&got, `kafkasim.snapshot().consumers.filter(c => c.name === "c2").map(c => c.group)`)
	if len(got) != 1 || got[0] != "g2" {
		t.Fatalf("show me: c2 %v", got)
	}
	p.click(".ls-next") // Finish: the outro
	if s := p.state(); s.Phase != "outro" || !strings.Contains(s.Text, "What you saw") {
		t.Fatalf("no outro: %+v", s)
	}
	var done bool
	p.js(&done, `JSON.parse(localStorage.getItem("kafkasim.lessons")).progress.architecture.done`)
	if !done {
		t.Fatal("progress not saved")
	}

	// The same lesson in Chinese, at its prediction; the index marks it done.
	p.click(".ls-back") // back to the act step
	p.js(nil, `Lessons.goTo(2)`)
	p.click(`.ls-lang button:nth-child(2)`)
	if s := p.state(); s.Lang != "zh" || s.Title != "生产者推，消费者拉" || s.I != 2 {
		t.Fatalf("language switch: %+v", s)
	}
	p.click(`.ls-choice[data-k="1"] input`)
	p.click(".ls-next")
	p.settle()
	p.shot("lesson-zh-predict.png")
	p.click(".ls-indexbtn")
	var marks int
	p.js(&marks, `document.querySelectorAll(".ls-index li.done").length`)
	if marks != 1 {
		t.Errorf("%d lessons marked done in the index, want 1", marks)
	}
	p.shot("lesson-zh-index.png")

	// A reload resumes the lesson at the step it was at, in Chinese.
	p.js(nil, `Lessons.openBundled("acks-isr-hw", 0)`)
	p.click(".ls-next")
	p.settle()
	p.click(".ls-next")
	p.open(p.base)
	if s := p.state(); s.Title != "acks、ISR 与高水位" || s.I != 1 || s.Lang != "zh" {
		t.Fatalf("after a reload: %+v", s)
	}
	p.js(&brokers, `kafkasim.snapshot().brokers.length`)
	if brokers != 3 {
		t.Fatalf("after a reload the cluster was not rebuilt: %d brokers", brokers)
	}
}

// TestLessonPanelAndHighlights opens a lesson by link at a later step (the
// cluster is rebuilt by replaying the steps before it), runs it, and checks
// that its panel opened (the segment files of t-0@1, with segment 20) and
// that its highlight reached the scene the canvas draws.
func TestLessonPanelAndHighlights(t *testing.T) {
	p := newLessonPage(t)
	p.open(p.base + "?lesson=segments-and-index&lang=zh&step=2")
	if s := p.state(); s.I != 2 || s.Lang != "zh" || s.Phase != "ready" {
		t.Fatalf("the link did not open step 3: %+v", s)
	}
	var segs int
	p.js(&segs, `kafkasim.segments("t-0", 1).log.segments.length`)
	if segs != 2 {
		t.Fatalf("replayed cluster has %d segments, want 2 (0 and 20)", segs)
	}
	p.click(".ls-next")
	p.settle()
	var tab, files string
	p.js(&tab, `UI.currentTab`)
	p.js(&files, `document.getElementById("pane-files").innerText`)
	if tab != "files" || !strings.Contains(files, "00000000000000000020") {
		t.Fatalf("the step's segments panel did not open: tab %q\n%s", tab, files)
	}
	var lit []map[string]any
	p.js(&lit, `kafkasim.scene({highlights: UI.highlights}).highlights || []`)
	if len(lit) != 1 || lit[0]["kind"] != "replica" || lit[0]["partition"] != "t-0" {
		t.Fatalf("highlights in the scene: %v", lit)
	}
	p.shot("lesson-zh-segments.png")

	// A teacher's own file, as opened from disk or a URL: parsed and
	// rendered in the wasm; a malformed one shows its line.
	own := "---\nid: mine\ntitle: My lesson\norder: 1\nsummary: s\n---\n\nHello **class**.\n\n```ksim run\ncluster brokers=2 seed=1 version=3.9 metadata=kraft\n```\n\n## What you saw\n\n- two brokers\n"
	p.js(nil, `Lessons.openText(`+jsString(own)+`, {kind: "url", url: "http://127.0.0.1/mine.md"}, 0)`)
	if s := p.state(); s.Title != "My lesson" || !strings.Contains(s.Text, "Hello class.") {
		t.Fatalf("own lesson: %+v", s)
	}
	p.click(".ls-next")
	p.settle()
	var brokers int
	p.js(&brokers, `kafkasim.snapshot().brokers.length`)
	if brokers != 2 {
		t.Fatalf("own lesson's cluster: %d brokers", brokers)
	}
	p.js(nil, `Lessons.openText("---\nid: bad\n", {kind: "file", text: ""}, 0)`)
	if s := p.state(); !strings.Contains(s.Text, "line 1") {
		t.Fatalf("a malformed lesson shows no error line: %+v", s)
	}

	// "highlight: hw orders-0, broker 1": the HW marker itself is lit on
	// the canvas, not only its partition.
	p.js(nil, `Lessons.openBundled("acks-isr-hw", 0)`)
	p.click(".ls-next")
	p.settle()
	p.js(&lit, `kafkasim.scene({highlights: UI.highlights}).highlights || []`)
	kinds := map[string]bool{}
	for _, r := range lit {
		kinds[fmt.Sprint(r["kind"])] = true
	}
	if !kinds["hw"] || !kinds["broker"] {
		t.Fatalf("highlights of the HW step: %v", lit)
	}
	var at *struct{ X, Y, W, H float64 }
	p.js(&at, `App.where({kind: "hw", partition: "orders-0"})`)
	if at == nil || at.W <= 0 || at.H <= 0 {
		t.Fatalf("the canvas does not draw the HW marker of orders-0: %+v", at)
	}
	p.shot("lesson-en-hw-highlight.png")
}
