// Package canvasdev builds the canvas WebAssembly binaries and serves them
// with canvas.html and a development harness, so the canvas can be looked
// at, tested and measured without the engine: the harness posts sample
// scenes (wasm/scene/sample) to the canvas iframe exactly as the engine
// posts its scenes. The browser tests of the canvas and make bench's
// browser figures run on it; `go run ./internal/canvasdev/devserve` serves
// it for a person.
package canvasdev

import (
	"bytes"
	"compress/gzip"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kafkasim/kafkasim/wasm/scene"
	"github.com/kafkasim/kafkasim/wasm/scene/sample"
)

//go:embed harness.html
var harness []byte

// Binaries are the wasm programs Build makes: the page's (engine and
// canvas in one; the harness posts scenes to it, which it then draws
// instead of its engine's), and the empty
// Ebiten program make bench compares it with.
var Binaries = map[string]string{"kafkasim": "./wasm/canvas", "empty": "./wasm/emptycanvas"}

// Limits of the sample endpoints.
const (
	maxFrames = 600
	maxStep   = 10000
)

// Build compiles the binaries named (keys of Binaries) for GOOS=js
// GOARCH=wasm into dir/wasm/NAME.wasm, with the flags the page is served
// with, and copies wasm_exec.js beside them. root is the module root.
func Build(ctx context.Context, root, dir string, names ...string) error {
	if err := os.MkdirAll(filepath.Join(dir, "wasm"), 0o755); err != nil {
		return err
	}
	for _, n := range names {
		pkg, ok := Binaries[n]
		if !ok {
			return fmt.Errorf("canvasdev: no binary %q", n)
		}
		cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags=-s -w", "-o", filepath.Join(dir, "wasm", n+".wasm"), pkg)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("canvasdev: go build %s: %v\n%s", pkg, err, out)
		}
	}
	out, err := exec.CommandContext(ctx, "go", "env", "GOROOT").Output()
	if err != nil {
		return fmt.Errorf("canvasdev: go env GOROOT: %v", err)
	}
	js, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "wasm", "wasm_exec.js"), js, 0o644)
}

// Root finds the module root from the working directory (tests run in
// their package directory).
func Root() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", err
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("canvasdev: not inside the kafkasim module")
	}
	return filepath.Dir(gomod), nil
}

// Handler serves, from root and dir (where Build wrote):
//
//	/canvas.html            the iframe page (root/canvas.html)
//	/harness.html           the dev harness
//	/wasm/*.wasm, /wasm/wasm_exec.js
//	/sample/NAME?now=MS     one sample scene as JSON
//	/frames/NAME?now=MS&n=N&step=MS   N scenes of a moving sample, as a JSON array
func Handler(root, dir string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/canvas.html", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, filepath.Join(root, "canvas.html"))
	})
	mux.HandleFunc("/harness.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(harness)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		http.Redirect(w, r, "/harness.html", http.StatusFound)
	})
	mux.Handle("/wasm/", http.FileServer(http.Dir(dir)))
	mux.HandleFunc("/sample/", func(w http.ResponseWriter, r *http.Request) {
		now, err := intParam(r, "now", 60000, 0, 1<<40)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s, err := sample.Get(strings.TrimPrefix(r.URL.Path, "/sample/"), now)
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		writeJSON(w, r, s)
	})
	mux.HandleFunc("/frames/", func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/frames/")
		now, err1 := intParam(r, "now", 60000, 0, 1<<40)
		n, err2 := intParam(r, "n", 60, 1, maxFrames)
		step, err3 := intParam(r, "step", 1, 0, maxStep)
		for _, err := range []error{err1, err2, err3} {
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
		}
		var frames []*scene.Scene
		for i := int64(0); i < n; i++ {
			s, err := sample.Get(name, now+i*step)
			if err != nil {
				http.Error(w, err.Error(), http.StatusNotFound)
				return
			}
			frames = append(frames, s)
		}
		writeJSON(w, r, frames)
	})
	return mux
}

func intParam(r *http.Request, name string, def, lo, hi int64) (int64, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%s=%q: want an integer in [%d, %d]", name, v, lo, hi)
	}
	return n, nil
}

func writeJSON(w http.ResponseWriter, r *http.Request, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(b)
}

// Sizes returns the raw and gzip (level 9, what a precompressing static
// site serves) sizes of a file.
func Sizes(path string) (raw, gz int, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, err
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return 0, 0, err
	}
	zw.Write(b)
	if err := zw.Close(); err != nil {
		return 0, 0, err
	}
	return len(b), buf.Len(), nil
}
