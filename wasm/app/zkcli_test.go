package app

import (
	"testing"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/wasm/scene"
)

// TestSceneZKClient: an outside ZooKeeper client's session (as the
// listener of kafkasim serve opens one) is in the scene as a client of
// its own, with its session id and last request, and its messages go to
// and from its own host, labelled with the operation and the znode.
func TestSceneZKClient(t *testing.T) {
	e := New()
	if ei := e.Load("cluster brokers=3 seed=2 version=2.8 metadata=zk\ntopic create orders partitions=1 rf=3\n"); ei != nil {
		t.Fatal(ei.Msg)
	}
	if err := e.Advance(3000); err != nil {
		t.Fatal(err)
	}
	c := e.Session().Driver().Cluster()
	zk := c.ZooKeeper().As("127.0.0.1:40001", 0)
	var sess core.ZKSession
	zk.Send("ZkConnect", "", func() func() {
		s, err := zk.OpenSession(30000, func(core.ZKWatchEvent) {})
		if err != nil {
			t.Fatal(err)
		}
		sess = s
		return func() {}
	})
	if err := e.Advance(10); err != nil {
		t.Fatal(err)
	}
	zk = c.ZooKeeper().As("127.0.0.1:40001", sess.ID)
	zk.Send("ZkGetChildren2", "/brokers/ids", func() func() { return func() {} })
	if err := e.Advance(1); err != nil {
		t.Fatal(err)
	}
	s, err := e.Scene(SceneOptions{View: scene.ViewBoth, Span: 50})
	if err != nil {
		t.Fatal(err)
	}
	host := "zkcli@127.0.0.1:40001"
	if len(s.ZKClients) != 1 || s.ZKClients[0].Host != host || s.ZKClients[0].Session == "" || s.ZKClients[0].Last != "getChildren2 /brokers/ids" {
		t.Fatalf("zk clients %+v", s.ZKClients)
	}
	var req *scene.Message
	for i := range s.Messages {
		if s.Messages[i].Kind == "ZkGetChildren2" {
			req = &s.Messages[i]
		}
	}
	if req == nil || req.From != host || req.To != "zk" || req.Label != "getChildren2 /brokers/ids" || req.ClassOf() != scene.ClassZK {
		t.Fatalf("request %+v", req)
	}
	// The session closed, its box goes once its messages are out of the scene.
	c.ZooKeeper().CloseSession(sess.ID)
	if err := e.Advance(6000); err != nil {
		t.Fatal(err)
	}
	if s, _ = e.Scene(SceneOptions{}); len(s.ZKClients) != 0 {
		t.Fatalf("after the close: %+v", s.ZKClients)
	}
}
