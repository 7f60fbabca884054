package server

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kafkasim/kafkasim/internal/browsertest"
	"github.com/kafkasim/kafkasim/server/client"
	"github.com/kafkasim/kafkasim/server/protocol"
)

// tab is a headless Chromium tab (internal/browsertest) on the
// classroom page.
type tab struct{ *browsertest.Browser }

// wait evaluates expr until it is true (bounded).
func (b tab) wait(what, expr string) { b.T.Helper(); b.Until(what, expr, 20*time.Second) }

func (b tab) js(expr string) { b.T.Helper(); b.JS(nil, expr) }

func (b tab) shot(name string) { b.T.Helper(); b.Shot(name) }

func (b tab) run(a chromedp.Action[chromedp.Void]) { b.T.Helper(); b.Run(a) }

// str evaluates expr to a string.
func (b tab) str(expr string) string {
	b.T.Helper()
	var s string
	b.JS(&s, expr)
	return s
}

// TestClassroomPage: in headless Chromium, a teacher's page (with the
// token) and a student's page (with only the code) in one room: the
// teacher opens a prediction from the page, the student clicks an
// answer, the teacher's page shows the distribution, the teacher crashes
// a broker and the student's page shows it, the reveal reaches the
// student with the right answer marked.
func TestClassroomPage(t *testing.T) {
	browsertest.Chromium(t) // skips without one, before a server starts
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
	teacher := tab{browsertest.New(t, browsertest.Options{Session: 120 * time.Second, Call: 30 * time.Second, Width: 1280, Height: 900,
		Status: `(window.classroom ? {role: classroom.role, snap: classroom.snap !== null} : "no classroom")`})}
	teacher.run(chromedp.Navigate(hs.URL + "/classroom?room=" + room.Code + "#token=" + room.Token))
	teacher.wait("the teacher drives", `window.classroom && classroom.role === "driver" && classroom.snap !== null`)
	student := tab{teacher.Tab()}
	student.run(chromedp.Navigate(hs.URL + "/?room=" + strings.ToLower(room.Code))) // "/" leads to the classroom without the app
	student.wait("the student watches", `window.classroom && classroom.snap !== null && classroom.role === "watcher"`)
	if student.str(`getComputedStyle(document.querySelector(".teacher")).display`) != "none" {
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
	if txt := student.str(`$("tally").innerText`); txt != "" {
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
