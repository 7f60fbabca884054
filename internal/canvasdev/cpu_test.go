package canvasdev

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestReadCPU reads this process and a child it starts: the child is
// found under it (by its parent chain), and a thread that spins for 50 ms
// shows at least most of that in the difference of two reads.
func TestReadCPU(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	child := exec.Command("sleep", "5")
	if err := child.Start(); err != nil {
		t.Skip(err)
	}
	defer func() { child.Process.Kill(); child.Wait() }()
	pids, err := descendants(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range pids {
		found = found || p == child.Process.Pid
	}
	if !found {
		t.Errorf("descendants(%d) = %v: no child %d", os.Getpid(), pids, child.Process.Pid)
	}
	before, err := ReadCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(50 * time.Millisecond); time.Now().Before(end); {
	}
	d := must(ReadCPU(os.Getpid())).Sub(before)
	if d.Total() < 25 || d.Total() > 10000 {
		t.Errorf("spun 50 ms, read %.1f ms: %v", d.Total(), d)
	}
	for k := range d {
		if !strings.HasPrefix(k, "browser/") { // no --type=: Chromium's name for its first process
			t.Errorf("thread %q: want browser/NAME", k)
		}
	}
	if top := d.Top(); len(top) == 0 || d[top[0]] < d[top[len(top)-1]] {
		t.Errorf("Top() = %v of %v", top, d)
	}
}

func TestProcessType(t *testing.T) {
	// Chromium's children rewrite their command line into one string.
	for _, c := range []struct{ cmdline, want string }{
		{"/usr/lib/chromium/chromium --type=renderer --no-sandbox", "renderer"},
		{"/usr/lib/chromium/chromium\x00--type=gpu-process\x00--x", "gpu-process"},
		{"/usr/lib/chromium/chromium\x00--headless", "browser"},
	} {
		if got := cmdlineType([]byte(c.cmdline)); got != c.want {
			t.Errorf("cmdlineType(%q) = %q, want %q", c.cmdline, got, c.want)
		}
	}
}

func must(c CPU, err error) CPU {
	if err != nil {
		panic(err)
	}
	return c
}
