package zookeeper

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
)

// syncBuf is an output buffer safe to read while a process writes it.
type syncBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The integration tests run Debian's zkCli.sh (package zookeeper) and
// python's kazoo (package python3-kazoo) against the listener. .ci/run
// installs both where absent; a machine without them skips these tests.

const zkCli = "/usr/share/zookeeper/bin/zkCli.sh"

// commitScript is a 0.11+ cluster after a consumer group commits: the
// group coordinator has created __consumer_offsets.
const commitScript = `cluster brokers=3 seed=4 version=2.8 metadata=zk
topic create orders partitions=2 rf=3
producer p1 acks=all
produce p1 orders value=m count=4
consumer c1 group=g topics=orders offset.reset=earliest
wait 5s
poll c1
commit c1
wait 1s
`

// zk08Script is the 0.8 preset: offsets are znodes.
const zk08Script = `cluster brokers=3 seed=17 version=0.8
topic create t partitions=2 rf=3
producer p1 acks=1 partitioner=roundrobin
consumer c1 group=g topics=t offset.reset=earliest
wait 5s
produce p1 t value=m count=4
wait 65s
expect znode /consumers/g/offsets/t/0 == 2
`

func needTool(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s not installed (.ci/run installs it): %v", path, err)
	}
}

// runZkCli runs zkCli.sh once with commands on stdin and returns its
// output. One JVM start per call: keep calls few.
func runZkCli(t *testing.T, addr string, cmds ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, zkCli, "-server", addr)
	cmd.Stdin = strings.NewReader(strings.Join(append(cmds, "quit"), "\n") + "\n")
	cmd.Env = append(os.Environ(), "ZOO_LOG_DIR="+t.TempDir(), "CLIENT_JVMFLAGS=-Xshare:auto -XX:TieredStopAtLevel=1 -Xmx64m")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("zkCli.sh: %v\n%s", err, out)
	}
	t.Logf("zkCli.sh %s:\n%s", strings.Join(cmds, "; "), out)
	return string(out)
}

// TestZkCli: zkCli.sh lists __consumer_offsets under /brokers/topics after
// a group commit (0.11+), reads stat fields, is refused a write, and on
// the 0.8 preset reads a consumer offset znode.
func TestZkCli(t *testing.T) {
	needTool(t, zkCli)
	if _, err := exec.LookPath("java"); err != nil {
		t.Skip("no java")
	}
	_, s := serveCluster(t, runScript(t, commitScript), Config{})
	out := runZkCli(t, s.Addr().String(), "ls /brokers/topics", "stat /brokers/ids/1", "create /mine x", "ls /brokers/ids")
	for _, want := range []string{"[__consumer_offsets, orders]", "ephemeralOwner = 0x1", "cZxid = 0x1", "numChildren = 0", "Insufficient permission : /mine", "[1, 2, 3]"} {
		if !strings.Contains(out, want) {
			t.Errorf("zkCli output lacks %q:\n%s", want, out)
		}
	}

	_, s08 := serveCluster(t, runScript(t, zk08Script), Config{})
	out = runZkCli(t, s08.Addr().String(), "ls /consumers/g/offsets/t", "get /consumers/g/offsets/t/0", "ls /brokers/topics")
	for _, want := range []string{"[0, 1]", "\n2\n", "[t]"} {
		if !strings.Contains(out, want) {
			t.Errorf("zkCli (0.8) output lacks %q:\n%s", want, out)
		}
	}
}

const kazooScript = `
import sys, threading
from kazoo.client import KazooClient
from kazoo.exceptions import NoAuthError, NoNodeError
zk = KazooClient(hosts=sys.argv[1], timeout=30)
zk.start(timeout=10)
mode = sys.argv[2]
if mode == "commit":
    print("topics", ",".join(sorted(zk.get_children("/brokers/topics"))))
    data, st = zk.get("/controller")
    print("controller owner", hex(st.ephemeralOwner), "czxid", hex(st.czxid))
    try:
        zk.create("/mine", b"x")
    except NoAuthError:
        print("create refused NoAuth")
    fired = threading.Event()
    def watch(ev):
        print("watch", ev.type, ev.path)
        fired.set()
    zk.get_children("/brokers/ids", watch=watch)
    print("watching", flush=True)
    sys.stdin.readline()
    print("fired" if fired.wait(10) else "not fired")
else:
    data, st = zk.get("/consumers/g/offsets/t/0")
    print("offset", data.decode(), "version", st.version)
    try:
        zk.get("/consumers/g/offsets/t/9")
    except NoNodeError:
        print("no partition 9")
zk.stop()
`

// TestKazoo: python's kazoo reads the same tree, is refused a write, and
// a child watch fires when a broker is crashed in the simulation.
func TestKazoo(t *testing.T) {
	py := "/usr/bin/python3"
	needTool(t, py)
	if err := exec.Command(py, "-c", "import kazoo").Run(); err != nil {
		t.Skip("python3-kazoo not installed (.ci/run installs it)")
	}
	script := filepath.Join(t.TempDir(), "kz.py")
	if err := os.WriteFile(script, []byte(kazooScript), 0o644); err != nil {
		t.Fatal(err)
	}
	c := runScript(t, commitScript+"set zookeeper.session.timeout.ms=6000\n")
	d, s := serveCluster(t, c, Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, script, s.Addr().String(), "commit")
	stdin, _ := cmd.StdinPipe()
	var out syncBuf
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(out.String(), "watching"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("kazoo did not start watching:\n%s", out.String())
		}
	}
	d.apply(t, core.CrashBroker{Broker: 3})
	d.jump(t, 8000)
	stdin.Write([]byte("go\n"))
	if err := cmd.Wait(); err != nil {
		t.Fatalf("kazoo: %v\n%s", err, out.String())
	}
	for _, want := range []string{"topics __consumer_offsets,orders", "controller owner 0x1", "create refused NoAuth", "watch CHILD /brokers/ids", "fired"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("kazoo output lacks %q:\n%s", want, out.String())
		}
	}

	_, s08 := serveCluster(t, runScript(t, zk08Script), Config{})
	got, err := exec.CommandContext(ctx, py, script, s08.Addr().String(), "0.8").CombinedOutput()
	if err != nil {
		t.Fatalf("kazoo (0.8): %v\n%s", err, got)
	}
	for _, want := range []string{"offset 2 version", "no partition 9"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("kazoo (0.8) output lacks %q:\n%s", want, got)
		}
	}
}
