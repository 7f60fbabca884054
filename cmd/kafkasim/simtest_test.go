package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func simtestCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := realMain(append([]string{"simtest"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

// TestSimtestSafe: safe seeds pass with exit 0 and a summary.
func TestSimtestSafe(t *testing.T) {
	code, out, errs := simtestCLI("--seeds", "4", "--jobs", "2", "-q")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q, out:\n%s", code, errs, out)
	}
	if !strings.Contains(out, "4 seeds,") || !strings.Contains(out, "violations: none") {
		t.Errorf("summary missing:\n%s", out)
	}
}

// TestSimtestUnsafeReproduces: an unsafe seed that loses acked records
// exits 1 and writes a shrunken script that `kafkasim run` replays to the
// same failure (its final expect fails: exit 1).
func TestSimtestUnsafeReproduces(t *testing.T) {
	dir := t.TempDir()
	code, out, _ := simtestCLI("--seed", "4", "--unsafe", "--out", dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1; out:\n%s", code, out)
	}
	file := filepath.Join(dir, "seed-4-lost.ksim")
	script, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("no reproduction written: %v\n%s", err, out)
	}
	if !strings.Contains(string(script), "expect violations == none") {
		t.Errorf("reproduction does not end in an expectation:\n%s", script)
	}
	var rout, rerr bytes.Buffer
	if code := realMain([]string{"run", file}, &rout, &rerr); code != 1 || !strings.Contains(rerr.String(), "lost") {
		t.Errorf("kafkasim run on the reproduction: exit %d, stderr %q", code, rerr.String())
	}
	if !regexp.MustCompile(`by kind \(seeds, first seed\): .*lost 1 \(4\)`).MatchString(out) {
		t.Errorf("summary does not count the lost seed:\n%s", out)
	}
}

func TestSimtestUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--seeds", "0"},
		{"--preset", "9.9"},
		{"--bogus"},
		{"extra"},
	} {
		if code, _, errs := simtestCLI(args...); code != 2 || errs == "" {
			t.Errorf("simtest %v: exit %d, stderr %q; want 2 and a message", args, code, errs)
		}
	}
}
