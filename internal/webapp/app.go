package webapp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// MaxAssetBytes bounds one shell asset read from the tree.
const MaxAssetBytes = 64 << 20

// file is one servable file, with its gzip copy when that is smaller.
type file struct {
	data  []byte
	gz    []byte
	ctype string
	etag  string
}

// App holds every file of the browser app, in memory, by URL path.
type App struct {
	files map[string]*file
	// Notes are things the builder left out (an optional wasm whose
	// package does not exist yet), for the log.
	Notes []string
}

// Build collects the shell from the tree and builds (or takes from the
// cache) every wasm target.
func Build(opts Options) (*App, error) {
	if err := opts.fill(); err != nil {
		return nil, err
	}
	goVersion, err := goEnv(opts.Go, "GOVERSION")
	if err != nil {
		return nil, err
	}
	goroot, err := goEnv(opts.Go, "GOROOT")
	if err != nil {
		return nil, err
	}
	key, err := sourceHash(opts.Root, goVersion)
	if err != nil {
		return nil, err
	}
	a := &App{files: map[string]*file{}}
	dir := filepath.Join(opts.CacheDir, key)
	for _, t := range Targets {
		if !fileExists(filepath.Join(opts.Root, t.Pkg)) {
			if t.Optional {
				a.Notes = append(a.Notes, fmt.Sprintf("no ./%s in this tree: /wasm/%s.wasm is not served", t.Pkg, t.Name))
				continue
			}
			return nil, fmt.Errorf("no ./%s in %s", t.Pkg, opts.Root)
		}
		wasm, gz, err := buildTarget(&opts, dir, t)
		if err != nil {
			return nil, err
		}
		a.put("/wasm/"+t.Name+".wasm", wasm, gz, key)
	}
	execJS, err := os.ReadFile(filepath.Join(goroot, "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		return nil, fmt.Errorf("wasm_exec.js of the Go toolchain: %v", err)
	}
	a.put("/wasm/wasm_exec.js", execJS, nil, key)
	for _, name := range []string{"index.html", "canvas.html"} {
		b, err := os.ReadFile(filepath.Join(opts.Root, name))
		if err != nil {
			if name == "canvas.html" && os.IsNotExist(err) {
				a.Notes = append(a.Notes, "no canvas.html in this tree")
				continue
			}
			return nil, err
		}
		a.put("/"+name, b, nil, "")
	}
	if err := a.addTree(filepath.Join(opts.Root, "assets"), "/assets/"); err != nil {
		return nil, err
	}
	if err := a.addScenarios(filepath.Join(opts.Root, "core", "scenario", "testdata")); err != nil {
		return nil, err
	}
	if err := a.addLessons(); err != nil {
		return nil, err
	}
	return a, nil
}

// put adds a file at urlPath; gz is computed when nil.
func (a *App) put(urlPath string, data, gz []byte, etag string) {
	ct := mime.TypeByExtension(path.Ext(urlPath))
	switch path.Ext(urlPath) {
	case ".wasm":
		ct = "application/wasm"
	case ".ksim":
		ct = "text/plain; charset=utf-8"
	case ".js":
		ct = "text/javascript; charset=utf-8"
	}
	if ct == "" {
		ct = "application/octet-stream"
	}
	if gz == nil && len(data) > 512 {
		gz = gzipBytes(data)
	}
	if gz != nil && len(gz) >= len(data) {
		gz = nil
	}
	if etag == "" {
		etag = fmt.Sprintf("%x", sha256Sum(data))[:16]
	}
	a.files[urlPath] = &file{data: data, gz: gz, ctype: ct, etag: `"` + etag + `"`}
}

// addTree adds every regular file under dir, served under prefix.
func (a *App) addTree(dir, prefix string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if info.Size() > MaxAssetBytes {
			return fmt.Errorf("%s: %d bytes, at most %d for an asset", p, info.Size(), MaxAssetBytes)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		a.put(prefix+filepath.ToSlash(rel), b, nil, "")
		return nil
	})
}

// Example is one bundled scenario, as /scenarios/index.json lists it.
type Example struct {
	Name  string `json:"name"`  // file name without .ksim
	Title string `json:"title"` // its first comment line
	File  string `json:"file"`  // URL path
}

// addScenarios serves the bundled examples (core/scenario/testdata/*.ksim)
// under /scenarios/, with an index.
func (a *App) addScenarios(dir string) error {
	paths, err := filepath.Glob(filepath.Join(dir, "*.ksim"))
	if err != nil {
		return err
	}
	sort.Strings(paths)
	list := []Example{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		name := strings.TrimSuffix(filepath.Base(p), ".ksim")
		url := "/scenarios/" + name + ".ksim"
		a.put(url, b, nil, "")
		list = append(list, Example{Name: name, Title: firstComment(b), File: url})
	}
	idx, err := json.Marshal(list)
	if err != nil {
		return err
	}
	a.put("/scenarios/index.json", idx, nil, "")
	return nil
}

// firstComment is the text of a script's first comment line.
func firstComment(b []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(l, "#") {
			return strings.TrimSpace(strings.TrimLeft(l, "#"))
		}
		if l != "" {
			return ""
		}
	}
	return ""
}

// Paths lists the URL paths the app serves, sorted.
func (a *App) Paths() []string {
	var out []string
	for p := range a.files {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Size returns the bytes of the file at urlPath, raw and as served
// gzipped (raw when it is not compressed); 0, 0 when there is none.
func (a *App) Size(urlPath string) (raw, gz int) {
	f := a.files[urlPath]
	if f == nil {
		return 0, 0
	}
	if f.gz == nil {
		return len(f.data), len(f.data)
	}
	return len(f.data), len(f.gz)
}

// ServeHTTP serves the app: "/" is index.html; a file is sent gzipped
// when the client accepts it; anything else is 404. Only GET and HEAD.
func (a *App) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	p := r.URL.Path
	if p == "/" {
		p = "/index.html"
	}
	f := a.files[p]
	if f == nil {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", f.ctype)
	h.Set("ETag", f.etag)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-cache") // revalidate: the ETag makes it cheap
	h.Add("Vary", "Accept-Encoding")
	if match := r.Header.Get("If-None-Match"); match != "" && match == f.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := f.data
	if f.gz != nil && acceptsGzip(r) {
		h.Set("Content-Encoding", "gzip")
		body = f.gz
	}
	h.Set("Content-Length", fmt.Sprint(len(body)))
	if r.Method == http.MethodHead {
		return
	}
	w.Write(body)
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.TrimSpace(enc) == "gzip" && strings.ReplaceAll(q, " ", "") != "q=0" {
			return true
		}
	}
	return false
}

// WriteSite writes every file under dir (dir/index.html, dir/wasm/...),
// each with a .gz copy when that is smaller, for any static web server
// (nginx gzip_static, Caddy precompressed, ...).
func (a *App) WriteSite(dir string) error {
	for _, p := range a.Paths() {
		f := a.files[p]
		dst := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(p, "/")))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, f.data, 0o644); err != nil {
			return err
		}
		if f.gz != nil {
			if err := os.WriteFile(dst+".gz", f.gz, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}
