package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// serveFor runs serve with args until the returned stop is called; stop
// returns serve's stderr.
func serveFor(t *testing.T, args ...string) (stop func() string) {
	t.Helper()
	_, _, stop = serveAt(t, args...)
	return stop
}

// serveAt is serveFor that also returns the web address serve listens on
// (http://HOST:PORT) and what it prints (its banner is there on return).
// Without the args that say otherwise, serve runs without the app and
// without ZooKeeper.
func serveAt(t *testing.T, args ...string) (web string, out *syncBuf, stop func() string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	out = new(syncBuf)
	var errb syncBuf
	done := make(chan int, 1)
	go func() {
		done <- serve(ctx, append([]string{"--listen", "127.0.0.1:0", "--no-app", "--zookeeper", "off"}, args...), out, &errb, func(a string) { addr <- a })
	}()
	stopped := false
	stop = func() string {
		if !stopped {
			stopped = true
			cancel()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Error("serve did not stop")
			}
		}
		return errb.String()
	}
	t.Cleanup(func() { stop() })
	select {
	case web = <-addr:
	case code := <-done:
		t.Fatalf("serve exited %d: %s", code, errb.String())
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not start")
	}
	if !strings.HasPrefix(web, "http") {
		web = "http://" + web
	}
	return web, out, stop
}

// TestServeLocalNetwork: the room `kafkasim serve` serves to real Kafka
// clients runs on a local network (room.LocalNetwork: 1 ms hops), in its
// history for a replay to do the same; a room made with `ctl create`
// keeps the scenario's own network.
func TestServeLocalNetwork(t *testing.T) {
	web, _, stop := serveAt(t, "--kafka-listen", "off")
	defer stop()
	code, hist, errs := runCtl(t, web, "", "history")
	if code != 0 || !strings.Contains(hist, "set net.latency.ms=1 net.client.latency.ms=0") {
		t.Fatalf("the default room's history (exit %d, %s) does not set the local network:\n%s", code, errs, hist)
	}
	code, out, errs := runCtl(t, web, "", "create", "-json")
	if code != 0 {
		t.Fatalf("create: %d %s", code, errs)
	}
	var created struct{ Code string }
	if err := json.Unmarshal([]byte(out), &created); err != nil || created.Code == "" {
		t.Fatalf("create printed %q: %v", out, err)
	}
	code, hist, errs = runCtl(t, web, "", "-room", created.Code, "history")
	if code != 0 || strings.Contains(hist, "net.latency.ms") {
		t.Fatalf("a created room's history (exit %d, %s) sets the network:\n%s", code, errs, hist)
	}
}
