package server

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/server/client"
	"github.com/kafkasim/kafkasim/server/protocol"
)

// ownLesson is a teacher's own lesson file: two steps, the second a
// prediction.
const ownLesson = "---\nid: my-acks\ntitle: \"My acks lesson\"\norder: 1\nsummary: Mine.\n---\n\n# My acks lesson\n\n" +
	"A **three-broker** cluster.\n\n```ksim run\ncluster brokers=3 seed=2 version=3.9 metadata=kraft\ntopic create t partitions=1 rf=3 assign=1,2,3\n```\n\n" +
	"Now a record.\n\n```ksim predict\nask: Is m1 committed after 5 s?\nchoice*: yes\n  expect hw t-0 == 1\nchoice: no\n  expect hw t-0 == 0\n" +
	"producer p1 acks=all\nproduce p1 t value=m1\nwait 5s\nwhy: every replica in the ISR has it.\n```\n\n## What you saw\n\n- acks=all.\n"

// TestRoomLessonFile: a teacher puts a lesson file of their own into the
// room; the server parses it (the lessons package: its narration is
// goldmark's HTML) and serves it to the students' pages; lesson steps
// naming the file reach everyone. A file that does not parse gets its
// line and changes nothing; without the token, or naming a replaced
// file or a step past its end, nothing changes either.
func TestRoomLessonFile(t *testing.T) {
	_, c := start(t, Config{})
	room, err := c.CreateRoom(ctx(t), protocol.CreateRoom{Name: "own lesson", Scenario: lesson1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutLesson(ctx(t), room.Code, "", ownLesson, "en"); !isReply(err, protocol.ErrForbidden, "token") {
		t.Fatalf("a lesson file without the token: %v", err)
	}
	var none protocol.Error
	if err := c.Get(ctx(t), "/api/rooms/"+room.Code+"/lesson", &none); !isReply(err, protocol.ErrClosed, "no lesson file") {
		t.Fatalf("the lesson of a room without one: %v", err)
	}
	f, err := c.PutLesson(ctx(t), room.Code, room.Token, ownLesson, "en")
	if err != nil {
		t.Fatal(err)
	}
	if f.File != 1 || f.ID != "my-acks" || f.Steps != 2 || f.Title != "My acks lesson" {
		t.Fatalf("put: %+v", f)
	}
	var got struct {
		ID    string `json:"id"`
		Steps []struct {
			Kind      string `json:"kind"`
			Narration string `json:"narration"`
			Ask       string `json:"ask"`
			Choices   []struct {
				Label   string `json:"label"`
				Correct bool   `json:"correct"`
			} `json:"choices"`
		} `json:"steps"`
	}
	if err := c.Get(ctx(t), "/api/rooms/"+room.Code+"/lesson?file=1", &got); err != nil {
		t.Fatal(err)
	}
	if got.ID != "my-acks" || len(got.Steps) != 2 || !strings.Contains(got.Steps[0].Narration, "<strong>three-broker</strong>") ||
		got.Steps[1].Kind != "predict" || len(got.Steps[1].Choices) != 2 || !got.Steps[1].Choices[0].Correct {
		t.Fatalf("the served lesson: %+v", got)
	}

	// Bad files: each answered with its line, the room's file unchanged.
	for _, bad := range []struct{ name, text, want string }{
		{"an unknown command", strings.Replace(ownLesson, "produce p1 t value=m1", "produse p1 t value=m1", 1), "line 26: scenario: unknown verb"},
		{"no cluster first", strings.Replace(ownLesson, "cluster brokers=3 seed=2 version=3.9 metadata=kraft\n", "", 1), "line 13:"},
		{"no front matter", "# just a title\n", "line 1:"},
		{"raw bytes", "\xff\xfe", "line 1:"},
	} {
		_, err := c.PutLesson(ctx(t), room.Code, room.Token, bad.text, "en")
		if !isReply(err, protocol.ErrParse, bad.want) {
			t.Errorf("%s: %v, want a parse error at %s", bad.name, err, bad.want)
		}
	}
	if err := c.Get(ctx(t), "/api/rooms/"+room.Code+"/lesson?file=1", &got); err != nil || got.ID != "my-acks" {
		t.Fatalf("after the bad files: %v %+v", err, got.ID)
	}

	teacher := dial(t, c, room.Code, room.Token)
	student := dial(t, c, room.Code, "")
	for _, bad := range []struct {
		l    protocol.Lesson
		want string
	}{
		{protocol.Lesson{Lesson: "my-acks", Step: 0, File: 2}, "not the room's lesson file"},
		{protocol.Lesson{Lesson: "other", Step: 0, File: 1}, `is "my-acks"`},
		{protocol.Lesson{Lesson: "my-acks", Step: 2, File: 1}, "past the file's 2 steps"},
	} {
		if _, err := teacher.Lesson(ctx(t), bad.l); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("lesson %+v: %v, want %q", bad.l, err, bad.want)
		}
	}
	if _, err := teacher.Lesson(ctx(t), protocol.Lesson{Lesson: "my-acks", Step: 1, File: 1, Kind: "predict"}); err != nil {
		t.Fatal(err)
	}
	var step protocol.Lesson
	until(t, student, protocol.TLesson, &step)
	if step.File != 1 || step.Step != 1 || step.Steps != 2 || step.Lesson != "my-acks" {
		t.Fatalf("the student's step: %+v", step)
	}
	// A second file replaces the first: the old version is gone.
	f2, err := c.PutLesson(ctx(t), room.Code, room.Token, strings.Replace(ownLesson, "my-acks", "my-acks-2", 1), "en")
	if err != nil || f2.File != 2 {
		t.Fatalf("second put: %+v %v", f2, err)
	}
	if err := c.Get(ctx(t), "/api/rooms/"+room.Code+"/lesson?file=1", &got); !isReply(err, protocol.ErrClosed, "replaced by file 2") {
		t.Fatalf("the replaced file: %v", err)
	}
	// Too large: refused before parsing.
	huge := strings.Repeat("x", 2<<20)
	if _, err := c.PutLesson(ctx(t), room.Code, room.Token, huge, "en"); !isReply(err, protocol.ErrTooLarge, "at most") {
		t.Fatalf("a huge file: %v", err)
	}
	var raw json.RawMessage
	if err := c.Get(ctx(t), "/api/rooms/"+room.Code+"/lesson", &raw); err != nil || !strings.Contains(string(raw), "my-acks-2") {
		t.Fatalf("after the huge file: %v %.80s", err, raw)
	}
}

// isReply reports whether err is a server reply with code and a message
// containing want.
func isReply(err error, code, want string) bool {
	var re *client.ReplyError
	return errors.As(err, &re) && re.Reply.Code == code && strings.Contains(re.Reply.Message, want)
}
