package zookeeper

import (
	"strconv"
	"strings"
	"testing"
	"time"

	gozk "github.com/go-zookeeper/zk"

	"github.com/kafkasim/kafkasim/core"
)

// TestGoZKDeleteController: go-zookeeper deletes /controller. A wrong
// version gets BADVERSION and changes nothing; with -1 the delete works,
// the client's own watch fires NodeDeleted, and the brokers elect a
// controller: /controller is back with a higher /controller_epoch, and
// the core's controller is the broker it names.
func TestGoZKDeleteController(t *testing.T) {
	c := newZKClusterT(t, "2.8")
	d, s := serveCluster(t, c, Config{})
	conn, _ := dial(t, s, 20*time.Second)

	_, st, err := conn.Get("/controller")
	if err != nil {
		t.Fatal(err)
	}
	epoch0 := readEpoch(t, conn)
	if err := conn.Delete("/controller", st.Version+3); err != gozk.ErrBadVersion {
		t.Fatalf("delete /controller with version %d: %v, want ErrBadVersion", st.Version+3, err)
	}
	if _, again, err := conn.Get("/controller"); err != nil || again.Czxid != st.Czxid {
		t.Fatalf("after BADVERSION: %+v %v", again, err)
	}
	ok, _, watch, err := conn.ExistsW("/controller")
	if err != nil || !ok {
		t.Fatalf("exists /controller: %v %v", ok, err)
	}
	if err := conn.Delete("/controller", st.Version); err != nil {
		t.Fatalf("delete /controller: %v", err)
	}
	select {
	case ev := <-watch:
		if ev.Type != gozk.EventNodeDeleted || ev.Path != "/controller" {
			t.Fatalf("watch: %+v", ev)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the watch on /controller did not fire")
	}
	// The brokers' election takes a few virtual ms (their watch events,
	// reads and creates travel the simulated network).
	var data []byte
	var cst *gozk.Stat
	deadline := time.Now().Add(10 * time.Second)
	for {
		data, cst, err = conn.Get("/controller")
		if err == nil {
			break
		}
		if err != gozk.ErrNoNode || time.Now().After(deadline) {
			t.Fatalf("get /controller after the delete: %v", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if cst.Czxid <= st.Czxid || cst.EphemeralOwner == 0 {
		t.Fatalf("new /controller %+v, old czxid %x", cst, st.Czxid)
	}
	if epoch1 := readEpoch(t, conn); epoch1 != epoch0+1 {
		t.Fatalf("controller epoch %d -> %d, want +1", epoch0, epoch1)
	}
	var ctrl int
	_ = d.Do(t.Context(), func(c *core.Cluster) { ctrl = c.Controller() })
	if ctrl == 0 || !strings.Contains(string(data), `"brokerid":`+strconv.Itoa(ctrl)) {
		t.Fatalf("the core's controller %d, /controller says %s", ctrl, data)
	}
	// The root's ACL is open (OPEN_ACL_UNSAFE), Kafka's znodes' are not.
	if acl, _, err := conn.GetACL("/"); err != nil || len(acl) != 1 || acl[0].Scheme != "world" || acl[0].Perms != gozk.PermAll {
		t.Fatalf("getACL /: %+v %v", acl, err)
	}
	// Other writes stay refused, and the session is fine.
	if err := conn.Delete("/controller_epoch", -1); err != gozk.ErrNoAuth {
		t.Fatalf("delete /controller_epoch: %v, want ErrNoAuth", err)
	}
	if _, _, err := conn.Children("/brokers/ids"); err != nil {
		t.Fatal(err)
	}
}

func readEpoch(t *testing.T, conn *gozk.Conn) int {
	t.Helper()
	b, _, err := conn.Get("/controller_epoch")
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatalf("/controller_epoch %q", b)
	}
	return n
}
