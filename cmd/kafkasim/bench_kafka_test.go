package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/internal/kafkabench"
)

// BenchmarkKafkaServerMemory: the memory of `kafkasim serve` in a process
// of its own (this binary again, so the figure is the server's alone, no
// client in it) serving kafkabench.Script to franz-go: KAFKASIM_BENCH_RECORDS
// records (default 1,000,000; 5,000,000 in make bench) of 100 bytes
// produced with acks=all while a consumer reads them. It reports the
// server's RSS before, after a fifth of the records and after all of them,
// and its peak (VmHWM): bounded by the topic's retention (6 partitions of
// at most 10 MB plus a 1 MB segment each; replicas share their batches),
// not by the records ever written. It also reports the CPU time each side
// spent a record over the run (server-cpu-ns/rec: the child's, from
// /proc; client-cpu-ns/rec: this process's, franz-go's producer and
// consumer), which BenchmarkFranzGoVsKfake (server/kafka) can only give
// together: kafkasim's own share, with nothing else in its process.
func BenchmarkKafkaServerMemory(b *testing.B) {
	n := 1_000_000
	if v, err := strconv.Atoi(os.Getenv("KAFKASIM_BENCH_RECORDS")); err == nil && v > 0 {
		n = v
	}
	for i := 0; i < b.N; i++ {
		script := filepath.Join(b.TempDir(), "bench.ksim")
		if err := os.WriteFile(script, []byte(kafkabench.Script), 0o644); err != nil {
			b.Fatal(err)
		}
		port := freePorts(b, 3)
		srv := startServeChild(b, fmt.Sprintf("--no-app --zookeeper off --kafka-listen 127.0.0.1:%d --scenario %s", port, script))
		seeds := []string{fmt.Sprintf("127.0.0.1:%d", port), fmt.Sprintf("127.0.0.1:%d", port+1), fmt.Sprintf("127.0.0.1:%d", port+2)}
		before, cpu0 := srv.rss(), srv.cpu()
		var early int64
		ph, err := kafkabench.Pipeline(seeds, n, func(produced int) {
			if produced == max(n/5, 1) {
				early = srv.rss()
			}
		})
		if err != nil {
			b.Fatal(err)
		}
		late, peak, scpu := srv.rss(), srv.peak(), srv.cpu()-cpu0
		mib := func(v int64) float64 { return float64(v) / (1 << 20) }
		perRec := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(n) }
		b.ReportMetric(float64(n)/ph.Total.Seconds(), "rec/s")
		b.ReportMetric(perRec(scpu), "server-cpu-ns/rec")
		b.ReportMetric(perRec(ph.CPU), "client-cpu-ns/rec")
		b.ReportMetric(mib(before), "server-rss-start-MiB")
		b.ReportMetric(mib(early), "server-rss-fifth-MiB")
		b.ReportMetric(mib(late), "server-rss-MiB")
		b.ReportMetric(mib(peak), "server-peak-rss-MiB")
		fmt.Fprintf(os.Stderr, "kafka server memory: %d records (%d deleted by retention before the consumer read them): kafkasim serve's RSS %.0f MiB at the start, %.0f after %d, %.0f after all (peak %.0f), in its own process; CPU a record: server %.0f ns, client %.0f ns\n",
			n, ph.Unread, mib(before), mib(early), max(n/5, 1), mib(late), mib(peak), perRec(scpu), perRec(ph.CPU))
	}
}

// freePorts finds n consecutive free ports on 127.0.0.1 (serve's broker
// N listens on the base port + N-1) and returns the first.
func freePorts(b *testing.B, n int) int {
	for try := 0; try < 50; try++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		base := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		ok := true
		var held []net.Listener
		for k := 0; k < n && ok; k++ {
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", base+k))
			if err != nil {
				ok = false
				break
			}
			held = append(held, l)
		}
		for _, l := range held {
			l.Close()
		}
		if ok {
			return base
		}
	}
	b.Fatal("no run of free ports")
	return 0
}

// cpu is the child's user and system CPU time so far (/proc/PID/stat's
// utime and stime, in clock ticks of 1/100 s: USER_HZ is 100 on Linux);
// 0 where there is no /proc.
func (c *child) cpu() time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", c.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')') // the command name may hold spaces
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:]) // from the state (field 3) on: utime is field 14, stime 15
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+st) * 10 * time.Millisecond
}
