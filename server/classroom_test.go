package server

import (
	"context"
	"encoding/xml"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/server/client"
	"github.com/kafkasim/kafkasim/server/protocol"
)

// until reads conn's stream until a message of type typ arrives (others
// are skipped) and decodes it into v.
func until(t *testing.T, conn *client.Conn, typ string, v any) {
	t.Helper()
	for {
		m := next(t, conn)
		if m.Type == typ {
			if err := m.Decode(v); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
}

// none checks that no message of type typ arrives within a short while.
func none(t *testing.T, conn *client.Conn, typ string) {
	t.Helper()
	deadline := time.After(300 * time.Millisecond)
	for {
		select {
		case m := <-conn.Stream():
			if m.Type == typ {
				t.Fatalf("unexpected %s: %s", typ, m.Raw)
			}
		case <-deadline:
			return
		}
	}
}

// TestClassroom: a teacher makes a room; students join with its code;
// every page follows the teacher's lesson step (late joiners too); a
// prediction opens, students answer, only the teacher sees the
// distribution until the reveal shows it to everyone.
func TestClassroom(t *testing.T) {
	_, c := start(t, Config{})
	room, err := c.CreateRoom(ctx(t), protocol.CreateRoom{Name: "acks lesson", Scenario: lesson1})
	if err != nil {
		t.Fatal(err)
	}
	if len(room.Code) != codeLen || strings.ContainsAny(room.Code, "01IOL") || len(room.Token) < 20 {
		t.Fatalf("code %q token %q", room.Code, room.Token)
	}
	teacher := dial(t, c, room.Code, room.Token)
	var students []*client.Conn
	for i := 0; i < 3; i++ {
		students = append(students, dial(t, c, room.Code, ""))
	}
	step := protocol.Lesson{Lesson: "acks", Step: 2, Steps: 6, Title: "Leader dies", Kind: "predict", Text: "What happens to m2?"}
	if _, err := teacher.Lesson(ctx(t), step); err != nil {
		t.Fatal(err)
	}
	for i, s := range append(students, teacher) {
		var got protocol.Lesson
		until(t, s, protocol.TLesson, &got)
		if got.Lesson != "acks" || got.Step != 2 || got.Title != "Leader dies" {
			t.Fatalf("page %d shows %+v", i, got)
		}
	}
	late := dial(t, c, room.Code, "")
	if late.Welcome.Lesson == nil || late.Welcome.Lesson.Step != 2 {
		t.Fatalf("late joiner's welcome: %+v", late.Welcome)
	}
	if _, err := teacher.Predict(ctx(t), "After the leader dies, is m2 still there?", []string{"yes", "no", "it depends on acks"}, 1); err != nil {
		t.Fatal(err)
	}
	var pred protocol.Prediction
	for _, s := range append(students, late) {
		m := next(t, s)
		for m.Type != protocol.TPrediction {
			m = next(t, s)
		}
		if strings.Contains(string(m.Raw), "correct") {
			t.Fatalf("the prediction tells students the answer: %s", m.Raw)
		}
		m.Decode(&pred)
	}
	if len(pred.Choices) != 3 || pred.ID == 0 {
		t.Fatalf("prediction %+v", pred)
	}
	var tally protocol.Tally
	until(t, teacher, protocol.TTally, &tally) // opening shows 0 of 4
	if tally.Answered != 0 || tally.Watchers != 4 {
		t.Fatalf("tally at opening %+v", tally)
	}
	for i, choice := range []int{0, 1, 1, 2} {
		s := append(students, late)[i]
		if _, err := s.Answer(ctx(t), pred.ID, choice); err != nil {
			t.Fatal(err)
		}
		until(t, teacher, protocol.TTally, &tally)
	}
	// A student changes their mind: the later answer counts.
	if _, err := students[0].Answer(ctx(t), pred.ID, 1); err != nil {
		t.Fatal(err)
	}
	until(t, teacher, protocol.TTally, &tally)
	if mustJSON(t, tally.Counts) != "[0,3,1]" || tally.Answered != 4 {
		t.Fatalf("tally %+v", tally)
	}
	none(t, students[1], protocol.TTally) // students do not see the distribution
	if _, err := students[2].Answer(ctx(t), pred.ID, 7); err == nil {
		t.Fatal("an answer out of range was taken")
	}
	if _, err := students[2].Reveal(ctx(t)); err == nil {
		t.Fatal("a student revealed")
	}
	if _, err := teacher.Reveal(ctx(t)); err != nil {
		t.Fatal(err)
	}
	for _, s := range append(students, late, teacher) {
		var rev protocol.Tally
		until(t, s, protocol.TReveal, &rev)
		if mustJSON(t, rev.Counts) != "[0,3,1]" || rev.Correct == nil || *rev.Correct != 1 {
			t.Fatalf("reveal %+v", rev)
		}
	}
	if _, err := students[0].Answer(ctx(t), pred.ID, 0); err == nil {
		t.Fatal("answered a closed prediction")
	}
	// The QR code on the page is the join link.
	resp, err := http.Get(room.QR)
	if err != nil {
		t.Fatal(err)
	}
	svg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/svg+xml" {
		t.Fatalf("qr: %s %q", resp.Status, resp.Header.Get("Content-Type"))
	}
	if err := xml.Unmarshal(svg, new(struct{})); err != nil || !strings.Contains(string(svg), "<path") {
		t.Fatalf("qr is not an SVG: %v\n%.200s", err, svg)
	}
	if want := "/classroom?room=" + room.Code; !strings.HasSuffix(room.Join, want) {
		t.Fatalf("join %q", room.Join)
	}
}

// TestShareStore: a scenario too long for a link is stored by content
// (the same scenario, the same id) and served back; what does not parse
// or is too large is refused; the store keeps its limits and, with a
// directory, survives a restart.
func TestShareStore(t *testing.T) {
	dir := t.TempDir()
	_, c := start(t, Config{ShareDir: dir, Limits: Limits{MaxShareBytes: 64 << 10}})
	long := lesson1 + strings.Repeat("produce p1 orders value=0123456789abcdef\n", 300) // ~12 KB: past a link
	sh, err := c.Share(ctx(t), long)
	if err != nil {
		t.Fatal(err)
	}
	if len(sh.ID) != shareIDLen || !strings.HasSuffix(sh.App, "/?share="+sh.ID) {
		t.Fatalf("share %+v", sh)
	}
	again, _ := c.Share(ctx(t), long)
	if again.ID != sh.ID {
		t.Fatalf("same scenario, ids %s and %s", sh.ID, again.ID)
	}
	back, err := c.Shared(ctx(t), sh.ID)
	if err != nil || back != long {
		t.Fatalf("shared: %v", err)
	}
	if _, err := c.Share(ctx(t), "cluster brokers=3\ntopic create\n"); err == nil || !strings.Contains(err.Error(), "parse: 2:") {
		t.Fatalf("bad scenario: %v", err)
	}
	if _, err := c.Share(ctx(t), lesson1+strings.Repeat("# padding\n", 8000)); err == nil || !strings.Contains(err.Error(), protocol.ErrTooLarge) {
		t.Fatalf("too large: %v", err)
	}
	if _, err := c.Shared(ctx(t), "aaaaaaaaaa"); err == nil || !strings.Contains(err.Error(), "no shared scenario") {
		t.Fatalf("unknown id: %v", err)
	}
	if _, err := c.Shared(ctx(t), "../../etc"); err == nil {
		t.Fatal("a path as an id")
	}
	// A new server on the same directory serves it.
	_, c2 := start(t, Config{ShareDir: dir})
	if back, err := c2.Shared(ctx(t), sh.ID); err != nil || back != long {
		t.Fatalf("after a restart: %v", err)
	}
}

// TestShareStoreLimits: past its count or bytes the store drops the
// oldest scenarios first.
func TestShareStoreLimits(t *testing.T) {
	st, _ := newShareStore(Limits{MaxShares: 3, MaxShareBytes: 1 << 20, MaxShareTotal: 1 << 20}, "")
	var ids []string
	for i := 0; i < 5; i++ {
		id, err := st.put(lesson1 + strings.Repeat("wait 1s\n", i))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	for i, id := range ids {
		if _, ok := st.get(id); ok != (i >= 2) {
			t.Fatalf("share %d kept=%v", i, ok)
		}
	}
}

// TestDeleteRoom: only the token closes a room; the default room stays.
func TestDeleteRoom(t *testing.T) {
	s, c := start(t, Config{})
	room, _ := c.CreateRoom(ctx(t), protocol.CreateRoom{})
	conn := dial(t, c, room.Code, "")
	del := func(code, token string) int {
		req, _ := http.NewRequestWithContext(context.Background(), "DELETE", c.Base+"/api/rooms/"+code, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if st := del(room.Code, "nope"); st != http.StatusForbidden {
		t.Fatalf("wrong token: %d", st)
	}
	if st := del(s.DefaultCode(), s.DefaultToken()); st != http.StatusBadRequest {
		t.Fatalf("default room: %d", st)
	}
	if st := del(room.Code, room.Token); st != http.StatusNoContent {
		t.Fatalf("delete: %d", st)
	}
	select {
	case <-conn.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the room's connection stayed open")
	}
	if _, err := c.Room(ctx(t), room.Code); err == nil {
		t.Fatal("the room is still there")
	}
}
