package webapp

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func testApp() *App {
	a := &App{files: map[string]*file{}}
	a.put("/index.html", []byte("<!doctype html>"+strings.Repeat(" kafkasim", 200)), nil, "")
	a.put("/wasm/engine.wasm", bytes.Repeat([]byte{0, 'a', 's', 'm'}, 1000), nil, "k")
	a.put("/assets/tiny.css", []byte("a{}"), nil, "")
	return a
}

func get(t *testing.T, h http.Handler, method, path string, hdr map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func TestServe(t *testing.T) {
	a := testApp()
	w := get(t, a, "GET", "/", nil)
	if w.Code != 200 || !strings.HasPrefix(w.Body.String(), "<!doctype html>") || w.Header().Get("Content-Encoding") != "" {
		t.Errorf("GET / without gzip: %d %q %v", w.Code, w.Body.String()[:15], w.Header())
	}
	w = get(t, a, "GET", "/wasm/engine.wasm", map[string]string{"Accept-Encoding": "br, gzip"})
	if w.Header().Get("Content-Encoding") != "gzip" || w.Header().Get("Content-Type") != "application/wasm" {
		t.Fatalf("wasm with gzip: %v", w.Header())
	}
	zr, err := gzip.NewReader(w.Body)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(zr)
	if len(body) != 4000 {
		t.Errorf("gunzipped %d bytes, want 4000", len(body))
	}
	if w := get(t, a, "GET", "/wasm/engine.wasm", map[string]string{"Accept-Encoding": "gzip;q=0"}); w.Header().Get("Content-Encoding") != "" {
		t.Errorf("gzip;q=0 still gzipped")
	}
	if w := get(t, a, "GET", "/assets/tiny.css", map[string]string{"Accept-Encoding": "gzip"}); w.Header().Get("Content-Encoding") != "" || w.Body.String() != "a{}" {
		t.Errorf("a tiny file is not worth gzip: %v", w.Header())
	}
	etag := w.Header().Get("ETag")
	if w := get(t, a, "GET", "/", map[string]string{"If-None-Match": get(t, a, "GET", "/", nil).Header().Get("ETag")}); w.Code != http.StatusNotModified {
		t.Errorf("If-None-Match: %d", w.Code)
	}
	_ = etag
	for _, c := range []struct {
		method, path string
		code         int
	}{{"GET", "/nope", 404}, {"GET", "/../go.mod", 404}, {"POST", "/", 405}, {"HEAD", "/", 200}} {
		if w := get(t, a, c.method, c.path, nil); w.Code != c.code {
			t.Errorf("%s %s: %d, want %d", c.method, c.path, w.Code, c.code)
		}
	}
	if w := get(t, a, "HEAD", "/", nil); w.Body.Len() != 0 {
		t.Errorf("HEAD has a body")
	}
}

func TestWriteSite(t *testing.T) {
	dir := t.TempDir()
	if err := testApp().WriteSite(dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"index.html", "index.html.gz", "wasm/engine.wasm", "wasm/engine.wasm.gz", "assets/tiny.css"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("site lacks %s", f)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "assets/tiny.css.gz")); err == nil {
		t.Errorf("a .gz larger than its file was written")
	}
}

// fakeTree is a module with a tiny engine package, index.html and one
// scenario: enough for Build.
func fakeTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"go.mod":                               "module " + Module + "\n\ngo 1.26\n",
		"wasm/canvas/main.go":                  "package main\n\nfunc main() { println(\"v1\") }\n",
		"wasm/lessonparse/main.go":             "package main\n\nfunc main() {}\n",
		"index.html":                           "<!doctype html><title>t</title>",
		"assets/app.js":                        "console.log(1)",
		"core/scenario/testdata/a.ksim":        "# The first example\ncluster brokers=1\n",
		"core/scenario/testdata/notes/skip.md": "not a scenario",
	}
	for name, text := range files {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestBuildCachesAndRebuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds wasm")
	}
	root, cache := fakeTree(t), t.TempDir()
	var log bytes.Buffer
	a, err := Build(Options{Root: root, CacheDir: cache, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "building kafkasim.wasm") {
		t.Errorf("first build log: %q", log.String())
	}
	if len(a.Notes) != 1 { // no canvas.html
		t.Errorf("notes %v", a.Notes)
	}
	for _, p := range []string{"/wasm/kafkasim.wasm", "/wasm/lessonparse.wasm", "/wasm/wasm_exec.js", "/index.html", "/assets/app.js", "/scenarios/a.ksim", "/scenarios/index.json", "/lessons/en/index.json", "/lessons/zh/architecture.json"} {
		if a.files[p] == nil {
			t.Errorf("no %s in %v", p, a.Paths())
		}
	}
	var idx []Example
	if err := json.Unmarshal(a.files["/scenarios/index.json"].data, &idx); err != nil || len(idx) != 1 || idx[0].Title != "The first example" {
		t.Errorf("index %s", a.files["/scenarios/index.json"].data)
	}
	if !bytes.HasPrefix(a.files["/wasm/kafkasim.wasm"].data, []byte("\x00asm")) {
		t.Errorf("kafkasim.wasm is not WebAssembly")
	}
	log.Reset()
	if _, err := Build(Options{Root: root, CacheDir: cache, Log: &log}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(log.String(), "building") {
		t.Errorf("second start rebuilt: %q", log.String())
	}
	os.WriteFile(filepath.Join(root, "wasm/canvas/main.go"), []byte("package main\n\nfunc main() { println(\"v2\") }\n"), 0o644)
	log.Reset()
	if _, err := Build(Options{Root: root, CacheDir: cache, Log: &log}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "building kafkasim.wasm") {
		t.Errorf("an edit did not rebuild: %q", log.String())
	}
	os.WriteFile(filepath.Join(root, "wasm/canvas/main.go"), []byte("package main\n\nfunc main() { undefined() }\n"), 0o644)
	if _, err := Build(Options{Root: root, CacheDir: cache, Log: io.Discard}); err == nil || !strings.Contains(err.Error(), "undefined") {
		t.Errorf("a broken source: %v", err)
	}
}

func TestFindRoot(t *testing.T) {
	root := fakeTree(t)
	got, err := FindRoot(filepath.Join(root, "wasm", "engine"))
	if err != nil || got != root {
		t.Errorf("FindRoot = %q, %v; want %q", got, err, root)
	}
	if _, err := FindRoot(t.TempDir()); err == nil {
		t.Errorf("FindRoot outside a tree succeeded")
	}
}

// TestGzipBest: the wasm's precompressed copy (GNU gzip when there is
// one) decompresses to the wasm.
func TestGzipBest(t *testing.T) {
	in := bytes.Repeat([]byte("\x00asm kafkasim wasm "), 5000)
	zr, err := gzip.NewReader(bytes.NewReader(gzipBest(in)))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(out, in) {
		t.Fatalf("round trip: %v, %d bytes of %d", err, len(out), len(in))
	}
}
