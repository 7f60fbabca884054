package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kafkasim/kafkasim/core/scenario"
	"github.com/kafkasim/kafkasim/server/protocol"
	"github.com/kafkasim/kafkasim/server/room"
)

// driverOnly lists the messages that need the control token.
var driverOnly = map[string]bool{
	protocol.TCmd: true, protocol.TReset: true, protocol.TLoad: true, protocol.TSpeed: true,
	protocol.TAdvance: true, protocol.TLesson: true, protocol.TPredict: true, protocol.TReveal: true,
}

// decode reads one client message strictly: one JSON object, known
// fields only, nothing after it.
func decode(data []byte) (protocol.In, error) {
	var in protocol.In
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return in, errors.New("a message is one JSON object")
	}
	if !utf8.Valid(data) {
		return in, errors.New("not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return in, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return in, errors.New("more than one JSON value in the message")
	}
	return in, nil
}

// handle carries out one client message; every outcome is a reply.
func (c *conn) handle(data []byte) {
	in, err := decode(data)
	if err != nil {
		typ, id, _ := protocol.Peek(data) // best effort, to say which message
		var ute *json.UnmarshalTypeError
		code := protocol.ErrBadJSON
		if errors.As(err, &ute) || strings.HasPrefix(err.Error(), "json: unknown field") || strings.HasPrefix(err.Error(), "json: cannot unmarshal") {
			code = protocol.ErrBadMessage
		}
		c.replyErr(id, typ, code, "malformed message: "+err.Error())
		return
	}
	if in.V != 0 && in.V != protocol.Version {
		c.replyErr(in.ID, in.Type, protocol.ErrVersion, fmt.Sprintf("protocol version %d: this server speaks %d", in.V, protocol.Version))
		return
	}
	if driverOnly[in.Type] && !c.driver.Load() {
		c.replyErr(in.ID, in.Type, protocol.ErrForbidden, in.Type+" needs the room's control token: send {\"type\":\"auth\",\"token\":...} first")
		return
	}
	ctx, cancel := c.ctx()
	defer cancel()
	r := c.cr.room
	switch in.Type {
	case protocol.TAuth:
		c.auth(in)
	case protocol.TCmd:
		c.cmd(in)
	case protocol.TSnapshot:
		f, err := r.Snapshot(ctx, "request", in.ID)
		if err != nil {
			c.roomErr(in.ID, in.Type, err)
			return
		}
		r.Deliver(c.sub, f)
	case protocol.THistory:
		if _, err := r.DeliverHistory(ctx, c.sub, in.ID); err != nil {
			c.roomErr(in.ID, in.Type, err)
		}
	case protocol.TReset:
		c.done(in, r.Reset(ctx))
	case protocol.TLoad:
		c.load(in)
	case protocol.TSpeed:
		if in.Speed == nil || math.IsNaN(*in.Speed) {
			c.replyErr(in.ID, in.Type, protocol.ErrBadMessage, "speed needs \"speed\": a number from 0 (paused) to "+ftoa(room.MaxSpeed))
			return
		}
		if err := r.SetSpeed(ctx, *in.Speed); err != nil {
			c.replyErr(in.ID, in.Type, protocol.ErrBadMessage, err.Error())
			return
		}
		c.ok(in)
	case protocol.TAdvance:
		c.done(in, r.AdvanceNow(ctx, in.Ms))
	case protocol.TLesson:
		c.cr.setLesson(c, in)
	case protocol.TPredict:
		c.cr.openPrediction(c, in)
	case protocol.TAnswer:
		c.cr.answer(c, in)
	case protocol.TReveal:
		c.cr.reveal(c, in)
	case "":
		c.replyErr(in.ID, "", protocol.ErrBadMessage, "the message has no \"type\"")
	default:
		c.replyErr(in.ID, in.Type, protocol.ErrUnknownType, fmt.Sprintf("unknown message type %q (valid: %s)", in.Type, validTypes))
	}
}

const validTypes = "auth, cmd, snapshot, history, reset, load, speed, advance, lesson, predict, answer, reveal"

func (c *conn) ok(in protocol.In) {
	c.reply(protocol.TResult, protocol.Result{Type: protocol.TResult, ID: in.ID, Of: in.Type, OK: true, At: c.cr.room.Now()})
}

// done replies ok, or with err as a bad message (a refused argument) or
// a room error.
func (c *conn) done(in protocol.In, err error) {
	if err == nil {
		c.ok(in)
		return
	}
	if errors.Is(err, room.ErrClosed) {
		c.roomErr(in.ID, in.Type, err)
		return
	}
	c.replyErr(in.ID, in.Type, protocol.ErrBadMessage, err.Error())
}

func (c *conn) auth(in protocol.In) {
	if !c.cr.authorized(in.Token) {
		c.replyErr(in.ID, in.Type, protocol.ErrForbidden, "wrong control token")
		return
	}
	if !c.driver.Swap(true) {
		c.cr.drivers.Add(1)
		c.cr.presenceChanged()
	}
	c.reply(protocol.TResult, protocol.Result{Type: protocol.TResult, ID: in.ID, Of: in.Type, OK: true, Role: "driver", At: c.cr.room.Now()})
	c.cr.sendTally(c) // a driver that joins late sees the open prediction's answers
}

// cmd runs scenario lines; the reply comes when the last has run.
func (c *conn) cmd(in protocol.In) {
	if strings.TrimSpace(in.Text) == "" {
		c.replyErr(in.ID, in.Type, protocol.ErrBadMessage, "cmd needs \"text\": scenario lines")
		return
	}
	steps, err := room.ParseCommands(in.Text)
	if err != nil {
		c.parseErr(in, err)
		return
	}
	ctx, cancel := c.ctx()
	defer cancel()
	id, sub, r := in.ID, c.sub, c.cr.room
	err = r.Exec(ctx, "cmd", steps, func(res protocol.Result) {
		res.ID, res.Of = id, protocol.TCmd
		data, _ := json.Marshal(res)
		r.Deliver(sub, room.NewFrame(protocol.TResult, data))
	})
	if err != nil {
		c.roomErr(in.ID, in.Type, err)
	}
}

func (c *conn) parseErr(in protocol.In, err error) {
	var se *scenario.Error
	if errors.As(err, &se) {
		c.reply(protocol.TError, protocol.Error{Type: protocol.TError, ID: in.ID, Of: in.Type, Code: protocol.ErrParse,
			Message: se.Error(), Line: se.Line, Col: se.Col})
		return
	}
	c.replyErr(in.ID, in.Type, protocol.ErrBadMessage, err.Error())
}

// load replaces the room's scenario.
func (c *conn) load(in protocol.In) {
	if strings.TrimSpace(in.Ksim) == "" {
		c.replyErr(in.ID, in.Type, protocol.ErrBadMessage, "load needs \"ksim\": a scenario starting with its cluster line")
		return
	}
	name := in.Name
	if name == "" {
		name = "loaded"
	}
	if len(name) > 200 {
		c.replyErr(in.ID, in.Type, protocol.ErrBadMessage, "name: at most 200 bytes")
		return
	}
	ctx, cancel := c.ctx()
	defer cancel()
	err := c.cr.room.LoadInstant(ctx, name, in.Ksim, in.Instant)
	var se *scenario.Error
	switch {
	case errors.As(err, &se):
		c.parseErr(in, err)
	case err != nil:
		c.done(in, err)
	default:
		c.cr.clearLesson()
		c.ok(in)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
