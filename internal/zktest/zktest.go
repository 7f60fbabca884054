// Package zktest connects go-zookeeper's client, as the tests that point
// a real ZooKeeper client at kafkasim's ZooKeeper listener do
// (server/zookeeper, cmd/kafkasim, wasm/app, internal/canvasdev,
// internal/webapp). Only tests import it.
package zktest

import (
	"fmt"
	"testing"
	"time"

	gozk "github.com/go-zookeeper/zk"
)

// SessionWait is how long Session waits for the session to be
// established.
const SessionWait = 10 * time.Second

// quiet drops go-zookeeper's log lines.
type quiet struct{}

func (quiet) Printf(string, ...any) {}

// Session connects to addr with the given session timeout, logging
// nothing, and returns once the session is established (at most
// SessionWait), with the connection's event channel; the caller closes
// the connection. It may run on any goroutine.
func Session(addr string, timeout time.Duration) (*gozk.Conn, <-chan gozk.Event, error) {
	conn, events, err := gozk.Connect([]string{addr}, timeout, gozk.WithLogger(quiet{}))
	if err != nil {
		return nil, nil, err
	}
	deadline := time.After(SessionWait)
	for conn.State() != gozk.StateHasSession {
		select {
		case ev := <-events:
			if ev.State == gozk.StateHasSession {
				return conn, events, nil
			}
		case <-deadline:
			st := conn.State()
			conn.Close()
			return nil, nil, fmt.Errorf("no ZooKeeper session with %s in %v (state %v)", addr, SessionWait, st)
		}
	}
	return conn, events, nil
}

// MustSession is Session on the test's goroutine: it fails t instead of
// returning an error, and closes the connection when the test ends.
func MustSession(t testing.TB, addr string, timeout time.Duration) (*gozk.Conn, <-chan gozk.Event) {
	t.Helper()
	conn, events, err := Session(addr, timeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	return conn, events
}
