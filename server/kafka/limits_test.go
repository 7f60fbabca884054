package kafka

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestConnLimitWaits: past MaxConns a new connection is accepted and
// left unread, not closed, as Kafka's Acceptor waits for a slot past
// max.connections; the open connections keep working, and when one
// closes the waiting one is served, its request answered.
func TestConnLimitWaits(t *testing.T) {
	b := threeBrokers(t, "3.9", "kraft")
	s, addr := listenFreeWith(t, b, 3, Config{MaxConns: 2, Logf: t.Logf})
	t.Cleanup(func() { s.Close() })
	a := addrs(addr, 3)
	var open []net.Conn
	for _, to := range a[:2] {
		c, err := net.Dial("tcp", to)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if !askVersions(c, 2*time.Second) {
			t.Fatalf("connection to %s under the limit not answered", to)
		}
		open = append(open, c)
	}
	third, err := net.Dial("tcp", a[2])
	if err != nil {
		t.Fatalf("connecting past the limit: %v (the kernel's backlog takes it)", err)
	}
	defer third.Close()
	third.Write(frame(18, 0, 7, nil))
	third.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
	var ne net.Error
	if _, err := third.Read(make([]byte, 1)); !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("the connection past the limit: read %v, want it waiting (a timeout)", err)
	}
	if !askVersions(open[1], 2*time.Second) {
		t.Fatal("an open connection stopped working at the limit")
	}
	open[0].Close()
	third.SetReadDeadline(time.Now().Add(5 * time.Second))
	var hdr [8]byte
	if _, err := io.ReadFull(third, hdr[:]); err != nil || binary.BigEndian.Uint32(hdr[4:]) != 7 {
		t.Fatalf("the waiting connection once a slot freed: %v, correlation %d", err, binary.BigEndian.Uint32(hdr[4:]))
	}
}

// inflightBackend counts each connection's requests in the core that
// have no response yet, and the most ever.
type inflightBackend struct {
	*wallBackend
	mu       sync.Mutex
	now, max map[string]int
}

func (b *inflightBackend) Apply(ctx context.Context, cmd core.Command) error {
	if r, ok := cmd.(core.BrokerRequest); ok {
		b.mu.Lock()
		b.now[r.Conn]++
		b.max[r.Conn] = max(b.max[r.Conn], b.now[r.Conn])
		b.mu.Unlock()
	}
	return b.wallBackend.Apply(ctx, cmd)
}

func (b *inflightBackend) Watch(fn func(*core.Cluster, []core.Event, bool)) (func(), error) {
	return b.wallBackend.Watch(func(c *core.Cluster, evs []core.Event, reset bool) {
		b.mu.Lock()
		for _, e := range evs {
			if e.Type == core.EvResponse {
				b.now[e.Conn]--
			}
		}
		b.mu.Unlock()
		fn(c, evs, reset)
	})
}

// TestInFlightLimitWaits: a client pipelining more requests than
// MaxInFlight has the rest wait unread, as Kafka's Processor mutes the
// channel: never more than MaxInFlight in the core, none lost, every
// answer in request order, and another connection answered meanwhile.
func TestInFlightLimitWaits(t *testing.T) {
	b := &inflightBackend{wallBackend: threeBrokers(t, "3.9", "kraft"), now: map[string]int{}, max: map[string]int{}}
	s, addr := listenFreeWith(t, b, 3, Config{MaxInFlight: 2, Logf: t.Logf})
	t.Cleanup(func() { s.Close() })
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	md := kmsg.NewPtrMetadataRequest()
	md.Version = 1
	var burst bytes.Buffer
	const n = 30
	for corr := int32(1); corr <= n; corr++ {
		burst.Write(frame(3, 1, corr, md.AppendTo(nil)))
	}
	if _, err := c.Write(burst.Bytes()); err != nil {
		t.Fatal(err)
	}
	if !answers(addr) {
		t.Error("another connection not answered while one pipelines")
	}
	for corr := int32(1); corr <= n; corr++ {
		got, _, err := readResponse(c, 20*time.Second)
		if err != nil {
			t.Fatalf("response %d: %v", corr, err)
		}
		if got != corr {
			t.Fatalf("response %d has correlation %d", corr, got)
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	most := 0
	for _, m := range b.max {
		most = max(most, m)
	}
	if most != 2 {
		t.Errorf("at most %d requests of one connection in the core at once, want MaxInFlight = 2", most)
	}
}
