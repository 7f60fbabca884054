package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/kafkasim/kafkasim/server/protocol"
	"github.com/kafkasim/kafkasim/server/room"
)

// conn is one websocket client in a room: one reader goroutine (the
// handler's), one writer goroutine; everything sent to it goes through
// its room subscription's bounded buffer, so the room never waits for it.
type conn struct {
	s      *Server
	cr     *classroom
	ws     *websocket.Conn
	sub    *room.Sub
	id     int64
	driver atomic.Bool
	bucket bucket
	stop   chan struct{} // closed when the reader ends
	once   sync.Once
}

// writeBuffers is shared by every connection's writes: an idle
// connection holds no write buffer (memory per watcher stays small).
var writeBuffers sync.Pool

func (s *Server) upgrader() *websocket.Upgrader {
	return &websocket.Upgrader{
		ReadBufferSize:  1024,
		WriteBufferSize: 16 << 10,
		WriteBufferPool: &writeBuffers,
		CheckOrigin:     s.checkOrigin,
	}
}

// serveWS upgrades a request for /api/rooms/{code}/ws.
func (s *Server) serveWS(w http.ResponseWriter, r *http.Request, cr *classroom) {
	if !cr.join(s.lim.MaxClientsPerRoom) {
		httpError(w, http.StatusServiceUnavailable, protocol.ErrLimit, "the room is full")
		return
	}
	ws, err := s.upgrader().Upgrade(w, r, nil)
	if err != nil {
		cr.leave(false) // Upgrade has replied with an HTTP error
		return
	}
	c := &conn{s: s, cr: cr, ws: ws, id: cr.nextClient.Add(1), stop: make(chan struct{})}
	c.bucket = newBucket(s.lim.CommandsPerSecond, s.lim.CommandBurst)
	defer func() {
		cr.leave(c.driver.Load())
		ws.Close()
	}()
	ws.SetReadLimit(int64(s.lim.MaxFrameBytes))
	if tc, ok := ws.NetConn().(*net.TCPConn); ok && s.lim.SocketBuffer > 0 {
		tc.SetWriteBuffer(s.lim.SocketBuffer)
	}
	welcome, sub, err := cr.enter(c)
	if err != nil {
		ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseTryAgainLater, err.Error()), time.Now().Add(time.Second))
		return
	}
	c.sub = sub
	// The welcome goes out before the writer starts: the only write not
	// made by the writer goroutine.
	ws.SetWriteDeadline(time.Now().Add(s.lim.WriteWait))
	if err := ws.WriteJSON(welcome); err != nil {
		cr.room.Unsubscribe(sub)
		return
	}
	cr.presenceChanged()
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.writer()
	}()
	c.reader()
	c.once.Do(func() { close(c.stop) })
	cr.room.Unsubscribe(sub)
	<-done
}

// reader reads client messages until the connection fails. An oversized
// message is read to its end (up to MaxFrameBytes) and answered with an
// error; a message that is not one JSON object gets an error; neither
// ends the connection.
func (c *conn) reader() {
	lim := c.s.lim
	c.ws.SetReadDeadline(time.Now().Add(lim.PongWait))
	c.ws.SetPongHandler(func(string) error {
		return c.ws.SetReadDeadline(time.Now().Add(lim.PongWait))
	})
	buf := make([]byte, 0, 4096)
	for {
		typ, rd, err := c.ws.NextReader()
		if err != nil {
			return
		}
		c.ws.SetReadDeadline(time.Now().Add(lim.PongWait))
		buf = buf[:0]
		data, n, err := readMessage(rd, buf, lim.MaxMessageBytes)
		if err != nil {
			return // past MaxFrameBytes, or the connection broke
		}
		buf = data[:0]
		switch {
		case n > int64(lim.MaxMessageBytes):
			c.replyErr(0, "", protocol.ErrTooLarge, "message of "+itoa(n)+" bytes: the limit is "+itoa(int64(lim.MaxMessageBytes)))
			continue
		case typ != websocket.TextMessage:
			c.replyErr(0, "", protocol.ErrBadJSON, "binary frames are not part of the protocol: send JSON text")
			continue
		}
		if !c.bucket.take(time.Now()) {
			typ, id, _ := protocol.Peek(data)
			c.replyErr(id, typ, protocol.ErrRateLimited, "too many messages: at most "+ftoa(lim.CommandsPerSecond)+" a second")
			continue
		}
		c.handle(data)
	}
}

// readMessage reads one message into buf; past max bytes it keeps
// counting without keeping. n is the message's whole size.
func readMessage(rd io.Reader, buf []byte, max int) ([]byte, int64, error) {
	lr := io.LimitReader(rd, int64(max)+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		m, err := lr.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if err == io.EOF {
			break
		}
		if err != nil {
			return buf, int64(len(buf)), err
		}
	}
	n := int64(len(buf))
	if n > int64(max) {
		rest, err := io.Copy(io.Discard, rd)
		if err != nil {
			return buf, n + rest, err
		}
		n += rest
	}
	return buf, n, nil
}

// writer sends the subscription's frames, each under a write deadline,
// and pings; it ends when the subscription or the reader ends, or a write
// fails (a client that cannot take a write in WriteWait is gone).
func (c *conn) writer() {
	lim := c.s.lim
	ping := time.NewTicker(lim.PongWait * 4 / 10)
	defer ping.Stop()
	defer c.ws.Close() // unblocks the reader
	for {
		select {
		case f := <-c.sub.C:
			pm, _ := f.Prepared(prepare).(*websocket.PreparedMessage)
			c.ws.SetWriteDeadline(time.Now().Add(lim.WriteWait))
			var err error
			if pm != nil {
				err = c.ws.WritePreparedMessage(pm)
			} else {
				err = c.ws.WriteMessage(websocket.TextMessage, f.Data)
			}
			if err != nil {
				return
			}
		case <-ping.C:
			if err := c.ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(lim.WriteWait)); err != nil {
				return
			}
		case <-c.sub.Done():
			msg := websocket.FormatCloseMessage(websocket.CloseGoingAway, "the room closed or this client fell too far behind")
			c.ws.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second))
			return
		case <-c.stop:
			return
		}
	}
}

func prepare(data []byte) any {
	pm, err := websocket.NewPreparedMessage(websocket.TextMessage, data)
	if err != nil {
		return nil
	}
	return pm
}

// reply queues a message for this client alone.
func (c *conn) reply(kind string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		return
	}
	c.cr.room.Deliver(c.sub, room.NewFrame(kind, data))
}

func (c *conn) replyErr(id int64, of, code, msg string) {
	c.reply(protocol.TError, protocol.Error{Type: protocol.TError, ID: id, Of: of, Code: code, Message: msg})
}

// ctx bounds a call into the room made for this client.
func (c *conn) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 10*time.Second)
}

// roomErr turns an error from the room into an error reply.
func (c *conn) roomErr(id int64, of string, err error) {
	code := protocol.ErrCommand
	switch {
	case errors.Is(err, room.ErrClosed):
		code = protocol.ErrClosed
	case errors.Is(err, room.ErrBusy):
		code = protocol.ErrBusy
	case errors.Is(err, context.DeadlineExceeded):
		code = protocol.ErrBusy
	}
	c.replyErr(id, of, code, err.Error())
}
