package core

import (
	"strconv"
	"strings"
	"testing"
)

// TestZKDeleteController: an outside session's delete of /controller
// travels to zk, is checked as ZooKeeper checks a delete (version, then
// the znode gone: NONODE), and sets off Kafka's re-election: every broker
// hears NodeDeleted, reads /controller, tries to create it; one wins, the
// controller epoch goes up, and the session hears its answer with the
// delete's zxid. Its own data watch on /controller fires NodeDeleted.
func TestZKDeleteController(t *testing.T) {
	c := newZKCluster(t, "2.8")
	p := openProbe(t, c)
	p.zk.Send("ZkExists", "/controller", func() func() {
		_ = p.zk.Watch(p.sess.ID, "/controller", false)
		return nil
	})
	if _, err := c.Advance(10); err != nil {
		t.Fatal(err)
	}
	zk := c.ZooKeeper()
	_, st, _ := zk.Get("/controller")
	epoch0, _, _ := zk.Get("/controller_epoch")
	c.Events()
	if err := c.Apply(ZKDelete{Path: "/controller", Version: st.Version + 1, Session: p.sess.ID, Xid: 5, Conn: "127.0.0.1:1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Advance(20); err != nil {
		t.Fatal(err)
	}
	if r := lastReply(p); r == nil || r.Err != "BADVERSION" || r.Xid != 5 {
		t.Fatalf("delete with a wrong version: reply %+v", r)
	}
	if _, st2, ok := zk.Get("/controller"); !ok || st2.Czxid != st.Czxid {
		t.Fatal("a BADVERSION delete changed /controller")
	}
	// Two deletes at once: the first wins, the second finds no /controller.
	for _, xid := range []int32{6, 7} {
		if err := c.Apply(ZKDelete{Path: "/controller", Version: -1, Session: p.sess.ID, Xid: xid, Conn: "127.0.0.1:1"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Advance(200); err != nil {
		t.Fatal(err)
	}
	var replies []*ZKReply
	watched := false
	for _, ev := range p.events {
		if ev.Reply != nil {
			replies = append(replies, ev.Reply)
		} else if ev.Type == ZKNodeDeleted && ev.Path == "/controller" {
			watched = true
		}
	}
	if len(replies) != 3 || replies[1].Err != "" || replies[1].Xid != 6 || replies[2].Err != "NONODE" {
		t.Fatalf("replies %+v %+v", replies, p.events)
	}
	if !watched {
		t.Error("the session's watch on /controller did not fire NodeDeleted")
	}
	evs := c.Events()
	var watchTo, creates []string
	elected := 0
	for _, e := range evs {
		switch {
		case e.Type == EvMsgSend && e.Msg == "ZkWatchEvent" && e.Path == "/controller" && e.To != ZKClientHost:
			watchTo = append(watchTo, e.To)
		case e.Type == EvMsgSend && (e.Msg == "ZkMulti" || e.Msg == "ZkCreate"):
			creates = append(creates, e.From)
		case e.Type == EvController && strings.Contains(e.Detail, "is the controller"):
			elected = e.Broker
		case e.Type == EvZK && e.Op == "delete" && e.Error == "" && e.Zxid != replies[1].Zxid:
			t.Errorf("delete event zxid %x, the reply says %x", e.Zxid, replies[1].Zxid)
		}
	}
	if strings.Join(watchTo, ",") != "1,2,3" || strings.Join(creates, ",") != "1,2,3" {
		t.Fatalf("watch events to %v, creates from %v: want every broker", watchTo, creates)
	}
	epoch1, st1, ok := zk.Get("/controller_epoch")
	data, _, _ := zk.Get("/controller")
	if !ok || epoch1 == epoch0 || elected == 0 || !strings.Contains(data, `"brokerid":`+strconv.Itoa(elected)) || c.Snapshot().Controller != elected {
		t.Fatalf("after the election: epoch %s -> %s (%+v), elected %d, /controller %s", epoch0, epoch1, st1, elected, data)
	}
}

func lastReply(p *zkProbe) *ZKReply {
	for i := len(p.events) - 1; i >= 0; i-- {
		if p.events[i].Reply != nil {
			return p.events[i].Reply
		}
	}
	return nil
}

// TestZKDeleteRefused: only /controller, only in ZooKeeper mode, only a
// version ZooKeeper accepts.
func TestZKDeleteRefused(t *testing.T) {
	c := newZKCluster(t, "2.8")
	for _, d := range []ZKDelete{{Path: "/brokers/ids/1", Version: -1}, {Path: "/controller", Version: -2}} {
		if err := c.Apply(d); err == nil {
			t.Errorf("%+v applied", d)
		}
	}
	k, err := New(Options{Brokers: 3, Version: "3.9", Metadata: "kraft"})
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Apply(ZKDelete{Path: "/controller", Version: -1}); err == nil || !strings.Contains(err.Error(), "KRaft") {
		t.Errorf("KRaft: %v", err)
	}
}
