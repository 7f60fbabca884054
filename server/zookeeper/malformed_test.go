package zookeeper

import (
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"
)

func rawDial(t *testing.T, s *Server) net.Conn {
	t.Helper()
	nc, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(5 * time.Second))
	return nc
}

// connectFrame is a valid ConnectRequest (new session, 10 s, readOnly flag).
func connectFrame() []byte {
	return newFrame().int32(0).int64(0).int32(10000).int64(0).buffer(make([]byte, 16)).bool(false).done()
}

// readReply reads one frame and returns its xid, zxid and error code.
func readReply(t *testing.T, nc net.Conn) (xid int32, zxid int64, code int32, body []byte) {
	t.Helper()
	var n [4]byte
	if _, err := io.ReadFull(nc, n[:]); err != nil {
		t.Fatalf("read reply: %v", err)
	}
	b := make([]byte, binary.BigEndian.Uint32(n[:]))
	if _, err := io.ReadFull(nc, b); err != nil {
		t.Fatal(err)
	}
	d := &decoder{b: b}
	xid, zxid, code = d.int32(), d.int64(), d.int32()
	return xid, zxid, code, d.b
}

// expectClosed asserts the server closes the connection.
func expectClosed(t *testing.T, nc net.Conn, what string) {
	t.Helper()
	buf := make([]byte, 1024)
	for {
		if _, err := nc.Read(buf); err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatalf("%s: connection still open", what)
			}
			return
		}
	}
}

// TestMalformedFrames: bad frames close their own connection (or get an
// error), never crash the listener, and never disturb another client.
func TestMalformedFrames(t *testing.T) {
	c := newZKClusterT(t, "2.8")
	_, s := serveCluster(t, c, Config{})
	good, _ := dial(t, s, 20*time.Second)

	cases := map[string][]byte{
		"garbage connect":   {0, 0, 0, 3, 1, 2, 3},
		"oversize length":   {0x7f, 0xff, 0xff, 0xff},
		"negative length":   {0xff, 0xff, 0xff, 0xfe},
		"bad protocol":      newFrame().int32(7).int64(0).int32(10000).int64(0).buffer(nil).done(),
		"trailing bytes":    append(connectFrame()[:0:0], newFrame().int32(0).int64(0).int32(1).int64(0).buffer(nil).bool(true).int32(9).done()...),
		"huge passwd claim": newFrame().int32(0).int64(0).int32(1).int64(0).int32(1 << 30).done(),
	}
	for name, frame := range cases {
		nc := rawDial(t, s)
		nc.Write(frame)
		expectClosed(t, nc, name)
	}

	// After a good connect: a truncated body closes; an unknown opcode gets
	// UNIMPLEMENTED, then the connection closes.
	after := map[string][]byte{
		"truncated getData": newFrame().int32(1).int32(4).int32(50).done(),
		"bad vector":        newFrame().int32(-8).int32(101).int64(0).int32(-5).done(),
		"non-UTF-8 path":    newFrame().int32(1).int32(3).buffer([]byte{'/', 0xff}).bool(false).done(),
	}
	for name, frame := range after {
		nc := rawDial(t, s)
		nc.Write(connectFrame())
		if _, _, _, body := readReply(t, nc); len(body) == 0 {
			t.Fatalf("%s: no connect response", name)
		}
		nc.Write(frame)
		expectClosed(t, nc, name)
	}
	nc := rawDial(t, s)
	nc.Write(connectFrame())
	readReply(t, nc)
	nc.Write(newFrame().int32(5).int32(9999).done())
	if xid, _, code, _ := readReply(t, nc); xid != 5 || code != errUnimplemented {
		t.Fatalf("unknown opcode: xid %d code %d", xid, code)
	}
	expectClosed(t, nc, "unknown opcode")

	// A read with a malformed path is a NONODE, not a closed connection.
	nc = rawDial(t, s)
	nc.Write(connectFrame())
	readReply(t, nc)
	nc.Write(newFrame().int32(6).int32(4).ustring("no-slash//x").bool(true).done())
	if xid, zxid, code, _ := readReply(t, nc); xid != 6 || code != errNoNode || zxid>>32 != 1 {
		t.Fatalf("bad path: xid %d zxid %x code %d", xid, zxid, code)
	}

	if _, _, err := good.Children("/brokers/ids"); err != nil {
		t.Fatalf("the well-behaved client was disturbed: %v", err)
	}
}

// TestConnLimit: past MaxConns a new connection is closed at once; the
// ones already open keep working.
func TestConnLimit(t *testing.T) {
	c := newZKClusterT(t, "2.8")
	_, s := serveCluster(t, c, Config{MaxConns: 2})
	a, _ := dial(t, s, 20*time.Second)
	b := rawDial(t, s)
	b.Write(connectFrame())
	readReply(t, b)
	extra := rawDial(t, s)
	expectClosed(t, extra, "third connection")
	if _, _, err := a.Children("/"); err != nil {
		t.Fatal(err)
	}
}
