package kafka

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
)

// logLines collects a server's log for a test to wait on.
type logLines struct {
	mu    sync.Mutex
	lines []string
	t     testing.TB
}

func (l *logLines) logf(format string, args ...any) {
	l.mu.Lock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
	l.mu.Unlock()
	l.t.Logf(format, args...)
}

func (l *logLines) has(s string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range l.lines {
		if strings.Contains(line, s) {
			return true
		}
	}
	return false
}

// refused reports whether connecting to addr gets ECONNREFUSED.
func refused(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err == nil {
		c.Close()
	}
	return errors.Is(err, syscall.ECONNREFUSED)
}

// askVersions sends ApiVersions v0 on c and reports whether its answer
// came within wait.
func askVersions(c net.Conn, wait time.Duration) bool {
	c.Write(frame(18, 0, 1, nil))
	corr, _, err := readResponse(c, wait)
	return err == nil && corr == 1
}

// answers reports whether a new connection to addr gets ApiVersions
// answered within two seconds.
func answers(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	return askVersions(c, 2*time.Second)
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for end := time.Now().Add(15 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// TestListenCrashRefuses: a crashed broker has no listening socket, so a
// client connecting gets connection refused, as from a dead Kafka
// process; its open connections close and the other brokers' listeners
// go on. The restart listens again on the same address, and a port taken
// meanwhile by another process is said in the log and retried until it
// is free.
func TestListenCrashRefuses(t *testing.T) {
	b := threeBrokers(t, "3.9", "kraft")
	logs := &logLines{t: t}
	s, addr := listenFreeWith(t, b, 3, Config{Logf: logs.logf})
	t.Cleanup(func() { s.Close() })
	a := addrs(addr, 3)
	ctx := context.Background()
	old, err := net.Dial("tcp", a[1])
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if !askVersions(old, 2*time.Second) {
		t.Fatal("broker 2 did not answer before the crash")
	}
	if err := b.Apply(ctx, core.CrashBroker{Broker: 2}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "broker 2's port refusing connections", func() bool { return refused(a[1]) })
	old.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := old.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("the crashed broker's open connection: read %v, want EOF", err)
	}
	for _, other := range []string{a[0], a[2]} {
		if !answers(other) {
			t.Errorf("%s does not answer while broker 2 is down", other)
		}
	}
	squat, err := net.Listen("tcp", a[1])
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Apply(ctx, core.Restart{Broker: 2}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the log saying broker 2 cannot listen", func() bool { return logs.has("broker 2: listen tcp " + a[1]) })
	squat.Close()
	waitFor(t, "broker 2 answering again", func() bool { return answers(a[1]) })
	waitFor(t, "the log saying broker 2 listens again", func() bool { return logs.has("broker 2: listening on " + a[1] + " again") })
}

// TestListenPausedAndPoweredOffKeepSocket: a paused broker (a SIGSTOPped
// process) keeps its socket, so a connect succeeds and nothing answers;
// a powered-off one keeps it too, since a machine without power sends no
// reset: the core lets that connection's connect time out, as a real
// client's would.
func TestListenPausedAndPoweredOffKeepSocket(t *testing.T) {
	b := threeBrokers(t, "3.9", "kraft")
	_, addr := startServer(t, b, 3)
	a := addrs(addr, 3)
	ctx := context.Background()
	if err := b.Apply(ctx, core.Pause{Broker: 3}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // a socket closed by mistake would be closed by now
	c, err := net.DialTimeout("tcp", a[2], time.Second)
	if err != nil {
		t.Fatalf("connecting to a paused broker: %v", err)
	}
	if askVersions(c, 300*time.Millisecond) {
		t.Error("a paused broker answered")
	}
	c.Close()
	if err := b.Apply(ctx, core.Resume{Broker: 3}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "broker 3 answering after resume", func() bool { return answers(a[2]) })
	if err := b.Apply(ctx, core.PowerOff{Broker: 3}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if refused(a[2]) {
		t.Error("a powered-off broker refused the connection; its machine would not answer at all")
	}
	if err := b.Apply(ctx, core.Restart{Broker: 3}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "broker 3 answering after the restart", func() bool { return answers(a[2]) })
}
