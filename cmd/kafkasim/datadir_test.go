package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// serveFor runs serve with args until the returned stop is called; stop
// returns serve's stderr.
func serveFor(t *testing.T, args ...string) (stop func() string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	var out, errb syncBuf
	done := make(chan int, 1)
	go func() {
		done <- serve(ctx, append([]string{"--listen", "127.0.0.1:0", "--no-app", "--zookeeper", "off"}, args...), &out, &errb, func(a string) { addr <- a })
	}()
	stopped := false
	stop = func() string {
		if !stopped {
			stopped = true
			cancel()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Error("serve did not stop")
			}
		}
		return errb.String()
	}
	t.Cleanup(func() { stop() })
	select {
	case <-addr:
	case code := <-done:
		t.Fatalf("serve exited %d: %s", code, errb.String())
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not start")
	}
	return stop
}

// diskRecords decodes a .log file with kmsg, checking CRCs, and returns
// its record values and timestamps.
func diskRecords(t *testing.T, path string) (vals []string, ts []int64) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for len(data) > 0 {
		if len(data) < 61 {
			t.Fatalf("%s: %d trailing bytes", path, len(data))
		}
		n := int(binary.BigEndian.Uint32(data[8:])) + 12
		var rb kmsg.RecordBatch
		if err := rb.ReadFrom(data[:n]); err != nil {
			t.Fatal(err)
		}
		if crc32.Checksum(data[21:n], crc32.MakeTable(crc32.Castagnoli)) != uint32(rb.CRC) {
			t.Fatalf("%s: bad CRC at batch %d", path, rb.FirstOffset)
		}
		recs := rb.Records
		for i := 0; i < int(rb.NumRecords); i++ {
			l, w := binary.Varint(recs)
			var r kmsg.Record
			if err := r.ReadFrom(recs[:w+int(l)]); err != nil {
				t.Fatal(err)
			}
			vals = append(vals, string(r.Value))
			ts = append(ts, rb.FirstTimestamp+r.TimestampDelta64)
			recs = recs[w+int(l):]
		}
		data = data[n:]
	}
	return vals, ts
}

// TestServeDataDir: franz-go produces to `serve --data-dir`; every
// replica's .log then holds the records in record batch v2 (CRC checked
// by decoding with kmsg), with the timestamps the client sent.
func TestServeDataDir(t *testing.T) {
	base := freeBase(t, 3)
	dir := t.TempDir()
	scen := filepath.Join(t.TempDir(), "d.ksim")
	os.WriteFile(scen, []byte("cluster brokers=3 seed=3 version=3.9 metadata=kraft\ntopic create orders partitions=1 rf=3\n"), 0o644)
	b := fmt.Sprintf("127.0.0.1:%d", base)
	stop := serveFor(t, "--scenario", scen, "--kafka-listen", b, "--data-dir", dir)
	cl, err := kgo.NewClient(kgo.SeedBrokers(b), kgo.RequiredAcks(kgo.AllISRAcks()), kgo.ProducerBatchCompression(kgo.GzipCompression()))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ts0 := time.UnixMilli(1_600_000_000_000)
	for i := 0; i < 20; i++ {
		r := &kgo.Record{Topic: "orders", Value: []byte(fmt.Sprintf("v%02d", i)), Timestamp: ts0.Add(time.Duration(i) * time.Millisecond)}
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatalf("produce %d: %v", i, err)
		}
	}
	cl.Close()
	time.Sleep(300 * time.Millisecond) // followers fetch the last batch
	stop()
	for id := 1; id <= 3; id++ {
		vals, ts := diskRecords(t, filepath.Join(dir, fmt.Sprintf("broker-%d", id), "orders-0", "00000000000000000000.log"))
		if len(vals) != 20 {
			t.Fatalf("broker %d: %d records on disk, want 20: %v", id, len(vals), vals)
		}
		for i := range vals {
			if vals[i] != fmt.Sprintf("v%02d", i) || ts[i] != ts0.UnixMilli()+int64(i) {
				t.Fatalf("broker %d record %d: %q at %d, want v%02d at %d", id, i, vals[i], ts[i], i, ts0.UnixMilli()+int64(i))
			}
		}
		for _, f := range []string{"meta.properties", "replication-offset-checkpoint", "recovery-point-offset-checkpoint", "log-start-offset-checkpoint", ".kafka_cleanshutdown",
			"orders-0/partition.metadata", "orders-0/leader-epoch-checkpoint", "orders-0/00000000000000000000.index", "orders-0/00000000000000000000.timeindex"} {
			if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("broker-%d", id), f)); err != nil {
				t.Errorf("broker %d: %v", id, err)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "cluster-metadata.json")); err != nil {
		t.Error(err)
	}
}
