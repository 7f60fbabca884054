package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kafkasim/kafkasim/server/protocol"
	"github.com/kafkasim/kafkasim/server/room"
)

// Bounds of classroom messages.
const (
	maxQuestion   = 1000  // bytes of a prediction's question
	maxChoice     = 300   // bytes of one choice
	maxLessonText = 64000 // bytes of a lesson step's text
	maxLessonName = 200
)

func (cr *classroom) limits() protocol.Limits {
	l := cr.srv.lim
	return protocol.Limits{
		MaxMessageBytes: l.MaxMessageBytes, CommandsPerSecond: l.CommandsPerSecond, CommandBurst: l.CommandBurst,
		MaxClients: l.MaxClientsPerRoom, MaxHistory: l.MaxHistory, MaxChoices: l.MaxChoices,
	}
}

// enter subscribes c to the room and returns its welcome. Both happen
// under the classroom's lock, so a lesson step or prediction sent to
// everyone is either in the welcome or queued after the first snapshot.
func (cr *classroom) enter(c *conn) (protocol.Welcome, *room.Sub, error) {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sub, err := cr.room.Subscribe(ctx, cr.srv.lim.SendBuffer, "join", c)
	if err != nil {
		return protocol.Welcome{}, nil, err
	}
	return cr.welcome(c), sub, nil
}

// welcome is a new connection's first message (cr.mu held).
func (cr *classroom) welcome(c *conn) protocol.Welcome {
	w := protocol.Welcome{Type: protocol.TWelcome, Protocol: protocol.Version, Room: cr.code, Client: c.id,
		Role: "watcher", Speed: cr.room.Speed(), Scenario: cr.room.Name(), Limits: cr.limits(), Lesson: cr.lesson}
	if cr.pred != nil {
		p := cr.pred.Prediction
		w.Open = &p
	}
	return w
}

// broadcast sends v to everyone in the room (classroom messages reach
// subscribers that lag on events too).
func (cr *classroom) broadcast(kind string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return cr.room.Broadcast(ctx, room.NewFrame(kind, data))
}

func checkText(what, s string, max int) error {
	if len(s) > max {
		return fmt.Errorf("%s: %d bytes, at most %d", what, len(s), max)
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("%s: not valid UTF-8", what)
	}
	return nil
}

// setLesson makes a lesson step the one every page shows.
func (cr *classroom) setLesson(c *conn, in protocol.In) {
	l := in.Lesson
	if l == nil || strings.TrimSpace(l.Lesson) == "" || l.Step < 0 || l.Steps < 0 || (l.Steps > 0 && l.Step >= l.Steps) {
		c.replyErr(in.ID, in.Type, protocol.ErrBadMessage, "lesson needs \"lesson\": {\"lesson\": ID, \"step\": N (0-based, below steps)}")
		return
	}
	for _, t := range []struct {
		what, s string
		max     int
	}{{"lesson", l.Lesson, maxLessonName}, {"title", l.Title, maxLessonName}, {"kind", l.Kind, maxLessonName}, {"text", l.Text, maxLessonText}} {
		if err := checkText(t.what, t.s, t.max); err != nil {
			c.replyErr(in.ID, in.Type, protocol.ErrBadMessage, err.Error())
			return
		}
	}
	step := *l
	step.Type = protocol.TLesson
	cr.mu.Lock()
	if err := cr.checkLessonFile(&step); err != nil {
		cr.mu.Unlock()
		c.replyErr(in.ID, in.Type, protocol.ErrBadMessage, err.Error())
		return
	}
	cr.lesson = &step
	err := cr.broadcast(protocol.TLesson, step)
	cr.mu.Unlock()
	c.done(in, err)
}

func (cr *classroom) clearLesson() {
	cr.mu.Lock()
	cr.lesson = nil
	cr.mu.Unlock()
}

// openPrediction opens a question (replacing an open one).
func (cr *classroom) openPrediction(c *conn, in protocol.In) {
	max := cr.srv.lim.MaxChoices
	bad := func(msg string) { c.replyErr(in.ID, in.Type, protocol.ErrBadMessage, msg) }
	switch {
	case strings.TrimSpace(in.Question) == "":
		bad("predict needs \"question\"")
		return
	case len(in.Choices) < 2 || len(in.Choices) > max:
		bad(fmt.Sprintf("predict needs 2 to %d \"choices\"", max))
		return
	case in.Correct != nil && (*in.Correct < 0 || *in.Correct >= len(in.Choices)):
		bad(fmt.Sprintf("correct: %d is not a choice (0 to %d)", *in.Correct, len(in.Choices)-1))
		return
	}
	if err := checkText("question", in.Question, maxQuestion); err != nil {
		bad(err.Error())
		return
	}
	for i, ch := range in.Choices {
		if strings.TrimSpace(ch) == "" {
			bad(fmt.Sprintf("choice %d is empty", i))
			return
		}
		if err := checkText(fmt.Sprintf("choice %d", i), ch, maxChoice); err != nil {
			bad(err.Error())
			return
		}
	}
	cr.mu.Lock()
	cr.predSeq++
	p := &prediction{Prediction: protocol.Prediction{Type: protocol.TPrediction, ID: cr.predSeq, Question: in.Question,
		Choices: append([]string(nil), in.Choices...)}, correct: in.Correct, answers: map[int64]int{}}
	cr.pred = p
	err := cr.broadcast(protocol.TPrediction, p.Prediction)
	cr.mu.Unlock()
	if err != nil {
		c.roomErr(in.ID, in.Type, err)
		return
	}
	c.reply(protocol.TResult, protocol.Result{Type: protocol.TResult, ID: in.ID, Of: in.Type, OK: true, At: cr.room.Now()})
	cr.sendTally(nil)
}

// answer records a client's choice (a later answer replaces it) and shows
// the drivers the new distribution.
func (cr *classroom) answer(c *conn, in protocol.In) {
	cr.mu.Lock()
	p := cr.pred
	var msg string
	switch {
	case p == nil:
		msg = "no prediction is open"
	case in.Prediction != p.ID:
		msg = fmt.Sprintf("prediction %d is not the open one (%d)", in.Prediction, p.ID)
	case in.Choice == nil || *in.Choice < 0 || *in.Choice >= len(p.Choices):
		msg = fmt.Sprintf("answer needs \"choice\": 0 to %d", len(p.Choices)-1)
	default:
		p.answers[c.id] = *in.Choice
	}
	cr.mu.Unlock()
	if msg != "" {
		c.replyErr(in.ID, in.Type, protocol.ErrBadMessage, msg)
		return
	}
	c.ok(in)
	cr.sendTally(nil)
}

// tally counts the open prediction's answers; nil when none is open.
func (cr *classroom) tally(kind string) *protocol.Tally {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	p := cr.pred
	if p == nil {
		return nil
	}
	t := &protocol.Tally{Type: kind, ID: p.ID, Counts: make([]int, len(p.Choices)), Answered: len(p.answers),
		Watchers: int(cr.clients.Load() - cr.drivers.Load())}
	for _, ch := range p.answers {
		t.Counts[ch]++
	}
	if kind == protocol.TReveal {
		t.Correct = p.correct
	}
	return t
}

// sendTally sends the drivers (or only c) the answers so far.
func (cr *classroom) sendTally(only *conn) {
	t := cr.tally(protocol.TTally)
	if t == nil {
		return
	}
	data, err := json.Marshal(t)
	if err != nil {
		return
	}
	f := room.NewFrame(protocol.TTally, data)
	if only != nil {
		cr.room.Deliver(only.sub, f)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cr.room.ForEach(ctx, func(s *room.Sub) {
		if c, ok := s.Data.(*conn); ok && c.driver.Load() {
			cr.room.Deliver(s, f)
		}
	})
}

// reveal closes the open prediction and shows everyone its answers.
func (cr *classroom) reveal(c *conn, in protocol.In) {
	t := cr.tally(protocol.TReveal)
	if t == nil {
		c.replyErr(in.ID, in.Type, protocol.ErrBadMessage, "no prediction is open")
		return
	}
	cr.mu.Lock()
	if cr.pred != nil && cr.pred.ID == t.ID {
		cr.pred = nil
	}
	err := cr.broadcast(protocol.TReveal, t)
	cr.mu.Unlock()
	c.done(in, err)
}

// presenceChanged schedules a presence message (at most one a second).
func (cr *classroom) presenceChanged() {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if cr.presence != nil {
		return
	}
	cr.presence = time.AfterFunc(time.Second, func() {
		cr.mu.Lock()
		cr.presence = nil
		cr.mu.Unlock()
		n, d := cr.clients.Load(), cr.drivers.Load()
		cr.broadcast(protocol.TPresence, protocol.Presence{Type: protocol.TPresence, Clients: int(n), Drivers: int(d), Watchers: int(n - d)})
	})
}
