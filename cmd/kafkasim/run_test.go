package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs the command line with a scenario written to a temp file.
func runCLI(t *testing.T, script string, args ...string) (int, string, string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "s.ksim")
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := realMain(append(append([]string{"run"}, args...), file), &out, &errb)
	return code, out.String(), strings.ReplaceAll(errb.String(), file, "FILE")
}

func TestRunExitCodes(t *testing.T) {
	ok := "cluster brokers=1 seed=1\ntopic create t partitions=1 rf=1\nexpect leader t-0 == 1\n"
	if code, out, errs := runCLI(t, ok); code != 0 || errs != "" || !strings.Contains(out, "> expect leader t-0 == 1") {
		t.Errorf("passing script: exit %d, stderr %q, trace:\n%s", code, errs, out)
	}
	failing := "cluster brokers=1 seed=1\ntopic create t partitions=1 rf=1\n\nexpect leader t-0 == 2\n"
	if code, _, errs := runCLI(t, failing); code != 1 || errs != "FILE:4: expected leader t-0 == 2, got 1\n" {
		t.Errorf("failing expect: exit %d, stderr %q", code, errs)
	}
	malformed := "cluster brokers=1\nproduce p1\n"
	if code, _, errs := runCLI(t, malformed); code != 2 || !strings.HasPrefix(errs, "FILE:2:") {
		t.Errorf("malformed line: exit %d, stderr %q", code, errs)
	}
	cmdErr := "cluster brokers=1\ntopic create t partitions=1 rf=2\n"
	if code, _, errs := runCLI(t, cmdErr); code != 1 || !strings.Contains(errs, "FILE:2: command failed: INVALID_REPLICATION_FACTOR") {
		t.Errorf("failing command: exit %d, stderr %q", code, errs)
	}
}

func TestDemoRuns(t *testing.T) {
	var out, errb bytes.Buffer
	if code := realMain(nil, &out, &errb); code != 0 || !strings.Contains(out.String(), "checker: lost orders-0 m3") {
		t.Errorf("demo: exit %d, stderr %q", code, errb.String())
	}
}

func TestUnknownCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if code := realMain([]string{"frobnicate"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "unknown command") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}
