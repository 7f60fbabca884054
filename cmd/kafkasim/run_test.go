package main

import (
	"bytes"
	"encoding/json"
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
	if code := realMain([]string{"demo"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "checker: lost orders-0 m3") {
		t.Errorf("demo: exit %d, stderr %q", code, errb.String())
	}
}

func TestUnknownCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if code := realMain([]string{"frobnicate"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "unknown command") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}

// TestRunJSON: `run --json` prints one JSON object a line: a step line
// before each step's events, events as core.Event encodes them (messages
// with sentAt <= deliverAt), a failure line for a failed expect, and the
// checker's findings last; the exit code is as without --json.
func TestRunJSON(t *testing.T) {
	script := "cluster brokers=3 seed=7\ntopic create t partitions=1 rf=3\nproducer p1 acks=all\nproduce p1 t value=m1\nwait 1s\nexpect acked p1 == m2\n"
	code, out, errs := runCLI(t, script, "--json")
	if code != 1 || !strings.Contains(errs, "FILE:6: expected acked p1 == m2, got m1") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	steps, msgs := 0, 0
	var last map[string]any
	for i, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %d is not JSON: %q", i+1, l)
		}
		switch m["type"] {
		case "step":
			steps++
		case "msg.send":
			msgs++
			s, ok1 := m["sentAt"].(float64)
			d, ok2 := m["deliverAt"].(float64)
			if !ok1 || !ok2 || s > d {
				t.Errorf("message without a sane sentAt/deliverAt: %s", l)
			}
		case nil:
			t.Errorf("line %d has no type: %s", i+1, l)
		}
		last = m
	}
	if steps != 6 || msgs == 0 {
		t.Errorf("%d step lines (want 6), %d messages", steps, msgs)
	}
	if !strings.Contains(out, `{"type":"failure","line":6,"msg":"expected acked p1 == m2, got m1"}`) {
		t.Errorf("no failure line in:\n%s", out)
	}
	if !strings.Contains(out, `{"type":"snapshot","snapshot":{"at":`) {
		t.Errorf("no snapshot line")
	}
	if last["type"] != "checker" {
		t.Errorf("last line is not the checker's: %v", last)
	}
}
