package server

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kafkasim/kafkasim/server/client"
	"github.com/kafkasim/kafkasim/server/protocol"
)

type tab struct {
	t   *testing.T
	ctx context.Context
	out string
}

func (b *tab) run(a chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if _, err := chromedp.Run(b.ctx, a); err != nil {
		b.t.Fatal(err)
	}
}

// wait evaluates expr until it is true (bounded).
func (b *tab) wait(what, expr string) {
	b.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](expr))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			var body string
			body, _ = chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.body.innerText.slice(0, 2000)`))
			b.t.Fatalf("%s: not within 20s (%v)\npage:\n%s", what, err, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (b *tab) js(expr string) {
	b.t.Helper()
	if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[json.RawMessage](expr)); err != nil {
		b.t.Fatalf("%s: %v", expr, err)
	}
}

func (b *tab) shot(name string) {
	b.t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.t.Fatal(err)
	}
	p := filepath.Join(b.out, name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("screenshot %s", p)
}

// TestClassroomPage: in headless Chromium, a teacher's page (with the
// token) and a student's page (with only the code) in one room: the
// teacher opens a prediction from the page, the student clicks an
// answer, the teacher's page shows the distribution, the teacher crashes
// a broker and the student's page shows it, the reveal reaches the
// student with the right answer marked.
func TestClassroomPage(t *testing.T) {
	bin := ""
	for _, c := range []string{os.Getenv("KAFKASIM_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if c == "" {
			continue
		}
		if p, err := exec.LookPath(c); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		t.Skip("no chromium here (.ci/run installs it)")
	}
	s, err := New(Config{Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() { s.Close(); hs.Close() })
	c, _ := client.New(hs.URL)
	room, err := c.CreateRoom(ctx(t), protocol.CreateRoom{Name: "acks=1 lesson", Scenario: lesson1})
	if err != nil {
		t.Fatal(err)
	}
	out := os.Getenv("KAFKASIM_SCREENSHOTS")
	if out == "" {
		out = filepath.Join(os.TempDir(), "kafkasim-browser-test")
	}
	os.MkdirAll(out, 0o755)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelB := chromedp.NewContext(actx)
	bctx, cancelT := context.WithTimeout(bctx, 120*time.Second)
	t.Cleanup(func() { cancelT(); cancelB(); cancelA() })
	teacher := &tab{t: t, ctx: bctx, out: out}
	teacher.run(chromedp.Navigate(hs.URL + "/classroom?room=" + room.Code + "#token=" + room.Token))
	teacher.wait("the teacher drives", `window.classroom && classroom.role === "driver" && classroom.snap !== null`)
	sctx, cancelS := chromedp.NewContext(bctx)
	t.Cleanup(cancelS)
	student := &tab{t: t, ctx: sctx, out: out}
	student.run(chromedp.Navigate(hs.URL + "/?room=" + strings.ToLower(room.Code))) // "/" leads to the classroom without the app
	student.wait("the student watches", `window.classroom && classroom.snap !== null && classroom.role === "watcher"`)
	if ok, _ := chromedp.Run(sctx, chromedp.Evaluate[bool](`getComputedStyle(document.querySelector(".teacher")).display === "none"`)); !ok {
		t.Fatal("the student sees the teacher's controls")
	}
	// The teacher shows a lesson step and opens a prediction from the page.
	teacher.js(`$("l-title").value = "acks=1 and a dying leader"; $("l-text").value = "The leader acked m2 alone. Then it dies."; $("l-send").click(); true`)
	student.wait("the lesson step reaches the student", `$("lesson").innerText.includes("acks=1 and a dying leader")`)
	teacher.js(`$("p-q").value = "Is m2 still there after the new leader takes over?"; $("p-c").value = "yes\n*no, it is lost\nit depends"; $("p-open").click(); true`)
	student.wait("the prediction reaches the student", `document.querySelectorAll("#predict .choice").length === 3`)
	student.run(chromedp.Click(chromedp.CSS(`#predict .choice[data-choice="1"]`)))
	student.wait("the answer is taken", `classroom.mine === 1`)
	teacher.wait("the teacher sees the distribution", `$("tally").innerText.includes("1 of 1 answered")`)
	if txt, _ := chromedp.Run(sctx, chromedp.Evaluate[string](`$("tally").innerText`)); txt != "" {
		t.Fatalf("the student sees the tally: %q", txt)
	}
	teacher.shot("classroom-teacher-tally")
	student.shot("classroom-student-answered")
	// The teacher drives: the student's page follows.
	teacher.js(`$("cmd").value = "crash broker 2"; $("run").click(); true`)
	student.wait("the crash reaches the student", `$("cluster").innerText.includes("broker 2: crashed")`)
	teacher.js(`$("p-reveal").click(); true`)
	student.wait("the reveal reaches the student", `$("predict").innerText.includes("✓") && $("predict").innerText.includes("(right)")`)
	student.shot("classroom-student-reveal")
}
