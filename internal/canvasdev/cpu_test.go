package canvasdev

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
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
	// Spin until the kernel has charged this process 60 ms of CPU (not
	// 60 ms of wall time: on a loaded machine the thread gets a fraction
	// of it), bounded by 20 s of wall time.
	start := rusageMs(t)
	for end := time.Now().Add(20 * time.Second); rusageMs(t)-start < 60 && time.Now().Before(end); {
	}
	spun := rusageMs(t) - start
	d := must(ReadCPU(os.Getpid())).Sub(before)
	if spun < 60 {
		t.Skipf("the machine gave this process %.0f ms of CPU in 20 s", spun)
	}
	if d.Total() < spun-30 || d.Total() > spun+10000 {
		t.Errorf("spun %.0f ms of CPU, read %.1f ms: %v", spun, d.Total(), d)
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

// rusageMs is the CPU (user and system) the kernel has charged this
// process so far, in milliseconds.
func rusageMs(t *testing.T) float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e6
}

func must(c CPU, err error) CPU {
	if err != nil {
		panic(err)
	}
	return c
}
