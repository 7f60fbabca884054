package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// freeBase finds n consecutive free loopback ports.
func freeBase(t *testing.T, n int) int {
	t.Helper()
	for try := 0; try < 50; try++ {
		base := 20000 + rand.IntN(30000)
		ok := true
		for i := 0; i < n && ok; i++ {
			ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(base+i)))
			if err != nil {
				ok = false
				continue
			}
			ln.Close()
		}
		if ok {
			return base
		}
	}
	t.Fatal("no free ports")
	return 0
}

// kcat runs Debian's kcat (librdkafka) with a time limit.
func kcat(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "kcat", args...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kcat %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestKcat: `kafkasim serve` advertises every simulated broker to a real
// librdkafka client: kcat lists the cluster (-L), produces (-P), consumes
// (-C) and consumes in a group (-G) against it.
func TestKcat(t *testing.T) {
	if _, err := exec.LookPath("kcat"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("kcat is not installed (.ci/run installs it)")
		}
		t.Skip("kcat is not installed")
	}
	base := freeBase(t, 3)
	scen := filepath.Join(t.TempDir(), "kcat.ksim")
	os.WriteFile(scen, []byte("cluster brokers=3 seed=3 version=3.9 metadata=kraft\ntopic create orders partitions=3 rf=3\n"), 0o644)
	_, banner := startServe(t, "--scenario", scen, "--kafka-listen", fmt.Sprintf("127.0.0.1:%d", base))
	if !strings.Contains(banner, fmt.Sprintf("kcat -b 127.0.0.1:%d -L", base)) {
		t.Errorf("banner does not say how to reach the brokers:\n%s", banner)
	}
	b := fmt.Sprintf("127.0.0.1:%d", base)
	var md string
	for i := 0; i < 50; i++ { // the leaders are elected a few hundred ms in
		md = kcat(t, "", "-b", b, "-L", "-t", "orders")
		if strings.Count(md, "leader ") == 3 && !strings.Contains(md, "leader -1") {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	for id := 1; id <= 3; id++ {
		if !strings.Contains(md, fmt.Sprintf("broker %d at 127.0.0.1:%d", id, base+id-1)) {
			t.Fatalf("kcat -L does not list broker %d at its port:\n%s", id, md)
		}
	}
	if !strings.Contains(md, `topic "orders" with 3 partitions`) {
		t.Fatalf("kcat -L:\n%s", md)
	}
	var lines []string
	for i := 0; i < 30; i++ {
		lines = append(lines, fmt.Sprintf("m%02d", i))
	}
	kcat(t, strings.Join(lines, "\n")+"\n", "-b", b, "-P", "-t", "orders", "-X", "acks=all")
	got := strings.Fields(kcat(t, "", "-b", b, "-C", "-t", "orders", "-o", "beginning", "-e", "-q"))
	sort.Strings(got)
	if strings.Join(got, ",") != strings.Join(lines, ",") {
		t.Fatalf("kcat -C read %v, want %v", got, lines)
	}
	g := strings.Fields(kcat(t, "", "-b", b, "-G", "grp", "orders", "-o", "beginning", "-e", "-q", "-X", "auto.offset.reset=earliest"))
	sort.Strings(g)
	if strings.Join(g, ",") != strings.Join(lines, ",") {
		t.Fatalf("kcat -G read %v, want %v", g, lines)
	}
}
