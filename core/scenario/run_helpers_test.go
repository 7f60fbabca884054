package scenario

import (
	"os"
	"strings"
	"testing"
)

// runText parses and runs a script, failing t on a parse or run error
// and reporting each failed expect prefixed with label.
func runText(t *testing.T, label, text string) *Result {
	t.Helper()
	s, err := Parse(text)
	if err != nil {
		t.Fatalf("%s: %v", label, err)
	}
	res, err := Run(s, RunOptions{})
	if err != nil {
		t.Fatalf("%s: %v", label, err)
	}
	for _, f := range res.Failures {
		t.Errorf("%s: line %d: %s", label, f.Line, f.Msg)
	}
	return res
}

// variant is file's text with each old, new pair of replacements made
// once (a golden run under another preset, say).
func variant(t *testing.T, file string, oldNew ...string) string {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	for i := 0; i+1 < len(oldNew); i += 2 {
		if !strings.Contains(text, oldNew[i]) {
			t.Fatalf("%s has no %q", file, oldNew[i])
		}
		text = strings.Replace(text, oldNew[i], oldNew[i+1], 1)
	}
	return text
}
