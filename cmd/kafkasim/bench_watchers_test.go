package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/kafkasim/kafkasim/server/client"
	"github.com/kafkasim/kafkasim/server/protocol"
)

// TestMain lets BenchmarkWatchers run `kafkasim serve` in a child
// process (this test binary again), so the server's memory is its own.
func TestMain(m *testing.M) {
	if args := os.Getenv("KAFKASIM_BENCH_SERVE"); args != "" {
		os.Exit(serveCmd(strings.Fields(args), os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// benchRate is the event rate the room streams during a measurement.
const (
	benchRate    = 500                    // events a second
	benchWindow  = 3 * time.Second        // one measurement
	benchLatency = 100 * time.Millisecond // an event is on time within this
	benchOnTime  = 0.99                   // share of events that must be on time
)

// BenchmarkWatchers: how many watchers one room sustains while it streams
// benchRate events a second, each delivered within benchLatency (for at
// least benchOnTime of the events, with no watcher dropped or resynced),
// and the server's memory per connected client (the child's RSS).
// Watcher counts grow from 50 until one fails (BENCH_MAX_WATCHERS caps
// them, default 1000).
func BenchmarkWatchers(b *testing.B) {
	for i := 0; i < b.N; i++ {
		benchWatchers(b)
	}
}

func benchWatchers(b *testing.B) {
	srv := startChild(b)
	ctx := context.Background()
	c, _ := client.New(srv.url)
	room, err := c.CreateRoom(ctx, protocol.CreateRoom{Name: "bench", Scenario: "cluster brokers=3 seed=1 version=3.9\ntopic create t partitions=6 rf=3\nproducer p acks=all linger.ms=0\n"})
	if err != nil {
		b.Fatal(err)
	}
	driver, err := c.Dial(ctx, room.Code, room.Token)
	if err != nil {
		b.Fatal(err)
	}
	driver.IgnoreStream()
	defer driver.Close()
	base := srv.rss()
	// Calibrate: how many events one produce makes, so that produce
	// commands at a steady rate give benchRate events a second.
	probe := newWatcherPool(b, srv.url, room.Code, 1)
	perCmd := calibrate(b, driver, probe)
	probe.close()
	cmdRate := float64(benchRate) / perCmd
	maxN := 1000
	if v, err := strconv.Atoi(os.Getenv("BENCH_MAX_WATCHERS")); err == nil && v > 0 {
		maxN = v
	}
	best, bestP99, bestMem := 0, 0.0, 0.0
	pool := newWatcherPool(b, srv.url, room.Code, 0)
	defer pool.close()
	for _, n := range []int{50, 100, 200, 300, 400, 500, 600, 800, 1000, 1500, 2000} {
		if n > maxN {
			break
		}
		pool.grow(b, n)
		time.Sleep(300 * time.Millisecond)
		mem := float64(srv.rss()-base) / float64(n)
		var stats benchStats
		var dropped int64
		reached := false
		// The rate must be reached for the figure to mean anything; each
		// measurement aims the next one's load better.
		for try := 0; try < 3 && !reached; try++ {
			before := srv.info(b, room.Code)
			stats = pool.measure(func(stop <-chan struct{}) { drive(driver, cmdRate, stop) })
			after := srv.info(b, room.Code)
			dropped = after.Resyncs - before.Resyncs + int64(after.Lagging)
			reached = stats.rate >= 0.9*benchRate && stats.rate <= 1.2*benchRate
			if stats.rate > 0 {
				cmdRate = min(cmdRate*max(0.8, min(1.25, benchRate/stats.rate)), 150)
			}
		}
		ok := reached && stats.onTime >= benchOnTime && dropped == 0
		fmt.Fprintf(os.Stderr, "bench watchers: %4d watchers: %6.0f events/s each, %.2f%% within %v, p99 %.1f ms, %d resynced, %.1f KB/client\n",
			n, stats.rate, 100*stats.onTime, benchLatency, stats.p99, dropped, mem/1024)
		if !reached && n == 50 {
			b.Fatalf("the load did not reach %d events/s (%.0f): the figures would mean nothing", benchRate, stats.rate)
		}
		if !ok {
			break
		}
		best, bestP99, bestMem = n, stats.p99, mem
	}
	b.ReportMetric(float64(best), "watchers")
	b.ReportMetric(bestP99, "p99-ms")
	b.ReportMetric(bestMem, "server-bytes/client")
	b.ReportMetric(perCmd, "events/cmd")
}

// benchCmd is the driver's command (the child allows it 200 a second).
const benchCmd = "produce p t value=v"

// drive sends produce commands at rate a second until stop.
func drive(driver *client.Conn, rate float64, stop <-chan struct{}) {
	every := time.Duration(float64(time.Second) / rate)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			go driver.Cmd(context.Background(), benchCmd)
		}
	}
}

// calibrate measures the events one benchCmd makes (the idle
// cluster's own events included, at the rate it runs).
func calibrate(b *testing.B, driver *client.Conn, probe *watcherPool) float64 {
	const rate = 20.0
	stats := probe.measure(func(stop <-chan struct{}) { drive(driver, rate, stop) })
	if stats.rate == 0 {
		b.Fatal("calibration: no events")
	}
	return stats.rate / rate
}

// child is a `kafkasim serve` in another process.
type child struct {
	cmd *exec.Cmd
	url string
}

func startChild(b *testing.B) *child {
	return startServeChild(b, "--no-app --zookeeper off --kafka-listen off --max-clients 3000 --max-rate 200 --speed 1")
}

// startServeChild runs `kafkasim serve ARGS --listen ADDR` (a free address)
// in a child process until the benchmark ends.
func startServeChild(b *testing.B, args string) *child {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "KAFKASIM_BENCH_SERVE="+args+" --listen "+addr)
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(out)
	if !sc.Scan() || !strings.Contains(sc.Text(), "serving") {
		b.Fatalf("the server did not start: %q", sc.Text())
	}
	go func() {
		for sc.Scan() {
		}
	}()
	return &child{cmd: cmd, url: "http://" + addr}
}

var rssRE, hwmRE = regexp.MustCompile(`VmRSS:\s+(\d+) kB`), regexp.MustCompile(`VmHWM:\s+(\d+) kB`)

// rss is the child's resident memory in bytes.
func (c *child) rss() int64 { return c.status(rssRE) }

// peak is the child's peak resident memory (VmHWM) in bytes.
func (c *child) peak() int64 { return c.status(hwmRE) }

// status reads a kB field of the child's /proc status in bytes; 0 where
// there is none.
func (c *child) status(re *regexp.Regexp) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	m := re.FindSubmatch(b)
	if m == nil {
		return 0
	}
	kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return kb << 10
}

func (c *child) info(b *testing.B, code string) protocol.RoomInfo {
	cl, _ := client.New(c.url)
	info, err := cl.Room(context.Background(), code)
	if err != nil {
		b.Fatal(err)
	}
	return info
}

// watcherPool is many raw websocket watchers that only note when each
// events frame arrived against the server's "t" in it.
type watcherPool struct {
	url, code string
	conns     []*websocket.Conn
	mu        sync.Mutex
	lat       []float64 // ms, one per event
	events    atomic.Int64
	on        atomic.Bool
	wg        sync.WaitGroup
}

func newWatcherPool(b *testing.B, url, code string, n int) *watcherPool {
	p := &watcherPool{url: "ws" + strings.TrimPrefix(url, "http") + "/api/rooms/" + code + "/ws", code: code}
	p.grow(b, n)
	return p
}

func (p *watcherPool) grow(b *testing.B, n int) {
	for len(p.conns) < n {
		ws, _, err := websocket.DefaultDialer.Dial(p.url, nil)
		if err != nil {
			b.Fatalf("watcher %d: %v", len(p.conns), err)
		}
		p.conns = append(p.conns, ws)
		p.wg.Add(1)
		go p.read(ws)
	}
}

var tKey = []byte(`"t":`)

func (p *watcherPool) read(ws *websocket.Conn) {
	defer p.wg.Done()
	for {
		_, data, err := ws.ReadMessage()
		if err != nil {
			return
		}
		now := time.Now().UnixMilli()
		if !p.on.Load() || !bytes.HasPrefix(data, []byte(`{"type":"events"`)) {
			continue
		}
		i := bytes.Index(data, tKey)
		if i < 0 {
			continue
		}
		j := i + len(tKey)
		k := j
		for k < len(data) && data[k] >= '0' && data[k] <= '9' {
			k++
		}
		t, _ := strconv.ParseInt(string(data[j:k]), 10, 64)
		n := bytes.Count(data, []byte(`"seq":`))
		p.events.Add(int64(n))
		p.mu.Lock()
		for ; n > 0; n-- {
			p.lat = append(p.lat, float64(now-t))
		}
		p.mu.Unlock()
	}
}

type benchStats struct {
	events int64
	rate   float64 // events a second per watcher
	onTime float64
	p99    float64
}

// measure runs load for benchWindow and summarizes what the watchers got.
func (p *watcherPool) measure(load func(stop <-chan struct{})) benchStats {
	p.mu.Lock()
	p.lat = p.lat[:0]
	p.mu.Unlock()
	p.events.Store(0)
	stop := make(chan struct{})
	go load(stop)
	time.Sleep(500 * time.Millisecond) // the load settles
	p.on.Store(true)
	time.Sleep(benchWindow)
	p.on.Store(false)
	close(stop)
	p.mu.Lock()
	defer p.mu.Unlock()
	st := benchStats{events: p.events.Load()}
	if len(p.lat) == 0 || len(p.conns) == 0 {
		return st
	}
	st.rate = float64(st.events) / float64(len(p.conns)) / benchWindow.Seconds()
	sort.Float64s(p.lat)
	within := sort.SearchFloat64s(p.lat, float64(benchLatency.Milliseconds())+0.5)
	st.onTime = float64(within) / float64(len(p.lat))
	st.p99 = p.lat[len(p.lat)*99/100]
	return st
}

func (p *watcherPool) close() {
	for _, ws := range p.conns {
		ws.Close()
	}
	p.wg.Wait()
}
