package zookeeper

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kafkasim/kafkasim/core"
)

// conn is one client connection. Its reader goroutine decodes frames and
// hands each request to the cluster's goroutine in order; replies and
// watch events are queued (bounded) for its writer goroutine. The fields
// below "cluster" belong to the cluster's goroutine.
type conn struct {
	s      *Server
	nc     net.Conn
	out    chan []byte // frames to write; nil means "close after the frames before it"
	done   chan struct{}
	once   sync.Once
	closed atomic.Bool

	cluster *core.Cluster // the cluster this connection's session belongs to
	sid     int64         // its session (0 until the connect reaches zk)
	kraft   bool          // serving the KRaft explanation view
	ro      bool          // the client sent the readOnly flag
}

func newConn(s *Server, nc net.Conn) *conn {
	return &conn{s: s, nc: nc, out: make(chan []byte, s.cfg.MaxQueue), done: make(chan struct{})}
}

// close ends the connection once; why goes to the log.
func (c *conn) close(why string) {
	c.once.Do(func() {
		c.closed.Store(true)
		c.unbind()
		close(c.done)
		c.nc.Close()
		c.s.forget(c)
		if why != "" {
			c.s.cfg.Logf("zookeeper: %s: connection closed: %s", c.nc.RemoteAddr(), why)
		}
	})
}

// unbind forgets which session the connection held, on the cluster's
// goroutine (a connection closing on its own hands that over to it).
func (c *conn) unbind() {
	go c.s.do(func(*core.Cluster) {
		if c.sid != 0 && c.s.bound[c.sid] == c {
			delete(c.s.bound, c.sid)
		}
	})
}

// send queues a frame (nil: close once the queued frames are written). It
// never blocks: a client whose queue is full is disconnected.
func (c *conn) send(frame []byte) {
	if c.closed.Load() {
		return
	}
	select {
	case c.out <- frame:
	default:
		c.close(fmt.Sprintf("client too slow: %d frames unread", cap(c.out)))
	}
}

func (c *conn) writeLoop() {
	defer c.s.wg.Done()
	for {
		select {
		case <-c.done:
			return
		case f := <-c.out:
			if f == nil {
				c.close("")
				return
			}
			c.nc.SetWriteDeadline(time.Now().Add(10 * time.Second))
			if _, err := c.nc.Write(f); err != nil {
				c.close("write: " + err.Error())
				return
			}
		}
	}
}

// readFrame reads one length-prefixed frame.
func (c *conn) readFrame() ([]byte, error) {
	c.nc.SetReadDeadline(time.Now().Add(c.s.cfg.Idle))
	var n [4]byte
	if _, err := io.ReadFull(c.nc, n[:]); err != nil {
		return nil, err
	}
	size := int32(binary.BigEndian.Uint32(n[:]))
	if size < 0 || size > MaxFrame {
		return nil, fmt.Errorf("frame length %d (at most %d)", size, MaxFrame)
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(c.nc, b); err != nil {
		return nil, err
	}
	return b, nil
}

func (c *conn) readLoop() {
	defer c.s.wg.Done()
	defer c.close("")
	frame, err := c.readFrame()
	if err != nil {
		c.close("before connecting: " + err.Error())
		return
	}
	creq, err := decodeConnect(frame)
	if err != nil {
		c.close(err.Error())
		return
	}
	if err := c.s.do(func(cl *core.Cluster) { c.connect(cl, creq) }); err != nil {
		c.close(err.Error())
		return
	}
	for !c.closed.Load() {
		frame, err := c.readFrame()
		if err != nil {
			if err != io.EOF && !c.closed.Load() {
				c.close("read: " + err.Error())
			}
			return
		}
		r, spec, err := decodeRequest(frame)
		if err != nil {
			if r != nil && spec.name == "" {
				// Unknown type: UNIMPLEMENTED, then close, as
				// UnimplementedRequestProcessor does.
				c.send(header(r.xid, 0, errUnimplemented).done())
				c.send(nil)
				c.s.cfg.Logf("zookeeper: %s: %v", c.nc.RemoteAddr(), err)
				c.flushed()
				return
			}
			c.close(err.Error())
			return
		}
		if c.takesDelete(r) {
			c.deleteController(r)
			continue
		}
		if err := c.s.do(func(cl *core.Cluster) { c.request(cl, r, spec) }); err != nil {
			c.close(err.Error())
			return
		}
	}
}

// flushed waits (a little) for the writer to write what is queued and
// close, so that a last reply is not cut off.
func (c *conn) flushed() {
	select {
	case <-c.done:
	case <-time.After(5 * time.Second):
	}
}

// connect handles the connect request (on the cluster's goroutine).
func (c *conn) connect(cl *core.Cluster, creq *connectRequest) {
	c.cluster, c.ro = cl, creq.hasReadOnly
	zk := cl.ZooKeeper()
	if zk == nil {
		c.kraft = true
		c.s.cfg.Logf("zookeeper: %s connected, but this cluster runs KRaft (metadata=kraft): there is no ZooKeeper. "+
			"It gets a read-only view that says so (get /README) and lists the KRaft metadata log (ls /%s)", c.nc.RemoteAddr(), kraftLogNode)
		id, timeout := c.s.kraft.open(creq.sessionID, int64(creq.timeout))
		c.sid = id
		c.send(connectResponse(int32(timeout), id, kraftPasswd(id), c.ro))
		return
	}
	zk = zk.As(c.label(), creq.sessionID)
	zk.Send("ZkConnect", "", func() func() {
		// ZooKeeperServer.processConnectRequest refuses a client that has
		// seen a newer zxid than the server's last. Here that happens only
		// after the served cluster was reset or replaced (a new ensemble
		// whose zxids start over): refusing would leave the client retrying
		// forever, so its old session is simply unknown (expired) and a
		// new one starts from the new ensemble.
		var sess core.ZKSession
		ok := true
		if creq.sessionID == 0 {
			var err error
			if sess, err = zk.OpenSession(int64(creq.timeout), c.notify); err != nil {
				return func() { c.close(err.Error()) }
			}
		} else {
			sess, ok = zk.ResumeSession(creq.sessionID, creq.passwd, int64(creq.timeout), c.notify)
		}
		if !ok {
			// Expired or a wrong password: timeout 0 tells the client its
			// session is gone; then the server closes the connection.
			return func() {
				c.send(connectResponse(0, 0, nil, c.ro))
				c.send(nil)
			}
		}
		c.sid = sess.ID
		// A session lives on one connection: reconnecting moves it, and the
		// server closes the old one (DisconnectReason.CLIENT_RECONNECT).
		if old := c.s.bound[sess.ID]; old != nil && old != c {
			old.close(fmt.Sprintf("session 0x%x moved to a new connection", sess.ID))
		}
		c.s.bound[sess.ID] = c
		return func() { c.send(connectResponse(int32(sess.Timeout), sess.ID, sess.Passwd, c.ro)) }
	})
}

// notify delivers a watch event (or the end of an expired session).
func (c *conn) notify(ev core.ZKWatchEvent) {
	if ev.Reply != nil {
		c.reply(ev.Reply)
		return
	}
	if ev.Expired {
		c.close(fmt.Sprintf("session 0x%x expired", c.sid))
		return
	}
	c.send(watcherEvent(int32(ev.Type), ev.Path, ev.Zxid))
}

// request handles one request (on the cluster's goroutine): it travels to
// zk, is answered there from the tree as it is then, and the reply travels
// back.
func (c *conn) request(cl *core.Cluster, r *request, spec opSpec) {
	if c.closed.Load() {
		return
	}
	if cl != c.cluster {
		c.close("the served cluster was replaced (reset or load): its ZooKeeper sessions are gone")
		return
	}
	if c.kraft {
		if spec.class == cWrite {
			c.s.cfg.Logf("zookeeper: %s: %s %s refused (NOAUTH): this cluster runs KRaft (metadata=kraft), there is no ZooKeeper to write to and no /controller; get /README", c.nc.RemoteAddr(), spec.name, r.path)
		}
		frame, last := serveKraft(cl, r, spec)
		c.send(frame)
		if last {
			c.send(nil)
		}
		return
	}
	zk := cl.ZooKeeper().As(c.label(), c.sid)
	zk.Send(msgKind(spec), r.path, func() func() {
		if !zk.Touch(c.sid) {
			return func() { c.close(fmt.Sprintf("session 0x%x expired", c.sid)) }
		}
		frame, last := c.serve(zk, r, spec)
		return func() {
			c.send(frame)
			if last {
				c.send(nil)
			}
		}
	})
}

// msgKind names a request's message for the browser: "Zk" and the
// operation's name, capitalized (ZkGetChildren2, ZkPing, ...).
func msgKind(spec opSpec) string {
	return "Zk" + string(spec.name[0]-'a'+'A') + spec.name[1:]
}
