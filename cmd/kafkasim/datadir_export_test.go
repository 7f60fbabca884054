package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestServeDataDirExport: the history of a room restarted from a data
// dir exports as a .ksim that `kafkasim run` replays: the restore is in
// it (restore lines), and so are the restored records.
func TestServeDataDirExport(t *testing.T) {
	dir := t.TempDir()
	b, stop := serveOrders(t, "--data-dir", dir)
	cl, err := kgo.NewClient(kgo.SeedBrokers(b), kgo.DefaultProduceTopic("orders"), kgo.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := 0; i < 5; i++ {
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte(fmt.Sprintf("disk-%d", i))}).FirstErr(); err != nil {
			t.Fatalf("produce %d: %v", i, err)
		}
	}
	cl.Close()
	time.Sleep(300 * time.Millisecond) // followers fetch the last batch
	stop()

	web, _, _ := serveAt(t, "--kafka-listen", b, "--data-dir", dir)
	get := func(path string) []byte {
		resp, err := http.Get(web + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %s %s", path, resp.Status, body)
		}
		return body
	}
	var info struct {
		DefaultRoom string `json:"defaultRoom"`
	}
	if err := json.Unmarshal(get("/api/info"), &info); err != nil {
		t.Fatal(err)
	}
	ksim := string(get("/api/rooms/" + info.DefaultRoom + "/history.ksim"))
	if !strings.Contains(ksim, "\nrestore 1/") || strings.Contains(ksim, "WARNING") {
		t.Fatalf("the export holds no restore, or stops:\n%.2000s", ksim)
	}
	f := filepath.Join(t.TempDir(), "room.ksim")
	os.WriteFile(f, []byte(ksim+"print orders-0\n"), 0o644)
	var rout, rerr strings.Builder
	if code := runCmd([]string{f}, &rout, &rerr); code != 0 {
		t.Fatalf("kafkasim run of the export: exit %d\n%s\n%s", code, rout.String(), rerr.String())
	}
	for _, want := range []string{"restored orders from disk", "disk-0", "disk-4"} {
		if !strings.Contains(rout.String(), want) {
			t.Fatalf("kafkasim run of the export does not show %q:\n%s", want, rout.String())
		}
	}
}
