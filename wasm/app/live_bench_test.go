//go:build !js

package app

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/kafkasim/kafkasim/core/scenario"
	"github.com/kafkasim/kafkasim/server/protocol"
)

// stormFrames records what a room streams to a page for d while
// franz-go produces 2000 records a second into it (20 every 10 ms), as
// in the browser's storm test: the welcome, the history and every events
// batch, in order.
func stormFrames(b *testing.B, d time.Duration) [][]byte {
	o := startOutsideServe(b, outsideScenario)
	url := "ws" + strings.TrimPrefix(o.base, "http") + "/api/rooms/" + o.srv.DefaultCode() + "/ws"
	ws, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	var frames [][]byte
	// A real Live drives the socket (it asks for the history); the frames
	// are kept as they came.
	l := NewLive(New(), func(m []byte) error { return ws.WriteMessage(websocket.TextMessage, m) }, "")
	cl := o.producer(b)
	defer cl.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	produceStorm(ctx, cl, 20)
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		ws.SetReadDeadline(end)
		_, m, err := ws.ReadMessage()
		if err != nil {
			break
		}
		frames = append(frames, m)
		l.Receive(m)
	}
	if l.Status().Phase != PhaseLive {
		b.Fatalf("the recording page is %+v", l.Status())
	}
	return frames
}

// BenchmarkLiveOutsideStorm is a page's cost of following a room under a
// franz-go storm, natively: each iteration feeds the same recorded frames
// to a fresh page. ns/cmd is the cost per command the page replays
// (nearly all of them real clients' requests, `outside` lines), and
// cpu-ns/cmd the same in CPU time (what a loaded machine does not
// inflate), decode-ns/cmd the part of it that is reading the outside lines (the
// scenario parser's strict JSON, measured alone on the same lines).
func BenchmarkLiveOutsideStorm(b *testing.B) {
	if os.Getenv("KAFKASIM_STORM") == "" {
		b.Skip("set KAFKASIM_STORM=1 (it runs real clients against a served room)")
	}
	frames := stormFrames(b, 3*time.Second)
	var lines []string
	var cmds int
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l := NewLive(New(), func([]byte) error { return nil }, "")
		for _, f := range frames {
			l.Receive(f)
		}
		if st := l.Status(); st.Phase != PhaseLive {
			b.Fatalf("the page is %+v", st)
		}
		cmds = l.Status().Applied
		if lines == nil {
			for _, s := range l.e.sess.Driver().Steps() {
				if strings.HasPrefix(s.Text, "outside ") {
					lines = append(lines, s.Text)
				}
			}
		}
	}
	b.StopTimer()
	cpu := float64(cpuTime()-cpu0) / float64(b.N) / float64(max(cmds, 1))
	per := float64(b.Elapsed().Nanoseconds()) / float64(b.N) / float64(max(cmds, 1))
	t0 := time.Now()
	const rounds = 3
	for r := 0; r < rounds; r++ {
		for _, ln := range lines {
			if _, err := scenario.ParseLine(ln, 1); err != nil {
				b.Fatal(err)
			}
		}
	}
	dec := float64(time.Since(t0).Nanoseconds()) / rounds / float64(max(len(lines), 1))
	b.ReportMetric(per, "ns/cmd")
	b.ReportMetric(cpu, "cpu-ns/cmd")
	b.ReportMetric(dec, "decode-ns/cmd")
	b.ReportMetric(float64(cmds), "cmds")
	n := 0
	for _, f := range frames {
		n += len(f)
	}
	load, _ := os.ReadFile("/proc/loadavg")
	b.Logf("%d frames, %d KB, %d commands (%d outside lines); load average %s", len(frames), n>>10, cmds, len(lines), strings.TrimSpace(string(load)))
	_ = protocol.Version
}

// cpuTime is the process's CPU time so far (user and system), which the
// other programs on a loaded machine do not inflate as they do wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
