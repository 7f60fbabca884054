package core

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func newZKCluster(t *testing.T, version string) *Cluster {
	t.Helper()
	c, err := New(Options{Brokers: 3, Seed: 5, Version: version, Metadata: "zk"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Advance(3000); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestZKStats checks the Stat ZooKeeper would keep for a fresh cluster:
// ephemeral broker registrations owned by distinct sessions, /controller
// owned by the controller's session, child versions and zxids in order.
func TestZKStats(t *testing.T) {
	c := newZKCluster(t, "2.8")
	zk := c.ZooKeeper()
	kids, ids, ok := zk.Children("/brokers/ids")
	if !ok || !reflect.DeepEqual(kids, []string{"1", "2", "3"}) {
		t.Fatalf("/brokers/ids children %v %v", kids, ok)
	}
	if ids.NumChildren != 3 || ids.Cversion != 3 || ids.EphemeralOwner != 0 {
		t.Fatalf("/brokers/ids stat %+v", ids)
	}
	owners := map[int64]bool{}
	var last int64
	for _, k := range kids {
		data, st, ok := zk.Get("/brokers/ids/" + k)
		if !ok || st.EphemeralOwner == 0 || owners[st.EphemeralOwner] {
			t.Fatalf("/brokers/ids/%s: %+v", k, st)
		}
		owners[st.EphemeralOwner] = true
		if st.DataLength != int32(len(data)) || st.Czxid != st.Mzxid || st.Czxid <= last || st.Version != 0 {
			t.Fatalf("/brokers/ids/%s stat %+v", k, st)
		}
		last = st.Czxid
	}
	if ids.Pzxid != last {
		t.Fatalf("/brokers/ids pzxid %x, want the last child's czxid %x", ids.Pzxid, last)
	}
	_, ctrl, _ := zk.Get("/controller")
	_, b1, _ := zk.Get(fmt.Sprintf("/brokers/ids/%d", c.Controller()))
	if ctrl.EphemeralOwner != b1.EphemeralOwner {
		t.Fatalf("/controller owner %x, controller's registration %x", ctrl.EphemeralOwner, b1.EphemeralOwner)
	}
	_, ep, _ := zk.Get("/controller_epoch")
	if ep.Version != 1 || ep.Mzxid <= ep.Czxid {
		t.Fatalf("/controller_epoch stat %+v (set once by the first election)", ep)
	}
	if zk.LastZxid()>>32 != 1 || zk.LastZxid() < ep.Mzxid {
		t.Fatalf("last zxid %x", zk.LastZxid())
	}
	root, _, _ := zk.Children("/")
	if !slices.Contains(root, "zookeeper") || !slices.Contains(root, "brokers") {
		t.Fatalf("/ children %v", root)
	}
	if _, ok := zk.Exists("/nope"); ok {
		t.Fatal("/nope exists")
	}
}

// TestZKSessionExpiry: a crashed broker's session expires; one
// closeSession transaction deletes its znodes, and /brokers/ids's pzxid
// and cversion record it.
func TestZKSessionExpiry(t *testing.T) {
	c := newZKCluster(t, "2.8")
	zk := c.ZooKeeper()
	before, _ := zk.Exists("/brokers/ids")
	_, st3, _ := zk.Get("/brokers/ids/3")
	c.Events()
	if err := c.Apply(CrashBroker{Broker: 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Advance(20000); err != nil {
		t.Fatal(err)
	}
	if _, ok := zk.Exists("/brokers/ids/3"); ok {
		t.Fatal("/brokers/ids/3 survived its session")
	}
	var closeEv, delEv *Event
	for _, e := range c.Events() {
		if e.Type == EvZK && e.Op == "closeSession" && closeEv == nil {
			e := e
			closeEv = &e
		}
		if e.Type == EvZK && e.Op == "delete" && e.Path == "/brokers/ids/3" {
			e := e
			delEv = &e
		}
	}
	if closeEv == nil || closeEv.Session != st3.EphemeralOwner || delEv == nil {
		t.Fatalf("events: close %+v delete %+v (owner %x)", closeEv, delEv, st3.EphemeralOwner)
	}
	after, _ := zk.Exists("/brokers/ids")
	if after.Cversion != before.Cversion+1 || after.Pzxid != delEv.Zxid || after.NumChildren != 2 {
		t.Fatalf("/brokers/ids before %+v after %+v delete zxid %x", before, after, delEv.Zxid)
	}
	// The restarted broker registers in a new session.
	if err := c.Apply(Restart{Broker: 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Advance(5000); err != nil {
		t.Fatal(err)
	}
	_, again, ok := zk.Get("/brokers/ids/3")
	if !ok || again.EphemeralOwner == st3.EphemeralOwner || again.EphemeralOwner == 0 {
		t.Fatalf("re-registration %+v (old owner %x)", again, st3.EphemeralOwner)
	}
}

// zkProbe is an outside session driven the way the listener drives one.
type zkProbe struct {
	zk     *ZooKeeper
	sess   ZKSession
	events []ZKWatchEvent
	got    []string
}

func openProbe(t *testing.T, c *Cluster) *zkProbe {
	t.Helper()
	p := &zkProbe{zk: c.ZooKeeper()}
	p.zk.Send("ZkConnect", "", func() func() {
		s, err := p.zk.OpenSession(6000, func(ev ZKWatchEvent) { p.events = append(p.events, ev) })
		if err != nil {
			t.Fatal(err)
		}
		return func() { p.sess = s }
	})
	if _, err := c.Advance(10); err != nil {
		t.Fatal(err)
	}
	if p.sess.ID == 0 {
		t.Fatal("no session")
	}
	return p
}

// ls reads path's children with a child watch.
func (p *zkProbe) ls(path string) {
	p.zk.Send("ZkGetChildren2", path, func() func() {
		if !p.zk.Touch(p.sess.ID) {
			return nil
		}
		kids, _, _ := p.zk.Children(path)
		if err := p.zk.Watch(p.sess.ID, path, true); err != nil {
			panic(err)
		}
		return func() { p.got = append(p.got, strings.Join(kids, ",")) }
	})
}

// TestZKOutsideWatch: a child watch on /brokers/ids fires once when a
// broker's session expires, and a data watch on /controller when the
// controller's does; neither fires twice.
func TestZKOutsideWatch(t *testing.T) {
	c := newZKCluster(t, "0.11")
	p := openProbe(t, c)
	p.ls("/brokers/ids")
	p.zk.Send("ZkGetData", "/controller", func() func() {
		_ = p.zk.Watch(p.sess.ID, "/controller", false)
		return func() {}
	})
	// Keep the session alive: ping every 2 s.
	for i := 0; i < 10; i++ {
		if i == 1 {
			if err := c.Apply(CrashBroker{Broker: c.Controller()}); err != nil {
				t.Fatal(err)
			}
		}
		p.zk.Send("Ping", "", func() func() { p.zk.Touch(p.sess.ID); return func() {} })
		if _, err := c.Advance(2000); err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(p.got, []string{"1,2,3"}) {
		t.Fatalf("ls: %v", p.got)
	}
	want := []ZKWatchEvent{{Type: ZKNodeChildrenChanged, Path: "/brokers/ids"}, {Type: ZKNodeDeleted, Path: "/controller"}}
	if len(p.events) != 2 {
		t.Fatalf("watch events %+v", p.events)
	}
	for i, ev := range p.events {
		if ev.Type != want[i].Type || ev.Path != want[i].Path || ev.Zxid == 0 {
			t.Fatalf("event %d: %+v, want %+v", i, ev, want[i])
		}
	}
}

// TestZKOutsideSplit: an outside client cut off from zk hears nothing, its
// session expires after its timeout, and a reconnect is refused; watches
// re-registered with SetWatches fire for what changed meanwhile.
func TestZKOutsideSplit(t *testing.T) {
	c := newZKCluster(t, "2.8")
	p := openProbe(t, c)
	_, _, _ = p.zk.Children("/brokers/ids")
	seen := p.zk.LastZxid()
	if err := c.Apply(NetSplit{Groups: [][]string{{"zk"}, {"1", "2", "3", ZKClientHost}}}); err != nil {
		t.Fatal(err)
	}
	p.ls("/brokers/ids")
	if _, err := c.Advance(3000); err != nil {
		t.Fatal(err)
	}
	if len(p.got) != 0 {
		t.Fatalf("a read crossed the split: %v", p.got)
	}
	if !p.zk.Touch(p.sess.ID) {
		t.Fatal("session gone before its timeout")
	}
	if _, err := c.Advance(7000); err != nil {
		t.Fatal(err)
	}
	if p.zk.Touch(p.sess.ID) || p.zk.Sessions() != 0 {
		t.Fatal("session outlived its timeout")
	}
	if _, ok := p.zk.ResumeSession(p.sess.ID, p.sess.Passwd, 6000, nil); ok {
		t.Fatal("an expired session resumed")
	}
	// A new session re-registers a child watch from before: /brokers/ids
	// changed (the brokers, cut off from zk, lose their sessions after
	// 18 s), so it fires at once.
	if _, err := c.Advance(10000); err != nil {
		t.Fatal(err)
	}
	if err := c.Apply(NetHeal{}); err != nil {
		t.Fatal(err)
	}
	q := openProbe(t, c)
	if _, ok := q.zk.ResumeSession(q.sess.ID, []byte("wrong password 16"), 6000, nil); ok {
		t.Fatal("resumed with a wrong password")
	}
	if err := q.zk.SetWatches(q.sess.ID, seen, nil, []string{"/nope"}, []string{"/brokers/ids"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Advance(10); err != nil {
		t.Fatal(err)
	}
	if len(q.events) != 1 || q.events[0].Type != ZKNodeChildrenChanged {
		t.Fatalf("SetWatches fired %+v", q.events)
	}
}

// TestZKObserverDoesNotPerturb: the same commands give the same events,
// apart from the outside client's own, whether or not a client reads and
// watches; Stats included.
func TestZKObserverDoesNotPerturb(t *testing.T) {
	run := func(observe bool) ([]string, []ZKStat) {
		c, err := New(Options{Brokers: 3, Seed: 9, Version: "2.8", Metadata: "zk"})
		if err != nil {
			t.Fatal(err)
		}
		_ = c.Apply(Set{Configs: map[string]string{"net.jitter.ms": "3"}})
		_ = c.Apply(CreateTopic{Topic: "t", Partitions: 2, RF: 3})
		var p *zkProbe
		if observe {
			p = openProbe(t, c)
		} else {
			_, _ = c.Advance(10) // as long as openProbe takes
		}
		var out []string
		for i := 0; i < 30; i++ {
			if p != nil {
				p.ls("/brokers/ids")
				p.ls("/brokers/topics/t/partitions")
			}
			if i == 10 {
				_ = c.Apply(CrashBroker{Broker: 2})
			}
			_, _ = c.Advance(997)
			for _, e := range c.Events() {
				if e.Outside {
					if e.Seq == 0 || e.Type == EvMsgSend && e.MsgID < OutsideMsgIDs {
						t.Fatalf("outside event %+v: no seq or a simulation message id", e)
					}
					continue
				}
				if e.From == ZKClientHost || e.To == ZKClientHost || e.Session != 0 && e.Broker == 0 && e.Group == "" {
					t.Fatalf("an outside client's event not marked Outside: %+v", e)
				}
				// Numbers included: a live page's copy, replaying the
				// commands, matches the room's events by Seq.
				out = append(out, fmt.Sprintf("%d #%d id%d %s", e.At, e.Seq, e.MsgID, e.Text()))
			}
		}
		var stats []ZKStat
		for _, zn := range c.ZNodes() {
			_, st, _ := c.ZooKeeper().Get(zn[0])
			stats = append(stats, st)
		}
		return out, stats
	}
	a, sa := run(false)
	b, sb := run(true)
	if !reflect.DeepEqual(a, b) {
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				t.Fatalf("event %d differs:\n%s\n%s", i, a[i], b[i])
			}
		}
		t.Fatalf("%d events vs %d", len(a), len(b))
	}
	if !reflect.DeepEqual(sa, sb) {
		t.Fatal("znode Stats differ when an outside client looks")
	}
}

// TestZKWatchLimit: an outside session holds at most MaxZKWatches
// watches; a fired watch frees its place, and RemoveWatches works.
func TestZKWatchLimit(t *testing.T) {
	c := newZKCluster(t, "2.8")
	p := openProbe(t, c)
	for i := 0; i < MaxZKWatches; i++ {
		if err := p.zk.Watch(p.sess.ID, fmt.Sprintf("/w/%d", i), false); err != nil {
			t.Fatalf("watch %d: %v", i, err)
		}
	}
	if err := p.zk.Watch(p.sess.ID, "/one/more", false); err == nil {
		t.Fatal("a watch past the limit was set")
	}
	if !p.zk.RemoveWatches(p.sess.ID, "/w/0", false, true, false) || !p.zk.RemoveWatches(p.sess.ID, "/w/0", true, true, true) {
		t.Fatal("checkWatches/removeWatches did not find /w/0")
	}
	if p.zk.RemoveWatches(p.sess.ID, "/w/0", true, true, false) {
		t.Fatal("/w/0 still watched after removeWatches")
	}
	if err := p.zk.Watch(p.sess.ID, "/one/more", false); err != nil {
		t.Fatalf("after a removal: %v", err)
	}
}
