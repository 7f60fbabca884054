// Package webapp builds and serves the browser app: the page shell
// (index.html and assets/), the engine and canvas WebAssembly binaries
// built from this source tree with the local Go toolchain, Go's
// wasm_exec.js, and the bundled example scenarios. Builds are cached
// under the user's cache directory, keyed by a hash of the Go sources, so
// a second start is instant and an edit rebuilds. App is an http.Handler
// for "/"; WriteSite writes the same files as a static site with
// precompressed copies.
package webapp

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"
)

// Module is the module path the source tree must have.
const Module = "github.com/kafkasim/kafkasim"

// Target is one WebAssembly binary the app needs.
type Target struct {
	Name string // served as /wasm/NAME.wasm
	Pkg  string // package directory, relative to the module root
	// Optional targets are skipped (with a note) when their package does
	// not exist in the tree.
	Optional bool
	// NoInline are package patterns compiled without inlining (-l):
	// code that runs once or rarely, where the copies inlining makes only
	// cost download (see ColdPackages).
	NoInline []string
}

// ColdPackages are the page wasm's packages that run once, at start or
// on a rare path, never per frame: Ebiten's shader compiler (Kage, built
// on go/parser and text/template, run once on the builtin shaders), its
// gamepad database, its PNG encoder (screenshots), and the standard
// packages only they use. Built without inlining they make the page's
// first load about 190 KB (gzip) smaller: inlining's copies of small
// functions compress worse than calls. The engine, the core, the canvas,
// Ebiten's drawing path and the runtime keep their inlining: they run
// every frame.
var ColdPackages = []string{
	"go/...", "text/...", "regexp/...", "encoding/gob", "archive/...", "math/big", "log/...",
	"github.com/hajimehoshi/ebiten/v2/internal/shader...",
	"github.com/hajimehoshi/ebiten/v2/internal/builtinshader",
	"github.com/hajimehoshi/ebiten/v2/internal/legacyshader",
	"github.com/hajimehoshi/ebiten/v2/internal/colormshader",
	"github.com/hajimehoshi/ebiten/v2/internal/png",
	"github.com/hajimehoshi/ebiten/v2/internal/gamepaddb",
}

// Targets are the binaries the page loads: kafkasim.wasm, the engine and
// the Ebiten canvas in one (it runs in the canvas iframe; the shell calls
// the engine through iframe.contentWindow), and lessonparse.wasm, the
// Markdown parser for a teacher's own lesson file, loaded on demand.
var Targets = []Target{
	{Name: "kafkasim", Pkg: "wasm/canvas", NoInline: ColdPackages},
	{Name: "lessonparse", Pkg: "wasm/lessonparse"},
}

// BuildArgs are the go build arguments of t (after "build"), output and
// package aside: the flags every build of the page's wasm uses.
func (t Target) BuildArgs() []string {
	args := []string{"-trimpath", "-ldflags=-s -w"}
	for _, p := range t.NoInline {
		args = append(args, "-gcflags="+p+"=-l")
	}
	return args
}

// Options configure Build.
type Options struct {
	Root     string    // module root; "" finds it from the working directory
	CacheDir string    // "" = os.UserCacheDir()/kafkasim/wasm
	Go       string    // the go command; "" = go on PATH, else GOROOT/bin/go
	Log      io.Writer // progress notes (nil: discarded)
}

// FindRoot walks up from dir to the directory whose go.mod declares
// Module.
func FindRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && modulePath(b) == Module {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no kafkasim source tree (go.mod of %s) here or above: the app is built from the sources; run kafkasim inside a clone, or host a copy made by `kafkasim site DIR`", Module)
		}
		dir = parent
	}
}

func modulePath(gomod []byte) string {
	for _, l := range strings.Split(string(gomod), "\n") {
		if f := strings.Fields(l); len(f) == 2 && f[0] == "module" {
			return f[1]
		}
	}
	return ""
}

func (o *Options) fill() error {
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Root == "" {
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		if o.Root, err = FindRoot(wd); err != nil {
			return err
		}
	}
	if o.CacheDir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			base = os.TempDir()
		}
		o.CacheDir = filepath.Join(base, "kafkasim", "wasm")
	}
	if o.Go == "" {
		if p, err := exec.LookPath("go"); err == nil {
			o.Go = p
		} else if p := filepath.Join(runtime.GOROOT(), "bin", "go"); fileExists(p) {
			o.Go = p
		} else {
			return errors.New("no go command on PATH: the browser app is built with the local Go toolchain")
		}
	}
	return nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// sourceHash hashes what the wasm binaries are built from: every Go file
// under core/, wasm/ and lessons/ and the lessons' Markdown (tests and
// testdata aside), go.mod, go.sum, the toolchain version and the targets'
// build flags.
// hashedDirs hold every package of this module the wasm targets import
// (GOOS=js GOARCH=wasm go list -deps ./wasm/...; TestHashedDirsCoverTheWasm):
// a change anywhere else cannot change a wasm.
var hashedDirs = []string{"core", "wasm", "lessons", "server/protocol"}

func sourceHash(root, goVersion string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "toolchain %s\n", goVersion)
	for _, t := range Targets { // a change of flags is a change of binary
		fmt.Fprintf(h, "target %s %s %q\n", t.Name, t.Pkg, t.BuildArgs())
	}
	var files []string
	for _, dir := range hashedDirs {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			if !d.IsDir() && hashed(p) {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return "", err
		}
	}
	files = append(files, filepath.Join(root, "go.mod"), filepath.Join(root, "go.sum"))
	sort.Strings(files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		rel, _ := filepath.Rel(root, f)
		fmt.Fprintf(h, "%s %d\n", filepath.ToSlash(rel), len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:24], nil
}

// hashed reports whether the cache key hashes file p (under hashedDirs):
// Go sources and the files they embed (the lessons' .md, the sprite
// sheet's .bin; TestHashCoversEmbeds).
func hashed(p string) bool {
	return strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") || strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".bin")
}

// goEnv runs `go env NAME`.
func goEnv(goCmd, name string) (string, error) {
	out, err := exec.Command(goCmd, "env", name).Output()
	if err != nil {
		return "", fmt.Errorf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// buildTarget builds t into dir/NAME.wasm (and its gzip copy) unless the
// cache already has it.
func buildTarget(o *Options, dir string, t Target) (wasm, gz []byte, err error) {
	out := filepath.Join(dir, t.Name+".wasm")
	if b, err := os.ReadFile(out); err == nil {
		if g, err := os.ReadFile(out + ".gz"); err == nil {
			return b, g, nil
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	start := time.Now()
	fmt.Fprintf(o.Log, "kafkasim: building %s.wasm from ./%s (once per source change) ...\n", t.Name, t.Pkg)
	tmp, err := os.CreateTemp(dir, t.Name+"-*.tmp")
	if err != nil {
		return nil, nil, err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	cmd := exec.Command(o.Go, append(append([]string{"build"}, t.BuildArgs()...), "-o", tmp.Name(), "./"+t.Pkg)...)
	cmd.Dir = o.Root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, nil, fmt.Errorf("building %s.wasm: %v\n%s", t.Name, err, stderr.String())
	}
	wasm, err = os.ReadFile(tmp.Name())
	if err != nil {
		return nil, nil, err
	}
	gz = gzipBest(wasm)
	// gzip first, then the wasm: a reader that finds the wasm finds both.
	if err := writeAtomic(out+".gz", gz); err != nil {
		return nil, nil, err
	}
	if err := writeAtomic(out, wasm); err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(o.Log, "kafkasim: built %s.wasm in %.1fs (%.1f MB, %.1f MB gzip)\n", t.Name,
		time.Since(start).Seconds(), float64(len(wasm))/1e6, float64(len(gz))/1e6)
	return wasm, gz, nil
}

func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+"-*.tmp")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// gzipBest is gzipBytes for the wasm binaries, which are built once per
// source change: GNU gzip -9 when there is one (its deflate is about 1.5%
// smaller than compress/flate's on the page's wasm, 60 KB of its 4 MB
// budget), else Go's. Either is a valid gzip stream.
func gzipBest(b []byte) []byte {
	if p, err := exec.LookPath("gzip"); err == nil {
		cmd := exec.Command(p, "-9", "-n", "-c")
		cmd.Stdin = bytes.NewReader(b)
		if out, err := cmd.Output(); err == nil && len(out) > 0 {
			return out
		}
	}
	return gzipBytes(b)
}

func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func sha256Sum(b []byte) [32]byte { return sha256.Sum256(b) }
