package kafka

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// MaxInFlight is the default of Config.MaxInFlight, the requests one
// connection may have unanswered: past it the listener stops reading that
// socket until a reply goes out, as Kafka's Processor mutes a channel
// while its request is being handled (the core models that one-at-a-time
// handling itself; clients pipeline up to about five).
const MaxInFlight = 64

// keepWriteBuf is the largest response buffer a connection keeps for the
// next response.
const keepWriteBuf = 1 << 20

// reqCtx is what a handler knows about the request it serves.
type reqCtx struct {
	s      *Server
	c      *conn
	broker int // the simulated broker this listener is
	h      header
}

// pending is a request sent into the core, waiting for its reply.
type pending struct {
	h      header
	finish func(*core.Reply) kmsg.Response
}

// conn is one client connection to one simulated broker's listener. Its
// reader decodes requests and sends them into the core; its writer sends
// the replies back in request order as the core produces them.
type conn struct {
	s      *Server
	broker int
	nc     net.Conn
	name   string // the connection's name in the simulated network
	slot   bool   // holds one of Server.slots (accepted by a listener)

	opened  chan struct{}    // closed on EvConnOpen
	replies chan *core.Reply // EvResponse, routed by the watcher
	pend    chan pending     // requests awaiting replies, in order: MaxInFlight-1, and one the writer holds
	gone    chan struct{}    // closed when the connection ends
	once    sync.Once
	why     string // why it ended, for the log

	mu                            sync.Mutex
	softwareName, softwareVersion string // KIP-511, from ApiVersions v3+
}

func newConn(s *Server, broker int, nc net.Conn, name string) *conn {
	return &conn{s: s, broker: broker, nc: nc, name: name, opened: make(chan struct{}),
		replies: make(chan *core.Reply, s.cfg.MaxInFlight), pend: make(chan pending, s.cfg.MaxInFlight-1), gone: make(chan struct{})}
}

// serve reads requests until the client goes away, the simulated broker
// closes the connection, or the client sends something Kafka would close
// the connection for. It never panics.
func (c *conn) serve() {
	defer c.end("client closed the connection", true)
	defer func() {
		if r := recover(); r != nil {
			c.s.logf("kafka: broker %d: %s: internal error, connection closed: %v", c.broker, c.nc.RemoteAddr(), r)
		}
	}()
	go c.write()
	r := bufio.NewReaderSize(c.nc, 64<<10)
	first := true
	for {
		c.nc.SetReadDeadline(time.Now().Add(c.s.idle))
		frame, err := readFrame(r, c.s.maxFrame)
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) && !c.ended() {
				c.s.logf("kafka: broker %d: %s: %v; connection closed", c.broker, c.nc.RemoteAddr(), err)
			}
			return
		}
		h, body, err := parseHeader(frame)
		if err == nil && first {
			first = false
			err = c.open(h.clientID)
		}
		var p *plan
		if err == nil {
			p, err = c.decode(h, body)
		}
		if err != nil {
			if !c.ended() {
				c.s.logf("kafka: broker %d: %s: %v; connection closed", c.broker, c.nc.RemoteAddr(), err)
			}
			return
		}
		if !p.noReply {
			select {
			case c.pend <- pending{h: h, finish: p.finish}:
			case <-c.gone:
				return
			}
		}
		p.req.Conn, p.req.Correlation, p.req.Label = c.name, h.corr, c.label(h, p.labelNote)
		if err := c.s.backend.Apply(context.Background(), p.req); err != nil {
			if !c.ended() {
				c.s.logf("kafka: broker %d: %s: %v; connection closed", c.broker, c.nc.RemoteAddr(), err)
			}
			return
		}
	}
}

// open makes the connection a node of the simulated network, named after
// the client id (so `net split 1 | 2,3,rdkafka` cuts that client off),
// and waits for the simulated broker to accept it.
func (c *conn) open(clientID string) error {
	host := hostName(clientID)
	err := c.s.backend.Apply(context.Background(), core.OpenConn{Conn: c.name, Host: host, Broker: c.broker})
	if err != nil && strings.Contains(err.Error(), "already taken") {
		host = "ext-" + host
		err = c.s.backend.Apply(context.Background(), core.OpenConn{Conn: c.name, Host: host, Broker: c.broker})
	}
	if err != nil {
		return err
	}
	select {
	case <-c.opened:
		return nil
	case <-c.gone:
		return fmt.Errorf("simulated broker %d: %s", c.broker, c.why)
	case <-time.After(30 * time.Second):
		return fmt.Errorf("simulated broker %d did not accept the connection in 30 s", c.broker)
	}
}

// hostName turns a client id into a simulated host name: letters,
// digits, '-', '_' and '.', not starting with a digit, at most 40 bytes.
func hostName(clientID string) string {
	var b strings.Builder
	for _, r := range clientID {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
		if b.Len() >= 40 {
			break
		}
	}
	s := b.String()
	if s == "" {
		s = "client"
	}
	if s[0] >= '0' && s[0] <= '9' {
		s = "c-" + s
	}
	return s
}

// decode checks the API and version and runs the handler.
func (c *conn) decode(h header, body []byte) (*plan, error) {
	a := apis[h.key]
	vr, known := c.s.versionsNow()[h.key]
	if a == nil || !known {
		// Kafka cannot even parse the header of an unknown API
		// (InvalidRequestException in RequestHeader.parse): it closes
		// the connection. So does an API the preset's release did not
		// have yet.
		return nil, fmt.Errorf("unknown API key %d", h.key)
	}
	req := kmsg.RequestForKey(h.key)
	cx := &reqCtx{s: c.s, c: c, broker: c.broker, h: h}
	if h.version < vr.min || h.version > vr.max || h.version > req.MaxVersion() {
		if h.key == 18 {
			// ApiVersions with a version we do not know: a v0 response
			// with UNSUPPORTED_VERSION and only ApiVersions' own range,
			// so the client retries with one we support (KIP-511;
			// ApiVersionsRequest.getErrorResponse). A client given the
			// whole table instead (franz-go) uses it without retrying,
			// so that connection never names its software.
			t := c.s.versionsNow()
			only := versionTable{18: t[18]}
			return local(cx, func() kmsg.Response { return apiVersionsResponse(only, 0, 35) }), nil
		}
		return nil, fmt.Errorf("%s v%d not supported (supported: v%d-v%d)", kmsg.NameForKey(h.key), h.version, vr.min, vr.max)
	}
	req.SetVersion(h.version)
	var err error
	if req.IsFlexible() && !(h.key == 7 && h.version == 0) {
		if body, err = skipTags(body); err != nil {
			return nil, fmt.Errorf("%s v%d: %v", kmsg.NameForKey(h.key), h.version, err)
		}
	}
	if err := req.ReadFrom(body); err != nil {
		if h.key == 18 && h.version >= 3 {
			// INVALID_REQUEST: librdkafka and others fall back to v0.
			return local(cx, func() kmsg.Response { return apiVersionsResponse(c.s.versionsNow(), h.version, 42) }), nil
		}
		return nil, fmt.Errorf("%s v%d: malformed body: %v", kmsg.NameForKey(h.key), h.version, err)
	}
	return a.handle(cx, req)
}

// write sends replies in request order until the connection ends.
func (c *conn) write() {
	defer func() {
		if r := recover(); r != nil {
			c.s.logf("kafka: broker %d: internal error writing a response, connection closed: %v", c.broker, r)
			c.end("internal error", true)
		}
	}()
	var out []byte
	for {
		var p pending
		select {
		case p = <-c.pend:
		case <-c.gone:
			return
		}
		var rep *core.Reply
		select {
		case rep = <-c.replies:
		case <-c.gone:
			return
		}
		if rep.Correlation != p.h.corr {
			c.s.logf("kafka: broker %d: reply %d while %d was due; connection closed", c.broker, rep.Correlation, p.h.corr)
			c.end("replies out of order", true)
			return
		}
		resp := p.finish(rep)
		resp.SetVersion(p.h.version)
		if p.h.key == 18 {
			if v, ok := resp.(*kmsg.ApiVersionsResponse); ok && v.ErrorCode == 35 {
				resp.SetVersion(0)
			}
		}
		flex := resp.IsFlexible() && p.h.key != 18
		out = appendResponse(slices.Grow(out[:0], responseHint(resp)), p.h.corr, flex, resp)
		c.nc.SetWriteDeadline(time.Now().Add(c.s.writeTimeout))
		if _, err := c.nc.Write(out); err != nil {
			c.end("write failed", true)
			return
		}
		if cap(out) > keepWriteBuf {
			out = nil // one large Fetch response does not pin its buffer to the connection
		}
	}
}

// responseHint is about how many bytes resp encodes to when most of
// them are records (a Fetch response), so its frame is allocated once;
// 0 otherwise.
func responseHint(resp kmsg.Response) int {
	f, ok := resp.(*kmsg.FetchResponse)
	if !ok {
		return 0
	}
	n := 64
	for _, t := range f.Topics {
		n += len(t.Topic) + 16
		for _, p := range t.Partitions {
			n += len(p.RecordBatches) + 64
		}
	}
	return n
}

// ended reports whether the connection has ended.
func (c *conn) ended() bool {
	select {
	case <-c.gone:
		return true
	default:
		return false
	}
}

// end closes the connection once. tellCore is false when the core itself
// closed it (EvConnClose), true when the client or the listener did.
func (c *conn) end(why string, tellCore bool) {
	c.once.Do(func() {
		c.why = why
		close(c.gone)
		c.nc.Close()
		c.s.dropConn(c)
		if tellCore {
			go c.s.backend.Apply(context.Background(), core.CloseConn{Conn: c.name})
		}
	})
}

// label is what the picture writes by a request and its response: API
// and version, then the client software's name/version when the client
// gave them in ApiVersions v3+ (KIP-511), then note (the handler's: a
// Fetch's session), e.g. "Fetch v12 kgo/v1.22.3 session=81 epoch=4",
// printable ASCII within core.MaxLabelBytes.
func (c *conn) label(h header, note string) string {
	l := fmt.Sprintf("%s v%d", kmsg.NameForKey(h.key), h.version)
	if len(note) > core.MaxLabelBytes/2 {
		note = ""
	}
	c.mu.Lock()
	name, ver := c.softwareName, c.softwareVersion
	c.mu.Unlock()
	if name != "" {
		sw := name
		if ver != "" {
			sw += "/" + ver
		}
		room := core.MaxLabelBytes - len(l) - 1
		if note != "" {
			room -= len(note) + 1
		}
		if sw = asciiLabel(sw, room); sw != "" {
			l += " " + sw
		}
	}
	if note != "" {
		l += " " + note
	}
	return l
}

// asciiLabel keeps s's printable ASCII (spaces become '-'), at most n bytes.
func asciiLabel(s string, n int) string {
	out := make([]byte, 0, min(len(s), max(n, 0)))
	for i := 0; i < len(s) && len(out) < n; i++ {
		switch ch := s[i]; {
		case ch == ' ':
			out = append(out, '-')
		case ch > ' ' && ch < 0x7f:
			out = append(out, ch)
		}
	}
	return string(out)
}
