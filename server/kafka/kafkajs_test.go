package kafka

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
)

// kafkajsVersion is the kafkajs release testdata/kafkajs/package.json pins.
const kafkajsVersion = "2.2.4"

// kafkajsDir installs kafkajs (once) into a cache directory the test
// owns: $KAFKASIM_NODE_CACHE, else the user cache dir's
// kafkasim/kafkajs-<version>. It skips the test only when the npm
// registry cannot be reached.
func kafkajsDir(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s not found: .ci/run installs nodejs and npm", tool)
		}
	}
	root := os.Getenv("KAFKASIM_NODE_CACHE")
	if root == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			c = os.TempDir()
		}
		root = filepath.Join(c, "kafkasim")
	}
	dir := filepath.Join(root, "kafkajs-"+kafkajsVersion)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "kafkajs", "package.json")); err == nil {
		return dir
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	pkg, err := os.ReadFile(filepath.Join("testdata", "kafkajs", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), pkg, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--no-package-lock", "--loglevel=error")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		if unreachable.Match(out) || ctx.Err() != nil {
			t.Skipf("npm registry unreachable, kafkajs not installed (%v): %s", err, lastLines(string(out), 3))
		}
		t.Fatalf("npm install kafkajs@%s in %s: %v\n%s", kafkajsVersion, dir, err, out)
	}
	return dir
}

// unreachable matches npm's network failures.
var unreachable = regexp.MustCompile(`ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNREFUSED|ECONNRESET|ENETUNREACH|network|getaddrinfo`)

// runClient runs a real client's script (argv, with env added to the
// test's environment) for at most 90 s and returns its standard output;
// it fails t with that output and the end of its standard error when the
// script fails.
func runClient(t *testing.T, name string, env []string, argv ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("%s: %v\n%s\n%s", name, err, out, lastLines(stderr, 20))
	}
	return string(out)
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, " | ")
}

// TestKafkaJS: kafkajs 2.x (no flexible versions at all, its own
// ApiVersions and group code) finds the cluster, produces records with
// headers and timestamps at acks=all, and reads every one back through
// a consumer group.
func TestKafkaJS(t *testing.T) {
	dir := kafkajsDir(t)
	b := threeBrokers(t, "3.9", "kraft", core.CreateTopic{Topic: "js", Partitions: 3, RF: 3})
	_, addr := startServer(t, b, 3)
	script, err := filepath.Abs(filepath.Join("testdata", "kafkajs", "smoke.js"))
	if err != nil {
		t.Fatal(err)
	}
	out := runClient(t, "kafkajs", []string{"NODE_PATH=" + filepath.Join(dir, "node_modules"), "KAFKAJS_NO_PARTITIONER_WARNING=1"},
		"node", script, strings.Join(addrs(addr, 3), ","), "js", "30")
	var res struct {
		Partitions, Read int
		Bad              []any
	}
	if err := json.Unmarshal([]byte(lastLines(out, 1)), &res); err != nil {
		t.Fatalf("kafkajs output %q: %v", out, err)
	}
	if res.Partitions != 3 || res.Read != 30 || len(res.Bad) != 0 {
		t.Fatalf("kafkajs: %+v", res)
	}
}
