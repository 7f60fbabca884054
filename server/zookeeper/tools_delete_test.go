package zookeeper

import (
	"context"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/server/room"
)

// TestZkCliDeleteController: zkCli.sh `delete /controller` against a
// served room forces a controller election: /controller_epoch goes up,
// the room's history keeps the delete as a `zk delete` line, and that
// history replays to the same controller epoch.
func TestZkCliDeleteController(t *testing.T) {
	needTool(t, zkCli)
	if _, err := exec.LookPath("java"); err != nil {
		t.Skip("no java")
	}
	r, err := room.New(room.Config{Name: "zk", Script: "cluster brokers=3 seed=4 version=2.8 metadata=zk\ntopic create orders partitions=2 rf=3\n"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := Serve(ln, r, Config{Logf: t.Logf})
	defer s.Close()
	epoch := func() string {
		var e string
		_ = r.Do(context.Background(), func(c *core.Cluster) { e, _, _ = c.ZooKeeper().Get("/controller_epoch") })
		return e
	}
	before := epoch()
	out := runZkCli(t, s.Addr().String(), "delete /brokers/ids/1", "get /controller_epoch", "delete /controller", "ls /brokers/ids")
	if !strings.Contains(out, "Insufficient permission : /brokers/ids/1") {
		t.Errorf("delete /brokers/ids/1 was not refused:\n%s", out)
	}
	deadline := time.Now().Add(10 * time.Second)
	for epoch() == before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	after := epoch()
	if after == before {
		t.Fatalf("controller epoch still %s after zkCli's delete /controller", before)
	}
	h, err := r.History(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h.Ksim, "zk delete /controller session=0x") || strings.Contains(h.Ksim, "WARNING") {
		t.Fatalf("history:\n%s", h.Ksim)
	}
	// The history replays to the same election.
	c := runScript(t, h.Ksim)
	if e, _, _ := c.ZooKeeper().Get("/controller_epoch"); e != after || c.Controller() != h.Snapshot.Controller {
		t.Fatalf("replayed history: controller %d epoch %s, the room had %d, %s\n%s", c.Controller(), e, h.Snapshot.Controller, after, h.Ksim)
	}
}
