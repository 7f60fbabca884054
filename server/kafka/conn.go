package kafka

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// reqCtx is what a handler knows about the request it serves.
type reqCtx struct {
	s      *Server
	c      *conn
	broker int // the simulated broker this listener is
	h      header
}

// conn is one client connection to one simulated broker's listener.
type conn struct {
	s      *Server
	broker int
	nc     net.Conn
	name   string // the connection's node name in the simulated network
	mu     sync.Mutex
	closed bool

	// Set by ApiVersions v3+ (KIP-511): shown with the connection's
	// traffic in the picture.
	softwareName, softwareVersion string
}

// serve reads and answers requests one at a time, in order, until the
// client goes away or sends something Kafka would close the connection
// for. It never panics: a handler that does is this connection's
// problem, reported and closed.
func (c *conn) serve() {
	defer c.close()
	defer func() {
		if r := recover(); r != nil {
			c.s.logf("kafka: broker %d: %s: internal error, connection closed: %v", c.broker, c.nc.RemoteAddr(), r)
		}
	}()
	r := bufio.NewReaderSize(c.nc, 64<<10)
	var out []byte
	for {
		if c.s.idle > 0 {
			c.nc.SetReadDeadline(time.Now().Add(c.s.idle))
		}
		frame, err := readFrame(r, c.s.maxFrame)
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				c.s.logf("kafka: broker %d: %s: %v; connection closed", c.broker, c.nc.RemoteAddr(), err)
			}
			return
		}
		resp, flexHdr, corr, err := c.handle(frame)
		if err != nil {
			c.s.logf("kafka: broker %d: %s: %v; connection closed", c.broker, c.nc.RemoteAddr(), err)
			return
		}
		if resp == nil {
			continue // acks=0 Produce: no response at all
		}
		out = appendResponse(out[:0], corr, flexHdr, resp.AppendTo(nil))
		c.nc.SetWriteDeadline(time.Now().Add(c.s.writeTimeout))
		if _, err := c.nc.Write(out); err != nil {
			return
		}
	}
}

// handle decodes one request and runs its handler. An error means close
// the connection.
func (c *conn) handle(frame []byte) (resp kmsg.Response, flexHdr bool, corr int32, err error) {
	h, body, err := parseHeader(frame)
	if err != nil {
		return nil, false, 0, err
	}
	a := apis[h.key]
	if a == nil {
		// Kafka cannot even parse the header of an unknown API
		// (InvalidRequestException in RequestHeader.parse): it closes
		// the connection.
		return nil, false, h.corr, fmt.Errorf("unknown API key %d", h.key)
	}
	req := kmsg.RequestForKey(h.key)
	if h.version < a.min || h.version > a.max || h.version > req.MaxVersion() {
		if h.key == 18 {
			// ApiVersions with a version we do not know: a v0 response
			// with UNSUPPORTED_VERSION and our ranges, so the client can
			// retry with one we support (KIP-511).
			return apiVersionsResponse(0, 35), false, h.corr, nil
		}
		return nil, false, h.corr, fmt.Errorf("%s v%d not supported (supported: v%d-v%d)", kmsg.NameForKey(h.key), h.version, a.min, a.max)
	}
	req.SetVersion(h.version)
	if req.IsFlexible() && !(h.key == 7 && h.version == 0) {
		if body, err = skipTags(body); err != nil {
			return nil, false, h.corr, fmt.Errorf("%s v%d: %v", kmsg.NameForKey(h.key), h.version, err)
		}
	}
	if err := req.ReadFrom(body); err != nil {
		if h.key == 18 && h.version >= 3 {
			// librdkafka and others fall back to v0 on INVALID_REQUEST.
			return apiVersionsResponse(h.version, 42), false, h.corr, nil
		}
		return nil, false, h.corr, fmt.Errorf("%s v%d: malformed body: %v", kmsg.NameForKey(h.key), h.version, err)
	}
	cx := &reqCtx{s: c.s, c: c, broker: c.broker, h: h}
	resp, err = a.handle(cx, req)
	if err != nil || resp == nil {
		return nil, false, h.corr, err
	}
	resp.SetVersion(h.version)
	return resp, resp.IsFlexible() && h.key != 18, h.corr, nil
}

func (c *conn) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.closed = true
	c.nc.Close()
	c.s.dropConn(c)
}
