package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLessonCmd(t *testing.T) {
	var out, errb bytes.Buffer
	if code := realMain([]string{"lesson", "../../lessons/zh/01-architecture.md"}, &out, &errb); code != 0 {
		t.Fatalf("bundled lesson: exit %d: %s", code, errb.String())
	}
	src, err := os.ReadFile("../../lessons/en/01-architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	wrong := filepath.Join(dir, "wrong.md")
	// The marked answer moved to a choice that does not happen.
	bad := strings.Replace(string(src), "choice*: nothing", "choice: nothing", 1)
	bad = strings.Replace(bad, "choice: only m2", "choice*: only m2", 1)
	if err := os.WriteFile(wrong, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	if code := realMain([]string{"lesson", wrong}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "marked right") {
		t.Errorf("wrong lesson: exit %d, stderr %q", code, errb.String())
	}
	broken := filepath.Join(dir, "broken.md")
	if err := os.WriteFile(broken, []byte("no front matter"), 0o644); err != nil {
		t.Fatal(err)
	}
	errb.Reset()
	if code := realMain([]string{"lesson", broken}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "line 1") {
		t.Errorf("broken lesson: exit %d, stderr %q", code, errb.String())
	}
}
