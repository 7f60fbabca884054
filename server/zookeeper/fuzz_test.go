package zookeeper

import (
	"encoding/binary"
	"net"
	"testing"

	"github.com/kafkasim/kafkasim/core"
)

// fuzzClusters are a ZooKeeper-mode and a KRaft cluster to answer fuzzed
// requests from (built once; answering only reads them).
func fuzzClusters(f *testing.F) (*core.Cluster, *core.Cluster) {
	mk := func(meta string) *core.Cluster {
		c, err := core.New(core.Options{Brokers: 3, Seed: 1, Version: "2.8", Metadata: meta})
		if err != nil {
			f.Fatal(err)
		}
		_ = c.Apply(core.CreateTopic{Topic: "t", Partitions: 2, RF: 2})
		if _, err := c.Advance(3000); err != nil {
			f.Fatal(err)
		}
		return c
	}
	return mk("zk"), mk("kraft")
}

// FuzzFrame feeds one frame to the decoder and, when it decodes, to the
// ZooKeeper and KRaft request handlers: nothing may panic, every reply
// must be a well-formed frame, and a decoded connect request must encode
// back to the same bytes.
func FuzzFrame(f *testing.F) {
	f.Add(connectFrame()[4:])
	f.Add(newFrame().int32(1).int32(4).ustring("/brokers/ids").bool(true).done()[4:])
	f.Add(newFrame().int32(2).int32(12).ustring("/").bool(false).done()[4:])
	f.Add(newFrame().int32(3).int32(3).ustring("/nope").bool(true).done()[4:])
	f.Add(newFrame().int32(-8).int32(101).int64(5).strings([]string{"/a"}).strings(nil).strings([]string{"/brokers"}).done()[4:])
	f.Add(newFrame().int32(-8).int32(105).int64(5).strings(nil).strings(nil).strings(nil).strings([]string{"/p"}).strings(nil).done()[4:])
	f.Add(newFrame().int32(-2).int32(11).done()[4:])
	f.Add(newFrame().int32(4).int32(18).ustring("/brokers").int32(3).done()[4:])
	f.Add(newFrame().int32(-4).int32(100).int32(0).ustring("digest").buffer([]byte("u:p")).done()[4:])
	f.Add(newFrame().int32(7).int32(1).ustring("/x").buffer(nil).done()[4:])
	f.Add(newFrame().int32(8).int32(104).ustring("/").done()[4:])
	f.Add(newFrame().int32(9).int32(-11).done()[4:])
	f.Add(newFrame().int32(10).int32(2).ustring("/controller").int32(-1).done()[4:])
	zkc, kraft := fuzzClusters(f)
	srv := &Server{cfg: Config{Logf: func(string, ...any) {}}}
	f.Fuzz(func(t *testing.T, frame []byte) {
		if cr, err := decodeConnect(frame); err == nil {
			e := newFrame().int32(cr.protocolVersion).int64(cr.lastZxidSeen).int32(cr.timeout).int64(cr.sessionID).buffer(cr.passwd)
			if cr.hasReadOnly {
				e.bool(cr.readOnly)
			}
			odd := cr.hasReadOnly && frame[len(frame)-1] > 1 // any non-zero byte reads as true
			if got := e.done()[4:]; string(got) != string(frame) && !odd {
				t.Fatalf("connect request does not round-trip: %x -> %x", frame, got)
			}
		}
		r, spec, err := decodeRequest(frame)
		if err != nil {
			return
		}
		a, b := net.Pipe()
		defer a.Close()
		defer b.Close()
		c := newConn(srv, a)
		zk := zkc.ZooKeeper()
		s, _ := zk.OpenSession(10000, func(core.ZKWatchEvent) {})
		c.sid = s.ID
		defer zk.CloseSession(s.ID)
		for _, reply := range [][]byte{first(c.serve(zk, r, spec)), first(serveKraft(kraft, r, spec))} {
			if len(reply) < 20 || int(binary.BigEndian.Uint32(reply)) != len(reply)-4 {
				t.Fatalf("%s: malformed reply %x", spec.name, reply)
			}
		}
	})
}

func first(b []byte, _ bool) []byte { return b }
