package layout

import (
	"math"
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/wasm/scene"
)

// TestZKClientLane: an outside ZooKeeper client's traffic (host zkcli, as
// `kafkasim serve`'s ZooKeeper listener sends it) gets a lane beside zk's
// in the space-time view, so its requests and watch events are drawn.
func TestZKClientLane(t *testing.T) {
	s := &scene.Scene{V: scene.Version, Now: 1000, Metadata: "zk", Span: 5000, View: scene.ViewSpaceTime,
		Brokers: []scene.Broker{{ID: 1, State: scene.StateAlive}},
		Messages: []scene.Message{
			{ID: 1, From: "zkcli", To: "zk", Kind: "ZkGetChildren2", SentAt: 990, DeliverAt: 991},
			{ID: 2, From: "zk", To: "zkcli", Kind: "ZkWatchEvent", SentAt: 995, DeliverAt: 1005},
		}}
	l := Build(s, 960, 600)
	if l.Space == nil {
		t.Fatal("no space-time view")
	}
	xz, ok1 := l.Space.LaneX("zk")
	xc, ok2 := l.Space.LaneX("zkcli")
	if !ok1 || !ok2 || xz == xc {
		t.Fatalf("lanes zk %v %v, zkcli %v %v", xz, ok1, xc, ok2)
	}
	arrows := l.Arrows(1000)
	if len(arrows) != 2 || arrows[0].Class != scene.ClassZK || arrows[1].Done {
		t.Fatalf("arrows %+v", arrows)
	}
	s.Messages = s.Messages[:0]
	if _, ok := Build(s, 960, 600).Space.LaneX("zkcli"); ok {
		t.Fatal("a zkcli lane without its traffic")
	}
}

// TestZKClientBox: each outside ZooKeeper client of the scene gets a box
// left of zk in the cluster view, with its address and session, its last
// request under it, and its messages travel between the box and zk with
// their labels beside them; in the space-time view it has a lane of its
// own labelled by its port.
func TestZKClientBox(t *testing.T) {
	s := &scene.Scene{V: scene.Version, Now: 1000, Metadata: "zk", Span: 50,
		Brokers:   []scene.Broker{{ID: 1, State: scene.StateAlive}, {ID: 2, State: scene.StateAlive}},
		Producers: []scene.Producer{{Name: "p1", Acks: "all"}},
		ZKClients: []scene.ZKClient{
			{Host: "zkcli@127.0.0.1:5000", Addr: "127.0.0.1:5000", Session: "0x100000000000003", Last: "getChildren2 /brokers/ids"},
			{Host: "zkcli@127.0.0.1:5001", Addr: "127.0.0.1:5001"},
		},
		Messages: []scene.Message{
			{ID: 1, From: "zkcli@127.0.0.1:5000", To: "zk", Kind: "ZkGetChildren2", Label: "getChildren2 /brokers/ids", SentAt: 998, DeliverAt: 1002},
			{ID: 2, From: "zk", To: "zkcli@127.0.0.1:5001", Kind: "ZkWatchEvent", Label: "NodeDeleted /controller", SentAt: 999, DeliverAt: 1003},
			{ID: 3, From: "1", To: "2", Kind: "Fetch", SentAt: 999, DeliverAt: 1003},
		}}
	l := Build(s, 960, 600)
	c := l.Cluster
	if c == nil || c.Meta == nil || len(c.ZKClients) != 2 {
		t.Fatalf("zk clients %+v", c.ZKClients)
	}
	a, b := c.ZKClients[0], c.ZKClients[1]
	if a.Box.Right() > c.Meta.Box.X || b.Box.Right() > a.Box.X || a.Lines[0] != "zkcli 127.0.0.1:5000" || a.Lines[1] != "session 0x100000000000003" ||
		a.Last != "last: getChildren2 /brokers/ids" || b.Lines[1] != "connecting" {
		t.Fatalf("boxes %+v %+v, zk at %+v", a, b, c.Meta.Box)
	}
	for _, p := range c.Producers {
		if p.Box.Right() > b.Box.X {
			t.Fatalf("producer %+v overlaps client %+v", p.Box, b.Box)
		}
	}
	sprites, _ := l.Sprites(1000)
	labels := l.SpriteLabels(sprites)
	if len(sprites) != 3 || len(labels) != 2 || labels[0].Text != "getChildren2 /brokers/ids" || labels[1].Text != "NodeDeleted /controller" {
		t.Fatalf("sprites %+v labels %+v", sprites, labels)
	}
	// The request is on its way from the client's box to zk's.
	if p := sprites[0].P; p.X < a.Box.Right() || p.X > c.Meta.Box.X || math.Abs(p.Y-a.Box.Center().Y) > 6 {
		t.Fatalf("request at %+v, between %+v and %+v", p, a.Box, c.Meta.Box)
	}
	if r0, r1 := (Rect{labels[0].P.X, labels[0].P.Y, TextW(labels[0].Text), CharH}), (Rect{labels[1].P.X, labels[1].P.Y, TextW(labels[1].Text), CharH}); r0.X < r1.Right() && r1.X < r0.Right() && r0.Y < r1.Bottom() && r1.Y < r0.Bottom() {
		t.Fatalf("labels overlap: %+v %+v", r0, r1)
	}

	s.View = scene.ViewSpaceTime
	l = Build(s, 960, 600)
	var texts []string
	for _, ln := range l.Space.Lanes {
		texts = append(texts, ln.Text)
	}
	if got := strings.Join(texts, ","); got != "b1,b2,zk,zkcli :5000,zkcli :5001,p1" {
		t.Fatalf("lanes %s", got)
	}
	if al := l.ArrowLabels(l.Arrows(1000)); len(al) != 2 || al[1].Text != "getChildren2 /brokers/ids" || al[0].Text != "NodeDeleted /controller" {
		t.Fatalf("arrow labels %+v", al)
	}
}
