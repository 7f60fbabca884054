package kafka

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/log"
	"github.com/kafkasim/kafkasim/internal/recordbatch"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// stepBackend runs a cluster without a clock of its own: every Apply
// advances it stepMs, so a request's answer comes within the call that
// sent it when the network allows, and advance moves time on. Watchers
// see the events under the lock, as a room's hooks do on its goroutine.
type stepBackend struct {
	mu    sync.Mutex
	c     *core.Cluster
	watch func(*core.Cluster, []core.Event, bool)
}

const stepMs = 20

func newStepBackend(tb testing.TB) *stepBackend {
	c, err := core.New(core.Options{Brokers: 3, Seed: 1, Version: "3.9", Metadata: "kraft"})
	if err != nil {
		tb.Fatal(err)
	}
	if err := c.Apply(core.CreateTopic{Topic: "t", Partitions: 2, RF: 3}); err != nil {
		tb.Fatal(err)
	}
	c.Advance(5000)
	c.Events()
	return &stepBackend{c: c}
}

func (b *stepBackend) flush() {
	if evs := b.c.Events(); len(evs) > 0 && b.watch != nil {
		b.watch(b.c, evs, false)
	}
}

func (b *stepBackend) Apply(ctx context.Context, cmd core.Command) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	err := b.c.Apply(cmd)
	b.c.Advance(stepMs)
	b.flush()
	return err
}

func (b *stepBackend) Do(ctx context.Context, fn func(*core.Cluster)) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	fn(b.c)
	b.flush()
	return nil
}

func (b *stepBackend) Watch(fn func(*core.Cluster, []core.Event, bool)) (func(), error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.watch = fn
	return func() { b.mu.Lock(); b.watch = nil; b.mu.Unlock() }, nil
}

func (b *stepBackend) advance(ms int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.c.Advance(ms)
	b.flush()
}

// quietLog keeps a server's log for a fuzz input, unprinted.
type quietLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *quietLog) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() < 1<<16 {
		fmt.Fprintf(&l.b, format+"\n", args...)
	}
}

func (l *quietLog) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// pipeConn serves one end of a net.Pipe as a connection to broker 1 of
// s, as the listener's accept does, and returns the other end.
func pipeConn(t *testing.T, s *Server) (net.Conn, *conn) {
	cli, srv := net.Pipe()
	c := s.addConn(1, srv, false)
	if c == nil {
		t.Fatal("server closed")
	}
	go c.serve()
	return cli, c
}

// feed writes in on a new connection, hangs up, and moves simulated time
// on until the connection has ended (or ends it: a Fetch may wait as
// long as its max wait, which the client chooses).
func feed(t *testing.T, b *stepBackend, s *Server, in []byte) {
	cli, c := pipeConn(t, s)
	go io.Copy(io.Discard, cli)
	go func() {
		cli.SetWriteDeadline(time.Now().Add(2 * time.Second))
		cli.Write(in)
		cli.Close()
	}()
	for i := 0; i < 400 && !c.ended(); i++ {
		b.advance(250)
		time.Sleep(50 * time.Microsecond)
	}
	c.end("fuzz input done", true)
}

// answered reports whether a new connection gets ApiVersions answered.
func answered(t *testing.T, s *Server) bool {
	cli, c := pipeConn(t, s)
	defer c.end("check done", true)
	defer cli.Close()
	cli.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := cli.Write(frame(18, 0, 7, nil)); err != nil {
		return false
	}
	var sz [8]byte
	if _, err := io.ReadFull(cli, sz[:]); err != nil {
		return false
	}
	return binary.BigEndian.Uint32(sz[4:]) == 7
}

// FuzzConn: any bytes a client sends, split into frames by the real
// reader (readFrame) and served by the real loop (conn.serve, the core
// behind it), neither panic (serve and the writer recover and log
// "internal error", which fails here) nor keep the next connection from
// being answered.
func FuzzConn(f *testing.F) {
	md := kmsg.NewPtrMetadataRequest()
	md.Version = 9
	rec := encode(recordbatch.Batch{Records: []log.Record{{Value: "v"}}})
	fetch := kmsg.NewPtrFetchRequest()
	fetch.Version, fetch.MaxWaitMillis, fetch.MaxBytes = 11, 100, 1<<20
	ft := kmsg.NewFetchRequestTopic()
	ft.Topic = "t"
	fp := kmsg.NewFetchRequestTopicPartition()
	fp.PartitionMaxBytes = 1 << 20
	ft.Partitions = append(ft.Partitions, fp)
	fetch.Topics = append(fetch.Topics, ft)
	seeds := [][]byte{
		frame(18, 3, 1, []byte{0, 0, 0}),
		frame(3, 9, 1, md.AppendTo(nil)),
		append(frame(0, 3, 1, produceV3(nil, rec)), frame(1, 11, 2, fetch.AppendTo(nil))...),
		append(frame(18, 0, 1, nil), frame(3, 9, 2, md.AppendTo(nil))...),
		binary.BigEndian.AppendUint32(nil, 1<<30),
		{0xff, 0xff, 0xff, 0xff},
		{0, 0, 0, 2, 0},
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		hung := time.AfterFunc(8*time.Second, func() {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			panic(fmt.Sprintf("an input hung for 8 s: %q\n%s", in, buf))
		})
		defer hung.Stop()
		b := newStepBackend(t)
		logs := &quietLog{}
		s := NewServer(b, Config{Logf: logs.logf, MaxInFlight: 4})
		if _, err := s.attach(context.Background()); err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		feed(t, b, s, in)
		if !answered(t, s) {
			t.Fatalf("a new connection was not answered after the input; log:\n%s", logs)
		}
		if strings.Contains(logs.String(), "internal error") {
			t.Fatalf("the input hit a panic; log:\n%s", logs)
		}
	})
}
