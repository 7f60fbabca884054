package layout

import (
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
