package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/kafkasim/kafkasim/server/protocol"
)

// Message is one server message: its type, the id it replies to (0: not
// a reply), and its JSON to decode with Decode.
type Message struct {
	Type string
	ID   int64
	Raw  json.RawMessage
}

// Decode decodes the message into v (a *protocol.Events, *protocol.Snapshot, ...).
func (m Message) Decode(v any) error { return json.Unmarshal(m.Raw, v) }

// StreamBuffer is how many unread messages a Conn holds; past it the
// connection stops reading, and the server, seeing a slow reader, drops
// it from the stream and resyncs it by snapshot later.
const StreamBuffer = 1024

// ErrConnClosed is returned for requests on a closed connection.
var ErrConnClosed = errors.New("connection closed")

// Conn is a websocket connection to a room. Requests (Cmd, Snapshot, ...)
// wait for their reply; everything else the server sends (the first
// snapshot, events, lesson steps, predictions, notices) arrives on Stream.
type Conn struct {
	Welcome protocol.Welcome

	ws      *websocket.Conn
	wmu     sync.Mutex
	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan Message
	stream  chan Message
	ignore  atomic.Bool // drop what is not a reply
	done    chan struct{}
	err     error
}

// Dial connects to the room with join code code. With a token it becomes
// a driver (an auth request) before returning.
func (c *Client) Dial(ctx context.Context, code, token string) (*Conn, error) {
	d := websocket.Dialer{HandshakeTimeout: 10 * time.Second}
	ws, resp, err := d.DialContext(ctx, c.wsURL(code), nil)
	if err != nil {
		if resp != nil && resp.StatusCode >= 300 {
			return nil, fmt.Errorf("room %s: %s", code, resp.Status)
		}
		return nil, err
	}
	ws.SetReadLimit(256 << 20)
	conn := &Conn{ws: ws, pending: map[int64]chan Message{}, stream: make(chan Message, StreamBuffer), done: make(chan struct{})}
	ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	if err := ws.ReadJSON(&conn.Welcome); err != nil || conn.Welcome.Type != protocol.TWelcome {
		ws.Close()
		return nil, fmt.Errorf("room %s: no welcome: %v", code, err)
	}
	ws.SetReadDeadline(time.Time{})
	go conn.read()
	if token != "" {
		if _, err := conn.Request(ctx, protocol.In{Type: protocol.TAuth, Token: token}); err != nil {
			conn.Close()
			return nil, err
		}
		conn.Welcome.Role = "driver"
	}
	return conn, nil
}

func (c *Conn) read() {
	defer close(c.done)
	defer close(c.stream)
	for {
		_, data, err := c.ws.ReadMessage()
		if err != nil {
			c.mu.Lock()
			c.err = err
			for id, ch := range c.pending {
				close(ch)
				delete(c.pending, id)
			}
			c.mu.Unlock()
			return
		}
		typ, id, err := protocol.Peek(data)
		if err != nil {
			continue
		}
		m := Message{Type: typ, ID: id, Raw: data}
		if id != 0 {
			c.mu.Lock()
			ch := c.pending[id]
			delete(c.pending, id)
			c.mu.Unlock()
			if ch != nil {
				ch <- m
				continue
			}
		}
		if !c.ignore.Load() {
			c.stream <- m
		}
	}
}

// IgnoreStream drops every message that is not a reply from now on. A
// client that only sends commands calls it: otherwise, once StreamBuffer
// unread messages pile up, the connection stops reading and its replies
// wait behind them.
func (c *Conn) IgnoreStream() {
	c.ignore.Store(true)
	for {
		select {
		case <-c.stream:
		default:
			return
		}
	}
}

// Stream is every message that is not a reply, in order; it is closed
// when the connection ends. Read it: a client that leaves StreamBuffer
// messages unread stops reading the connection (replies too) until it
// does; the server meanwhile drops it from the event stream and resyncs
// it with a snapshot later. IgnoreStream is for clients that only drive.
func (c *Conn) Stream() <-chan Message { return c.stream }

// Done is closed when the connection has ended; Err says why.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err is why the connection ended (nil while it is open).
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close closes the connection.
func (c *Conn) Close() error {
	c.wmu.Lock()
	c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	c.wmu.Unlock()
	return c.ws.Close()
}

// Send writes a raw frame (for tests of what the server does with bad
// input; Request is the normal way).
func (c *Conn) Send(typ int, data []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.ws.SetWriteDeadline(time.Now().Add(10 * time.Second))
	return c.ws.WriteMessage(typ, data)
}

// Request sends in with a fresh id and waits for the reply. A "error"
// reply is returned as a *ReplyError (with the message too).
func (c *Conn) Request(ctx context.Context, in protocol.In) (Message, error) {
	ch := make(chan Message, 1)
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return Message{}, ErrConnClosed
	}
	c.nextID++
	in.ID = c.nextID
	c.pending[in.ID] = ch
	c.mu.Unlock()
	data, err := json.Marshal(in)
	if err == nil {
		err = c.Send(websocket.TextMessage, data)
	}
	if err != nil {
		c.forget(in.ID)
		return Message{}, err
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return Message{}, ErrConnClosed
		}
		if m.Type == protocol.TError {
			var e protocol.Error
			m.Decode(&e)
			return m, &ReplyError{e}
		}
		return m, nil
	case <-ctx.Done():
		c.forget(in.ID)
		return Message{}, ctx.Err()
	}
}

func (c *Conn) forget(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// result sends in and decodes a result reply.
func (c *Conn) result(ctx context.Context, in protocol.In) (protocol.Result, error) {
	var res protocol.Result
	m, err := c.Request(ctx, in)
	if err != nil {
		return res, err
	}
	err = m.Decode(&res)
	return res, err
}

// Cmd runs scenario lines in the room; the reply comes when the last has
// run (a script's waits follow the room's clock). A command that failed
// in the cluster, or an expect that did not hold, is in the result
// (OK false, Lines); a line that does not parse is a *ReplyError with
// Code "parse" and its Line and Col.
func (c *Conn) Cmd(ctx context.Context, text string) (protocol.Result, error) {
	return c.result(ctx, protocol.In{Type: protocol.TCmd, Text: text})
}

// Load replaces the room's scenario (driver).
func (c *Conn) Load(ctx context.Context, name, ksim string) (protocol.Result, error) {
	return c.result(ctx, protocol.In{Type: protocol.TLoad, Name: name, Ksim: ksim})
}

// Reset restarts the room's scenario (driver).
func (c *Conn) Reset(ctx context.Context) (protocol.Result, error) {
	return c.result(ctx, protocol.In{Type: protocol.TReset})
}

// Speed sets the room's speed (driver; 0 pauses).
func (c *Conn) Speed(ctx context.Context, speed float64) (protocol.Result, error) {
	return c.result(ctx, protocol.In{Type: protocol.TSpeed, Speed: &speed})
}

// Advance moves the room's virtual time by ms at once (driver).
func (c *Conn) Advance(ctx context.Context, ms int64) (protocol.Result, error) {
	return c.result(ctx, protocol.In{Type: protocol.TAdvance, Ms: ms})
}

// Snapshot asks for the room's state now.
func (c *Conn) Snapshot(ctx context.Context) (*protocol.Snapshot, error) {
	m, err := c.Request(ctx, protocol.In{Type: protocol.TSnapshot})
	if err != nil {
		return nil, err
	}
	var s protocol.Snapshot
	return &s, m.Decode(&s)
}

// History asks for the room's history (what a fork replays) with the
// snapshot at the same moment.
func (c *Conn) History(ctx context.Context) (*protocol.History, error) {
	m, err := c.Request(ctx, protocol.In{Type: protocol.THistory})
	if err != nil {
		return nil, err
	}
	var h protocol.History
	return &h, m.Decode(&h)
}

// Lesson sets the lesson step every page follows (driver).
func (c *Conn) Lesson(ctx context.Context, l protocol.Lesson) (protocol.Result, error) {
	return c.result(ctx, protocol.In{Type: protocol.TLesson, Lesson: &l})
}

// Predict opens a prediction (driver); correct < 0 for none.
func (c *Conn) Predict(ctx context.Context, question string, choices []string, correct int) (protocol.Result, error) {
	in := protocol.In{Type: protocol.TPredict, Question: question, Choices: choices}
	if correct >= 0 {
		in.Correct = &correct
	}
	return c.result(ctx, in)
}

// Answer answers the open prediction.
func (c *Conn) Answer(ctx context.Context, prediction int64, choice int) (protocol.Result, error) {
	return c.result(ctx, protocol.In{Type: protocol.TAnswer, Prediction: prediction, Choice: &choice})
}

// Reveal closes the open prediction and shows everyone its answers (driver).
func (c *Conn) Reveal(ctx context.Context) (protocol.Result, error) {
	return c.result(ctx, protocol.In{Type: protocol.TReveal})
}
