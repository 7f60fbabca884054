package webapp_test

import (
	"strings"
	"testing"
)

// ownLesson is a teacher's own lesson file (not bundled): two steps, the
// second a prediction with an explanation.
const ownLesson = "---\nid: my-acks\ntitle: \"My acks lesson\"\norder: 1\nsummary: Mine.\n---\n\n# My acks lesson\n\n" +
	"A **three-broker** cluster of my own.\n\n```ksim run\ncluster brokers=3 seed=2 version=3.9 metadata=kraft\ntopic create t partitions=1 rf=3 assign=1,2,3\n```\n\n" +
	"Now a record.\n\n```ksim predict\nask: Is m9 committed after 5 s?\nchoice*: yes\n  expect hw t-0 == 1\nchoice: no\n  expect hw t-0 == 0\n" +
	"producer p9 acks=all\nproduce p9 t value=m9\nwait 5s\nwhy: every replica in the ISR has it.\n```\n\n## What you saw\n\n- acks=all.\n"

// teachOwnLesson: the teacher opens a lesson file of their own in the
// room. A file that does not parse says its line in the teacher's pane
// and changes nothing on the students' pages; a good one is stepped as a
// bundled lesson is: its narration (the server's parser's HTML) on the
// student's page, its prediction answered there, the tally and the
// reveal with the lesson's explanation.
func teachOwnLesson(t *testing.T, teacher, student *browser) {
	var before string
	student.js(&before, `JSON.stringify(Live.status.lesson || null)`)
	teacher.js(nil, `Live.lesson = null, Live.render(), true`)
	if s := teacher.str(`document.getElementById("cp-own") ? "there" : "missing"`); s != "there" {
		t.Fatalf("the teacher's pane has no button for a lesson file of their own")
	}
	bad := strings.Replace(ownLesson, "produce p9 t value=m9", "produse p9 t value=m9", 1)
	var opened bool
	teacher.js(&opened, `Live.startOwnLesson(`+jsString(bad)+`)`)
	msg := teacher.str(`(document.getElementById("cp-own-error") || {}).textContent || ""`)
	if opened || !strings.Contains(msg, "line 26") || !strings.Contains(msg, `unknown verb "produse"`) || !strings.Contains(msg, "unchanged") {
		t.Fatalf("a bad lesson file: opened %v, the pane says %q", opened, msg)
	}
	var after string
	student.js(&after, `JSON.stringify(Live.status.lesson || null)`)
	if after != before {
		t.Fatalf("a bad lesson file changed the student's lesson: %s, was %s", after, before)
	}

	teacher.js(&opened, `Live.startOwnLesson(`+jsString(ownLesson)+`)`)
	if !opened {
		t.Fatalf("the lesson file did not open: %q", teacher.str(`(document.getElementById("cp-own-error") || {}).textContent || ""`))
	}
	student.until("the file's first step on the student's page", `!!Live.status.lesson && Live.status.lesson.file > 0 && Live.status.lesson.step === 0 &&
		((document.querySelector("#class-pane .md strong") || {}).textContent === "three-broker")`)
	teacher.js(nil, `Live.runStep(), true`) // its cluster line: loaded in the room
	teacher.until("step 1 ran", `Live.lesson && Live.lesson.ran`)
	student.until("the file's cluster in the room", `kafkasim.snapshot().topics.some(x => x.name === "t")`)
	teacher.js(nil, `Live.showStep(1), true`)
	student.until("the file's question", `!!Live.status.prediction && Live.status.prediction.question.includes("m9") && document.querySelectorAll(".cp-choice button").length === 2`)
	student.js(nil, `document.querySelectorAll(".cp-choice button")[0].click(), true`)
	teacher.until("the teacher sees the answer", `!!Live.status.tally && Live.status.tally.answered === 1 && Live.status.tally.counts[0] === 1`)
	teacher.js(nil, `Live.runStep(), true`)
	student.until("the reveal, right, with the file's explanation", `!!Live.status.reveal && Live.status.reveal.correct === 0 &&
		document.querySelector("#class-pane .ls-verdict.ok") !== null && (document.querySelector("#class-pane .ls-why") || {}).textContent.includes("every replica in the ISR has it")`)
	student.front()
	student.shot("live-07-student-own-lesson")
	teacher.js(nil, `Live.lesson = null, Live.render(), true`)
}
