package canvasdev

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// CPU is the CPU time a browser's threads have run, in milliseconds, by
// "process/thread" name: process is the Chromium process type (browser,
// renderer, gpu-process, utility, ...), thread the thread's name (its
// comm, at most 15 characters: CrRendererMain, CrGpuMain, Thread<00>,
// ThreadPoolForeg, ...; "main" for each process's first thread, which
// Linux names after the program); threads of the same name in processes of the
// same type are summed. Read from /proc (schedstat's run time, in
// nanoseconds; utime+stime where schedstat is absent), so it counts every
// thread of every process under the browser, which is what bounds the
// frame rate of a CPU-bound browser on a small machine.
type CPU map[string]float64

// ReadCPU reads the CPU time of the process pid and of every process
// under it. Threads and processes that end while it reads are skipped.
func ReadCPU(pid int) (CPU, error) {
	pids, err := descendants(pid)
	if err != nil {
		return nil, err
	}
	out := CPU{}
	for _, p := range pids {
		kind := processType(p)
		tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", p))
		if err != nil {
			continue
		}
		for _, t := range tasks {
			dir := fmt.Sprintf("/proc/%d/task/%s", p, t.Name())
			name, ms, ok := threadCPU(dir)
			if t.Name() == strconv.Itoa(p) {
				name = "main" // named after the program (chromium), not its role
			}
			if ok {
				out[kind+"/"+name] += ms
			}
		}
	}
	return out, nil
}

// Sub returns c minus before, thread by thread (threads that started
// between the two count from zero; those that ended are left out).
func (c CPU) Sub(before CPU) CPU {
	d := CPU{}
	for k, v := range c {
		if v -= before[k]; v > 0 {
			d[k] = v
		}
	}
	return d
}

// Total is the sum over every thread.
func (c CPU) Total() float64 {
	t := 0.0
	for _, v := range c {
		t += v
	}
	return t
}

// Top returns c's keys, the largest first (ties by name).
func (c CPU) Top() []string {
	ks := make([]string, 0, len(c))
	for k := range c {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool {
		if c[ks[i]] != c[ks[j]] {
			return c[ks[i]] > c[ks[j]]
		}
		return ks[i] < ks[j]
	})
	return ks
}

// descendants returns pid and every process whose parent chain leads to
// it.
func descendants(pid int) ([]int, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	children := map[int][]int{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		f := statFields(b)
		if len(f) < 2 {
			continue
		}
		if pp, err := strconv.Atoi(f[1]); err == nil {
			children[pp] = append(children[pp], p)
		}
	}
	out := []int{pid}
	for i := 0; i < len(out) && i < 4096; i++ {
		out = append(out, children[out[i]]...)
	}
	return out, nil
}

// processType is Chromium's --type= of process pid ("browser" without
// one, "?" when its command line cannot be read).
func processType(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return "?"
	}
	return cmdlineType(b)
}

// cmdlineType is the --type= of a process whose /proc/PID/cmdline is b.
func cmdlineType(b []byte) string {
	// Chromium rewrites its children's command lines into one string, the
	// arguments separated by spaces, not NULs.
	for _, a := range strings.FieldsFunc(string(b), func(r rune) bool { return r == 0 || r == ' ' }) {
		if t, ok := strings.CutPrefix(a, "--type="); ok {
			return t
		}
	}
	return "browser"
}

// threadCPU reads the name and run time (ms) of the thread whose
// /proc/PID/task/TID directory is dir.
func threadCPU(dir string) (string, float64, bool) {
	b, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return "", 0, false
	}
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return "", 0, false
	}
	name := string(b[open+1 : end])
	if s, err := os.ReadFile(dir + "/schedstat"); err == nil {
		if f := strings.Fields(string(s)); len(f) > 0 {
			if ns, err := strconv.ParseFloat(f[0], 64); err == nil {
				return name, ns / 1e6, true
			}
		}
	}
	f := statFields(b)
	// after the name: state is field 3 (f[0] here is field 3), utime 14, stime 15
	if len(f) < 14 {
		return "", 0, false
	}
	u, err1 := strconv.ParseFloat(f[11], 64)
	s, err2 := strconv.ParseFloat(f[12], 64)
	if err1 != nil || err2 != nil {
		return "", 0, false
	}
	return name, (u + s) * 10, true // USER_HZ is 100 on Linux
}

// statFields returns /proc/.../stat's fields after the name: f[0] is the
// state (field 3), f[1] the parent's pid (field 4), and so on.
func statFields(b []byte) []string {
	end := bytes.LastIndexByte(b, ')')
	if end < 0 {
		return nil
	}
	return strings.Fields(string(b[end+1:]))
}
