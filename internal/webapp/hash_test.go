package webapp

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHashedDirsCoverTheWasm: every package of this module that a wasm
// target imports lies under a directory the build cache's key hashes, so
// no change to what a wasm is built from can leave a stale one cached
// (server/protocol was missing once: a new protocol field never reached
// the page).
func TestHashedDirsCoverTheWasm(t *testing.T) {
	root, out := listWasmDeps(t, "{{if not .Standard}}{{.ImportPath}} {{.Dir}}{{end}}")
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, dir, ok := strings.Cut(line, " ")
		if !ok || !strings.HasPrefix(path, "github.com/kafkasim/kafkasim") {
			continue // another module's: go.sum is hashed
		}
		n++
		rel, err := filepath.Rel(root, dir)
		if err != nil {
			t.Fatal(err)
		}
		covered := false
		for _, d := range hashedDirs {
			if rel == d || strings.HasPrefix(rel, d+string(filepath.Separator)) {
				covered = true
			}
		}
		if !covered {
			t.Errorf("the wasm imports %s (%s), which the build cache's key does not hash", path, rel)
		}
	}
	if n < 5 {
		t.Fatalf("only %d of the module's packages in the wasm: go list said\n%s", n, out)
	}
}

// TestHashCoversEmbeds: every file the wasm's packages embed is one the
// build cache's key hashes, so an edit to it alone rebuilds the wasm.
func TestHashCoversEmbeds(t *testing.T) {
	_, out := listWasmDeps(t, `{{if not .Standard}}{{range .EmbedFiles}}{{$.Dir}}/{{.}}{{"\n"}}{{end}}{{end}}`)
	n := 0
	for _, p := range strings.Fields(string(out)) {
		n++
		if !hashed(p) {
			t.Errorf("the wasm embeds %s, which the build cache's key does not hash", p)
		}
	}
	if n == 0 {
		t.Fatal("no embedded files listed: the sheet's alpha.bin at least")
	}
}

// listWasmDeps runs `go list -deps -f FORMAT ./wasm/...` for the browser
// (GOOS=js GOARCH=wasm) in the module's root, and returns the root and
// what go list printed.
func listWasmDeps(t *testing.T, format string) (root string, out []byte) {
	t.Helper()
	wd, _ := os.Getwd()
	root, err := FindRoot(wd)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-deps", "-f", format, "./wasm/...")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err = cmd.Output(); err != nil {
		t.Fatalf("go list: %v", err)
	}
	return root, out
}
