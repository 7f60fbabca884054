package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ordersScenario writes the scenario serveOrders serves and returns its path.
func ordersScenario(t *testing.T) string {
	t.Helper()
	scen := filepath.Join(t.TempDir(), "d.ksim")
	if err := os.WriteFile(scen, []byte("cluster brokers=3 seed=3 version=3.9 metadata=kraft\ntopic create orders partitions=1 rf=3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return scen
}

// serveOrders serves a three-broker KRaft cluster with the topic orders
// (one partition, RF 3) to Kafka clients on free ports, with more serve
// args; it returns the first broker's address.
func serveOrders(t *testing.T, args ...string) (kafka string, stop func() string) {
	t.Helper()
	scen := ordersScenario(t)
	kafka = fmt.Sprintf("127.0.0.1:%d", freeBase(t, 3))
	return kafka, serveFor(t, append([]string{"--scenario", scen, "--kafka-listen", kafka}, args...)...)
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

// pollN polls until it has n records (or ctx ends).
func pollN(t *testing.T, ctx context.Context, cl *kgo.Client, n int) []*kgo.Record {
	var got []*kgo.Record
	for len(got) < n && ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) { got = append(got, r) })
	}
	return got
}

// TestServeDataDir: franz-go produces to `serve --data-dir`; every
// replica's .log then holds the records in record batch v2 (CRC checked
// by decoding with kmsg), with the timestamps the client sent.
func TestServeDataDir(t *testing.T) {
	dir := t.TempDir()
	b, stop := serveOrders(t, "--data-dir", dir)
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
	// A group reads everything and commits: the offsets go to __consumer_offsets.
	g, err := kgo.NewClient(kgo.SeedBrokers(b), kgo.ConsumerGroup("g"), kgo.ConsumeTopics("orders"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.DisableAutoCommit())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(pollN(t, ctx, g, 20)); n != 20 {
		t.Fatalf("group read %d", n)
	}
	if err := g.CommitUncommittedOffsets(ctx); err != nil {
		t.Fatal(err)
	}
	g.Close()
	time.Sleep(300 * time.Millisecond) // followers fetch the last batches
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

	// A torn tail on broker 1, then a restart from the directory alone:
	// the tail is cut with a message, and a consumer reads the same
	// records with the same timestamps.
	f1 := filepath.Join(dir, "broker-1", "orders-0", "00000000000000000000.log")
	fh, _ := os.OpenFile(f1, os.O_APPEND|os.O_WRONLY, 0)
	fh.Write([]byte("torn write: half a batch"))
	fh.Close()
	stop2 := serveFor(t, "--kafka-listen", b, "--data-dir", dir)
	cc, err := kgo.NewClient(kgo.SeedBrokers(b), kgo.ConsumeTopics("orders"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	got := pollN(t, ctx, cc, 20)
	if len(got) != 20 {
		t.Fatalf("after the restart a consumer read %d records, want 20", len(got))
	}
	for i, r := range got {
		if string(r.Value) != fmt.Sprintf("v%02d", i) || r.Offset != int64(i) || !r.Timestamp.Equal(ts0.Add(time.Duration(i)*time.Millisecond)) {
			t.Fatalf("record %d after the restart: %q offset %d at %v", i, r.Value, r.Offset, r.Timestamp)
		}
	}
	cc.Close()
	// An idempotent producer after the restart appends after the old
	// records; the group resumes from its committed offset.
	p2, err := kgo.NewClient(kgo.SeedBrokers(b), kgo.RequiredAcks(kgo.AllISRAcks()))
	if err != nil {
		t.Fatal(err)
	}
	for i := 20; i < 25; i++ {
		if err := p2.ProduceSync(ctx, &kgo.Record{Topic: "orders", Value: []byte(fmt.Sprintf("v%02d", i))}).FirstErr(); err != nil {
			t.Fatalf("produce %d after the restart: %v", i, err)
		}
	}
	p2.Close()
	g2, err := kgo.NewClient(kgo.SeedBrokers(b), kgo.ConsumerGroup("g"), kgo.ConsumeTopics("orders"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.DisableAutoCommit())
	if err != nil {
		t.Fatal(err)
	}
	rest := pollN(t, ctx, g2, 5)
	g2.Close()
	if len(rest) != 5 || rest[0].Offset != 20 || string(rest[0].Value) != "v20" {
		t.Fatalf("the group after the restart read %d records from offset %d: want the 5 new ones from 20", len(rest), rest[0].Offset)
	}
	errs := stop2()
	if !strings.Contains(errs, filepath.Join("broker-1", "orders-0", "00000000000000000000.log")+": torn tail: cut at byte ") || !strings.Contains(errs, "recovered 2 topic(s), 153 replica log(s)") { // orders and __consumer_offsets
		t.Fatalf("serve's messages do not tell what was cut:\n%s", errs)
	}
	t.Logf("serve said:\n%s", errs)
	vals, _ := diskRecords(t, f1) // the file decodes whole again
	if len(vals) < 20 {
		t.Fatalf("broker 1 holds %d records after the restart", len(vals))
	}
	// --scenario cannot replace a cluster the directory holds.
	var out, eb syncBuf
	if code := serve(context.Background(), []string{"--listen", "127.0.0.1:0", "--no-app", "--zookeeper", "off", "--kafka-listen", "off", "--data-dir", dir, "--scenario", ordersScenario(t)}, &out, &eb, nil); code != 2 || !strings.Contains(eb.String(), "already holds a cluster") {
		t.Fatalf("--scenario on a used --data-dir: exit %d, %s", code, eb.String())
	}
}

// TestServeNoDataDirNoFiles: without --data-dir the logs stay in memory:
// a produce through serve writes no file where it runs.
func TestServeNoDataDirNoFiles(t *testing.T) {
	work := t.TempDir()
	t.Chdir(work)
	b, stop := serveOrders(t)
	cl, err := kgo.NewClient(kgo.SeedBrokers(b))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := 0; i < 5; i++ {
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "orders", Value: []byte("x")}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	cl.Close()
	stop()
	if ents, _ := os.ReadDir(work); len(ents) != 0 {
		t.Fatalf("serve without --data-dir wrote %s", ents[0].Name())
	}
}
