package zookeeper

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	gozk "github.com/go-zookeeper/zk"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/internal/zktest"
)

// dial connects go-zookeeper's client and waits for its session.
func dial(t *testing.T, s *Server, timeout time.Duration) (*gozk.Conn, <-chan gozk.Event) {
	t.Helper()
	return zktest.MustSession(t, s.Addr().String(), timeout)
}

func newZKClusterT(t *testing.T, version string) *core.Cluster {
	t.Helper()
	c, err := core.New(core.Options{Brokers: 3, Seed: 3, Version: version, Metadata: "zk"})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Apply(core.Set{Configs: map[string]string{"zookeeper.session.timeout.ms": "6000"}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Apply(core.CreateTopic{Topic: "orders", Partitions: 2, RF: 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Advance(5000); err != nil {
		t.Fatal(err)
	}
	c.Events()
	return c
}

// TestGoZKReads: ls, get and stat with go-zookeeper show the simulated
// tree with its real Stat fields.
func TestGoZKReads(t *testing.T) {
	c := newZKClusterT(t, "2.8")
	d, s := serveCluster(t, c, Config{})
	conn, _ := dial(t, s, 20*time.Second)

	kids, st, err := conn.Children("/brokers/ids")
	if err != nil || !reflect.DeepEqual(kids, []string{"1", "2", "3"}) {
		t.Fatalf("ls /brokers/ids: %v %v", kids, err)
	}
	if st.NumChildren != 3 || st.Cversion != 3 {
		t.Fatalf("stat /brokers/ids: %+v", st)
	}
	root, _, err := conn.Children("/")
	if err != nil || !strings.Contains(strings.Join(root, ","), "zookeeper") || !strings.Contains(strings.Join(root, ","), "controller") {
		t.Fatalf("ls /: %v %v", root, err)
	}
	topics, _, _ := conn.Children("/brokers/topics")
	if !reflect.DeepEqual(topics, []string{"orders"}) {
		t.Fatalf("ls /brokers/topics: %v", topics)
	}

	data, cst, err := conn.Get("/controller")
	if err != nil || !strings.Contains(string(data), `"brokerid":`) {
		t.Fatalf("get /controller: %q %v", data, err)
	}
	var want []byte
	var wantStat core.ZKStat
	_ = d.Do(t.Context(), func(c *core.Cluster) {
		ctrl := c.Controller()
		var d string
		d, wantStat, _ = c.ZooKeeper().Get("/controller")
		want = []byte(d)
		_, b, _ := c.ZooKeeper().Get(fmt.Sprintf("/brokers/ids/%d", ctrl))
		if b.EphemeralOwner != wantStat.EphemeralOwner {
			t.Errorf("controller's session %x, its registration's %x", wantStat.EphemeralOwner, b.EphemeralOwner)
		}
	})
	if string(data) != string(want) || cst.EphemeralOwner != wantStat.EphemeralOwner || cst.Czxid != wantStat.Czxid ||
		cst.Mzxid != wantStat.Mzxid || cst.Ctime != wantStat.Ctime || cst.DataLength != int32(len(want)) || cst.Pzxid != wantStat.Pzxid {
		t.Fatalf("get /controller stat %+v, core has %+v", cst, wantStat)
	}
	if cst.EphemeralOwner == 0 || cst.Czxid>>32 != 1 {
		t.Fatalf("/controller: owner %x czxid %x", cst.EphemeralOwner, cst.Czxid)
	}

	ok, est, err := conn.Exists("/brokers/topics/orders/partitions/1/state")
	if err != nil || !ok || est.Version == 0 && est.DataLength == 0 {
		t.Fatalf("stat state znode: %v %+v %v", ok, est, err)
	}
	if ok, _, err := conn.Exists("/no/such/znode"); err != nil || ok {
		t.Fatalf("exists /no/such/znode: %v %v", ok, err)
	}
	if _, _, err := conn.Get("/no/such/znode"); err != gozk.ErrNoNode {
		t.Fatalf("get /no/such/znode: %v, want ErrNoNode", err)
	}
	if _, err := conn.Create("/mine", []byte("x"), 0, gozk.WorldACL(gozk.PermAll)); err != gozk.ErrNoAuth {
		t.Fatalf("create: %v, want ErrNoAuth", err)
	}
	if err := conn.Delete("/brokers/ids/1", -1); err != gozk.ErrNoAuth {
		t.Fatalf("delete /brokers/ids/1: %v, want ErrNoAuth", err)
	}
	acl, _, err := conn.GetACL("/brokers")
	if err != nil || len(acl) != 2 || acl[1].Scheme != "world" || acl[1].Perms != gozk.PermRead {
		t.Fatalf("getACL: %+v %v", acl, err)
	}
	// The connection still works after the refusals, and the requests
	// went over the simulated network: the browser sees them.
	if _, _, err := conn.Children("/brokers"); err != nil {
		t.Fatal(err)
	}
}

// TestGoZKWatchFiresOnCrash: a child watch on /brokers/ids and a data
// watch on the broker's registration fire when the broker is crashed in
// the simulation and its ZooKeeper session expires.
func TestGoZKWatchFiresOnCrash(t *testing.T) {
	c := newZKClusterT(t, "2.8")
	d, s := serveCluster(t, c, Config{})
	conn, _ := dial(t, s, 30*time.Second)
	_, _, childW, err := conn.ChildrenW("/brokers/ids")
	if err != nil {
		t.Fatal(err)
	}
	_, _, dataW, err := conn.GetW("/brokers/ids/2")
	if err != nil {
		t.Fatal(err)
	}
	d.apply(t, core.CrashBroker{Broker: 2})
	select {
	case ev := <-childW:
		t.Fatalf("watch fired before the session expired: %+v", ev)
	case <-time.After(50 * time.Millisecond):
	}
	d.jump(t, 8000) // past zookeeper.session.timeout.ms=6000
	for name, ch := range map[string]<-chan gozk.Event{"child": childW, "data": dataW} {
		select {
		case ev := <-ch:
			want := gozk.EventNodeChildrenChanged
			path := "/brokers/ids"
			if name == "data" {
				want, path = gozk.EventNodeDeleted, "/brokers/ids/2"
			}
			if ev.Type != want || ev.Path != path {
				t.Fatalf("%s watch: %+v", name, ev)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s watch did not fire", name)
		}
	}
	kids, _, err := conn.Children("/brokers/ids")
	if err != nil || !reflect.DeepEqual(kids, []string{"1", "3"}) {
		t.Fatalf("after the crash: %v %v", kids, err)
	}
	// One-shot: a restart re-registers broker 2 without firing again
	// until a new watch is set.
	_, _, again, err := conn.ChildrenW("/brokers/ids")
	if err != nil {
		t.Fatal(err)
	}
	d.apply(t, core.Restart{Broker: 2})
	select {
	case ev := <-again:
		if ev.Type != gozk.EventNodeChildrenChanged {
			t.Fatalf("restart: %+v", ev)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no watch event for the restarted broker")
	}
}

// TestGoZKSplitExpiresSession: cut off from zk in the simulation, the
// client hears nothing; once the cut outlasts its session timeout, the
// session is expired when the client gets through again.
func TestGoZKSplitExpiresSession(t *testing.T) {
	c := newZKClusterT(t, "2.8")
	d, s := serveCluster(t, c, Config{})
	conn, events := dial(t, s, 4*time.Second) // negotiated to 4 s, ZooKeeper's minimum
	first := conn.SessionID()
	d.apply(t, core.NetSplit{Groups: [][]string{{"zk"}, {core.ZKClientHost}}})
	d.jump(t, 5000)
	d.apply(t, core.NetHeal{})
	deadline := time.After(10 * time.Second)
	sawExpired := false
	for !sawExpired {
		select {
		case ev := <-events:
			if ev.State == gozk.StateExpired {
				sawExpired = true
			}
		case <-deadline:
			t.Fatalf("no session expiry (state %v)", conn.State())
		}
	}
	// go-zookeeper then opens a new session on its own.
	for conn.State() != gozk.StateHasSession || conn.SessionID() == first {
		select {
		case <-events:
		case <-time.After(10 * time.Second):
			t.Fatalf("no new session (state %v)", conn.State())
		}
	}
	if _, _, err := conn.Children("/brokers/ids"); err != nil {
		t.Fatal(err)
	}
}

// TestGoZKKRaft: a KRaft cluster has no ZooKeeper; a client that connects
// anyway finds a README saying so and the metadata log, and cannot write.
func TestGoZKKRaft(t *testing.T) {
	c, err := core.New(core.Options{Brokers: 3, Seed: 3, Version: "3.9", Metadata: "kraft"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Advance(3000); err != nil {
		t.Fatal(err)
	}
	_, s := serveCluster(t, c, Config{})
	conn, _ := dial(t, s, 20*time.Second)
	root, _, err := conn.Children("/")
	if err != nil || !reflect.DeepEqual(root, []string{"README", "__cluster_metadata"}) {
		t.Fatalf("ls /: %v %v", root, err)
	}
	readme, _, err := conn.Get("/README")
	if err != nil || !strings.Contains(string(readme), "there is NO ZooKeeper") {
		t.Fatalf("get /README: %q %v", readme, err)
	}
	recs, st, err := conn.Children("/__cluster_metadata")
	if err != nil || len(recs) == 0 || st.NumChildren != int32(len(recs)) {
		t.Fatalf("ls /__cluster_metadata: %v %+v %v", recs, st, err)
	}
	rec, _, err := conn.Get("/__cluster_metadata/" + recs[0])
	if err != nil || !strings.Contains(string(rec), "RegisterBrokerRecord") {
		t.Fatalf("get the first record: %q %v", rec, err)
	}
	if _, _, err := conn.Get("/brokers/ids"); err != gozk.ErrNoNode {
		t.Fatalf("get /brokers/ids: %v, want ErrNoNode", err)
	}
	if _, err := conn.Create("/x", nil, 0, gozk.WorldACL(gozk.PermAll)); err != gozk.ErrNoAuth {
		t.Fatalf("create: %v, want ErrNoAuth", err)
	}
	// The controller-election demonstration of ZooKeeper mode: there is no
	// /controller, the README says why, and the delete is refused.
	if !strings.Contains(string(readme), "no /controller") {
		t.Errorf("the README does not explain /controller: %s", readme)
	}
	if err := conn.Delete("/controller", -1); err != gozk.ErrNoAuth {
		t.Fatalf("delete /controller on KRaft: %v, want ErrNoAuth", err)
	}
	if _, _, err := conn.Children("/"); err != nil {
		t.Fatal(err)
	}
}

// TestGoZKClusterReplaced: when the served cluster is replaced (a reset),
// connections close and the client's old session is expired: it starts a
// new one on the new cluster's ensemble.
func TestGoZKClusterReplaced(t *testing.T) {
	c := newZKClusterT(t, "2.8")
	d, s := serveCluster(t, c, Config{})
	conn, events := dial(t, s, 20*time.Second)
	d.replace(newZKClusterT(t, "0.8"))
	_, _, _ = conn.Children("/") // finds the new cluster: the connection closes
	expired := false
	for !expired || conn.State() != gozk.StateHasSession {
		select {
		case ev := <-events:
			expired = expired || ev.State == gozk.StateExpired
		case <-time.After(10 * time.Second):
			t.Fatalf("no expiry and new session (state %v, expired %v)", conn.State(), expired)
		}
	}
	// The new session reads the new cluster's tree.
	if kids, _, err := conn.Children("/brokers/topics"); err != nil || len(kids) != 1 {
		t.Fatalf("after the reset: %v %v", kids, err)
	}
	if _, err := conn.Sync("/"); err != nil {
		t.Fatal(err)
	}
}

// TestGoZKResumeRefiresLostWatch: a watch notification lost on the way
// (zk -> zkcli dropped) is not lost for good: when the client reconnects
// to the same session it re-sets its watches with the last zxid it saw,
// and the ensemble fires the one whose znode changed meanwhile.
func TestGoZKResumeRefiresLostWatch(t *testing.T) {
	c := newZKClusterT(t, "2.8")
	d, s := serveCluster(t, c, Config{})
	conn, events := dial(t, s, 30*time.Second)
	sid := conn.SessionID()
	_, _, w, err := conn.ChildrenW("/brokers/ids")
	if err != nil {
		t.Fatal(err)
	}
	d.apply(t, core.NetDrop{From: "zk", To: core.ZKClientHost})
	d.apply(t, core.CrashBroker{Broker: 1})
	d.jump(t, 8000)
	d.apply(t, core.NetHeal{})
	select {
	case ev := <-w:
		t.Fatalf("the notification crossed a dropped link: %+v", ev)
	case <-time.After(100 * time.Millisecond):
	}
	s.mu.Lock()
	for cn := range s.conns {
		cn.nc.Close() // the connection breaks; the session lives on
	}
	s.mu.Unlock()
	select {
	case ev := <-w:
		if ev.Type != gozk.EventNodeChildrenChanged || ev.Path != "/brokers/ids" {
			t.Fatalf("re-fired watch: %+v", ev)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the lost watch never fired (state %v)", conn.State())
	}
	for len(events) > 0 {
		if ev := <-events; ev.State == gozk.StateExpired {
			t.Fatal("the session expired")
		}
	}
	if conn.SessionID() != sid {
		t.Fatalf("session %x, want the same %x", conn.SessionID(), sid)
	}
}
