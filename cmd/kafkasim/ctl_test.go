package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core/scenario"
)

// startServe runs `kafkasim serve` (no Kafka listeners) on a free
// loopback port until the test ends and returns its URL and printed
// banner.
func startServe(t *testing.T, args ...string) (string, string) {
	t.Helper()
	web, out, _ := serveAt(t, append([]string{"--kafka-listen", "off"}, args...)...)
	return web, out.String()
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// runCtl runs `kafkasim ctl -s URL ARGS...`.
func runCtl(t *testing.T, url string, stdin string, args ...string) (int, string, string) {
	t.Helper()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	code := ctlWithStdin(ctx, append([]string{"-s", url}, args...), strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestServeWithScenarioAndCtl: `kafkasim serve --scenario` serves the
// scenario's cluster; `kafkasim ctl` creates a room, drives it, loads a
// file, tails events as text and JSON lines, prints a snapshot and the
// history, and shares a scenario, all against the running server.
func TestServeWithScenarioAndCtl(t *testing.T) {
	scen := writeFile(t, "orders.ksim", "cluster brokers=4 seed=3 version=2.8 metadata=zk\ntopic create orders partitions=2 rf=3\n")
	url, banner := startServe(t, "--scenario", scen, "--speed", "5")
	for _, want := range []string{"serving orders.ksim on " + url, "room ", "teacher: " + url + "/classroom?room=", "#token=", "--listen 0.0.0.0:"} {
		if !strings.Contains(banner, want) {
			t.Fatalf("banner misses %q:\n%s", want, banner)
		}
	}
	// The default room has the scenario's cluster.
	code, out, errs := runCtl(t, url, "", "snapshot")
	if code != 0 {
		t.Fatalf("snapshot: %d %s", code, errs)
	}
	var snap struct {
		Snapshot struct {
			Version, Metadata string
			Brokers           []struct{ ID int }
			Topics            []struct{ Name string }
		}
	}
	if err := json.Unmarshal([]byte(out), &snap); err != nil || snap.Snapshot.Version != "2.8" || snap.Snapshot.Metadata != "zk" || len(snap.Snapshot.Brokers) != 4 {
		t.Fatalf("default room snapshot: %v\n%s", err, out)
	}
	// A teacher's room from a file.
	lesson := writeFile(t, "lesson.ksim", "cluster brokers=3 seed=9\ntopic create t partitions=1 rf=3\nproducer p acks=all\n")
	code, out, errs = runCtl(t, url, "", "create", "-json", "-speed", "10", lesson)
	if code != 0 {
		t.Fatalf("create: %d %s", code, errs)
	}
	var room struct{ Code, Token, Join string }
	if err := json.Unmarshal([]byte(out), &room); err != nil || room.Code == "" || room.Token == "" || !strings.HasSuffix(room.Join, "?room="+room.Code) {
		t.Fatalf("create: %v %s", err, out)
	}
	auth := []string{"-room", room.Code, "-token", room.Token}
	// Tail in the background while commands run.
	tailDone := make(chan string, 1)
	go func() {
		_, out, errs := runCtl(t, url, "", "-room", room.Code, "tail", "-json", "-v", "-n", "200")
		tailDone <- out + errs
	}()
	time.Sleep(200 * time.Millisecond) // let the tail connect
	if code, _, errs := runCtl(t, url, "", append(auth, "cmd", "produce p t value=a", "produce p t value=b")...); code != 0 {
		t.Fatalf("cmd: %d %s", code, errs)
	}
	if code, _, errs := runCtl(t, url, "produce p t value=c\nsettle\nexpect acked p == a,b,c\n", append(auth, "cmd", "-")...); code != 0 {
		t.Fatalf("cmd from stdin: %d %s", code, errs)
	}
	var tailed string
	select {
	case tailed = <-tailDone:
	case <-time.After(60 * time.Second):
		t.Fatal("tail -n 40 did not finish")
	}
	lines := strings.Split(strings.TrimSpace(tailed), "\n")
	if len(lines) < 40 {
		t.Fatalf("tail printed %d lines:\n%s", len(lines), tailed)
	}
	sawAck := false
	for _, l := range lines {
		var ev map[string]any
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("tail -json line %q: %v", l, err)
		}
		sawAck = sawAck || ev["type"] == "produce.ack"
	}
	if !sawAck {
		t.Fatalf("no produce.ack in the tail:\n%s", tailed)
	}
	// Text tail of a few events.
	textDone := make(chan string, 1)
	go func() {
		code, out, errs := runCtl(t, url, "", "-room", room.Code, "tail", "-n", "6", "-for", "8s")
		textDone <- strconv.Itoa(code) + "\n" + out + errs
	}()
	time.Sleep(200 * time.Millisecond)
	if code, _, errs := runCtl(t, url, "", append(auth, "cmd", "crash broker 2")...); code != 0 {
		t.Fatalf("crash: %s", errs)
	}
	text := <-textDone
	tl := strings.Split(strings.TrimSpace(text), "\n")
	// Replication of the earlier records may still be streaming: the
	// crash is among the next events, each a trace line.
	if tl[0] != "0" || len(tl) < 3 || !strings.Contains(tl[1], "-- join snapshot of lesson.ksim") || !strings.Contains(text, "crashed") {
		t.Fatalf("text tail:\n%s", text)
	}
	for _, l := range tl[2:] {
		if !regexp.MustCompile(`^\s*\d+\.\d{3}s  \S`).MatchString(l) {
			t.Fatalf("text tail line %q", l)
		}
	}
	// A failed expect and a parse error exit 1 and say where.
	code, _, errs = runCtl(t, url, "", append(auth, "cmd", "expect acked p == z")...)
	if code != 1 || !strings.Contains(errs, "1: expect failed") {
		t.Fatalf("failed expect: %d %s", code, errs)
	}
	code, _, errs = runCtl(t, url, "", append(auth, "cmd", "produce p t value=x\ncrash broker nine")...)
	if code != 1 || !strings.Contains(errs, "2:14:") {
		t.Fatalf("parse error: %d %s", code, errs)
	}
	// Without the token, no driving.
	code, _, errs = runCtl(t, url, "", "-room", room.Code, "cmd", "crash broker 1")
	if code != 2 || !strings.Contains(errs, "control token") {
		t.Fatalf("no token: %d %s", code, errs)
	}
	code, _, errs = runCtl(t, url, "", "-room", room.Code, "-token", "wrong", "reset")
	if code != 1 || !strings.Contains(errs, "forbidden") {
		t.Fatalf("wrong token: %d %s", code, errs)
	}
	// The history replays to a cluster with what was done.
	code, hist, errs := runCtl(t, url, "", "-room", room.Code, "history")
	if code != 0 || !strings.Contains(hist, "produce p t value=c") || !strings.Contains(hist, "crash broker 2") {
		t.Fatalf("history: %d %s\n%s", code, errs, hist)
	}
	sc, err := scenario.Parse(hist)
	if err != nil {
		t.Fatal(err)
	}
	res, err := scenario.Run(sc, scenario.RunOptions{NoTrace: true})
	if err != nil || len(res.Failures) > 0 || res.Cluster.Snapshot().Brokers[1].State != "crashed" {
		t.Fatalf("replaying the history: %v %v", err, res.Failures)
	}
	// Load replaces the scenario; reset, speed and advance work.
	other := writeFile(t, "two.ksim", "cluster brokers=2 seed=1 version=0.11\n")
	if code, _, errs := runCtl(t, url, "", append(auth, "load", other)...); code != 0 {
		t.Fatalf("load: %s", errs)
	}
	bad := writeFile(t, "bad.ksim", "cluster brokers=2\ntopic create\n")
	if code, _, errs := runCtl(t, url, "", append(auth, "load", bad)...); code != 1 || !strings.Contains(errs, "bad.ksim:2:") {
		t.Fatalf("bad load: %d %s", code, errs)
	}
	for _, args := range [][]string{{"speed", "0"}, {"advance", "1500ms"}, {"reset"}} {
		if code, _, errs := runCtl(t, url, "", append(auth, args...)...); code != 0 {
			t.Fatalf("%v: %s", args, errs)
		}
	}
	code, out, _ = runCtl(t, url, "", "-room", room.Code, "info")
	if code != 0 || !strings.Contains(out, "two.ksim") || !strings.Contains(out, "speed 0") {
		t.Fatalf("info: %s", out)
	}
	// Share and fetch back.
	code, out, errs = runCtl(t, url, "", "share", lesson)
	if code != 0 {
		t.Fatalf("share: %s", errs)
	}
	id := strings.Fields(out)[0]
	code, back, _ := runCtl(t, url, "", "shared", id)
	src, _ := os.ReadFile(lesson)
	if code != 0 || back != string(src) {
		t.Fatalf("shared %s: %q", id, back)
	}
	if !bufio.NewScanner(strings.NewReader(out)).Scan() {
		t.Fatal("share printed nothing")
	}
}

// TestServeDefaultCluster: without --scenario, 3 brokers of the newest
// preset; a bad scenario file is a FILE:LINE:COL error.
func TestServeDefaultCluster(t *testing.T) {
	url, _ := startServe(t)
	code, out, errs := runCtl(t, url, "", "snapshot")
	if code != 0 || !strings.Contains(out, `"version": "4.0"`) || strings.Count(out, `"state": "up"`) != 3 {
		t.Fatalf("%d %s\n%s", code, errs, out)
	}
	bad := writeFile(t, "bad.ksim", "cluster brokers=3\nproduce\n")
	var o, e bytes.Buffer
	if c := serve(context.Background(), []string{"--listen", "127.0.0.1:0", "--no-app", "--zookeeper", "off", "--kafka-listen", "off", "--scenario", bad}, &o, &e, nil); c != 2 || !strings.Contains(e.String(), "bad.ksim:2:") {
		t.Fatalf("bad scenario: %d %s", c, e.String())
	}
}
