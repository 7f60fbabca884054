package core_test

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

var rewriteAPI = flag.Bool("rewrite-api", false, "rewrite core/api.txt from `go doc -all` (a deliberate change of the outside API)")

// TestAPI: the package's outside API (`go doc -all`, which is every
// exported identifier with its doc comment) is the golden core/api.txt,
// so a change to what the layers above can use is always deliberate.
// After one, regenerate it: `go generate ./core` or
// `go test ./core -run TestAPI -rewrite-api`, and review the diff.
func TestAPI(t *testing.T) {
	if runtime.GOOS == "js" {
		t.Skip("no go tool under GOOS=js")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		if gr := runtime.GOROOT(); gr != "" {
			gobin = gr + "/bin/go"
		}
	}
	cmd := exec.Command(gobin, "doc", "-all", ".")
	cmd.Env = append(os.Environ(), "GOOS="+runtime.GOOS, "GOARCH="+runtime.GOARCH, "GOFLAGS=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("go doc -all: %v\n%s", err, stderr.String())
	}
	if *rewriteAPI {
		if err := os.WriteFile("api.txt", got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile("api.txt")
	if err != nil {
		t.Fatalf("%v (generate it: go test ./core -run TestAPI -rewrite-api)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the exported API of core differs from core/api.txt at\n%s\nIf the change is deliberate: go generate ./core (or go test ./core -run TestAPI -rewrite-api) and review the diff.",
			firstLineDiff(string(want), string(got)))
	}
}

// firstLineDiff shows the first line where a and b differ, with context.
func firstLineDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(la) || i < len(lb); i++ {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			return "line " + strconv.Itoa(i+1) + ":\n  api.txt: " + x + "\n  now:     " + y
		}
	}
	return "(only line endings differ)"
}
