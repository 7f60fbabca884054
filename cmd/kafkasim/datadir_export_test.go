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
	base := freeBase(t, 3)
	dir := t.TempDir()
	scen := filepath.Join(t.TempDir(), "d.ksim")
	os.WriteFile(scen, []byte("cluster brokers=3 seed=3 version=3.9 metadata=kraft\ntopic create orders partitions=1 rf=3\n"), 0o644)
	b := fmt.Sprintf("127.0.0.1:%d", base)
	stop := serveFor(t, "--scenario", scen, "--kafka-listen", b, "--data-dir", dir)
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

	sctx, scancel := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	done := make(chan int, 1)
	var out, errb syncBuf
	go func() {
		done <- serve(sctx, []string{"--listen", "127.0.0.1:0", "--no-app", "--zookeeper", "off", "--kafka-listen", b, "--data-dir", dir}, &out, &errb, func(a string) { addr <- a })
	}()
	defer func() { scancel(); <-done }()
	var web string
	select {
	case web = <-addr:
	case code := <-done:
		t.Fatalf("serve exited %d: %s", code, errb.String())
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not start")
	}
	if !strings.HasPrefix(web, "http") {
		web = "http://" + web
	}
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
