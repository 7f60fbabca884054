package scenario

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the .trace golden files from the current output")

// TestScenarios runs every testdata/*.ksim: each must parse, run with all
// its expectations holding, and print exactly the trace in the .trace file
// beside it (rewrite with -rewrite, then review the diff).
func TestScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/*.ksim")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".ksim"), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			s, err := Parse(string(src))
			if err != nil {
				t.Fatalf("%s:%v", f, err)
			}
			res, err := Run(s, RunOptions{})
			if err != nil {
				t.Fatalf("%s:%v", f, err)
			}
			for _, fl := range res.Failures {
				t.Errorf("%s:%d: %s", f, fl.Line, fl.Msg)
			}
			golden := strings.TrimSuffix(f, ".ksim") + ".trace"
			if *rewrite {
				if err := os.WriteFile(golden, []byte(res.Trace), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./core/scenario -run TestScenarios -rewrite)", err)
			}
			if string(want) != res.Trace {
				t.Errorf("trace differs from %s (rerun with -rewrite and review the diff):\n%s", golden, firstDiff(string(want), res.Trace))
			}
		})
	}
}

// firstDiff shows the first differing line with a little context.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + a + "\n  got:  " + b
		}
	}
	return "(no line differs)"
}
