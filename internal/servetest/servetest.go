// Package servetest starts, inside a test's process and on loopback,
// the listeners `kafkasim serve` puts around a server.Server: its HTTP
// handler (the app, the classroom API, the rooms' websockets) and its
// default room's Kafka and ZooKeeper listeners. Everything it starts is
// closed when the test ends; Steps and Replay parse and replay a
// room's history as a page would. Only tests import it (wasm/app's live
// tests, internal/webapp's browser tests).
package servetest

import (
	"context"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"testing"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/scenario"
	"github.com/kafkasim/kafkasim/server"
	"github.com/kafkasim/kafkasim/server/kafka"
	"github.com/kafkasim/kafkasim/server/zookeeper"
	"github.com/kafkasim/kafkasim/wasm/session"
)

// HTTP serves srv's handler on a free loopback port and returns its
// URL, http://HOST:PORT/. srv is closed with it.
func HTTP(t testing.TB, srv *server.Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: srv.Handler()}
	go hs.Serve(ln)
	t.Cleanup(func() { srv.Close(); hs.Close() })
	return "http://" + ln.Addr().String() + "/"
}

// Listeners starts srv's default room's Kafka listeners (broker N on
// base+N-1, base a free port from 20000 up, tried up to 20 times) and
// its ZooKeeper listener (a free port), and returns broker 1's
// host:port and ZooKeeper's.
func Listeners(t testing.TB, srv *server.Server) (kafkaAddr, zkAddr string) {
	t.Helper()
	for try := 0; try < 20 && kafkaAddr == ""; try++ {
		port := 20000 + rand.IntN(30000)
		ks := kafka.NewServer(kafka.FromRoom(srv.DefaultRoom()), kafka.Config{Host: "127.0.0.1", BasePort: port})
		if err := ks.Start(context.Background()); err != nil {
			ks.Close()
			continue
		}
		t.Cleanup(func() { ks.Close() })
		kafkaAddr = "127.0.0.1:" + strconv.Itoa(port)
	}
	if kafkaAddr == "" {
		t.Fatal("no free ports for the Kafka listeners")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	zs := zookeeper.Serve(ln, srv.DefaultRoom(), zookeeper.Config{})
	t.Cleanup(func() { zs.Close() })
	return kafkaAddr, zs.Addr().String()
}

// Steps parses a scenario's text, failing t on an error.
func Steps(t testing.TB, text string) []scenario.Step {
	t.Helper()
	sc, err := scenario.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	return sc.Steps
}

// Replay is what replaying a room's history (a .ksim) in a fresh page
// session gives at virtual time at: its trace hash and its cluster's
// snapshot, to compare with what a page in live mode holds.
func Replay(t testing.TB, ksim string, at int64) (string, *core.Snapshot) {
	t.Helper()
	d, err := session.NewDriver(Steps(t, ksim), session.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.RunTo(at); err != nil {
		t.Fatal(err)
	}
	return d.TraceHash(), d.Cluster().Snapshot()
}
