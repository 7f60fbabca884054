package layout

import (
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/wasm/scene"
)

// TestKafkaClientBox: a real Kafka client's labelled traffic gives it a
// box in the top row (host and software), a lane in the space-time view,
// and its in-flight request is drawn on the way to the broker with its
// label (API, version, software) beside it.
func TestKafkaClientBox(t *testing.T) {
	s := &scene.Scene{V: scene.Version, Now: 1000, Metadata: "kraft", Span: 5000,
		Brokers: []scene.Broker{{ID: 1, State: scene.StateAlive}, {ID: 2, State: scene.StateAlive}},
		Messages: []scene.Message{
			{ID: 1, From: "kgo", To: "1", Kind: "Produce", SentAt: 999, DeliverAt: 1002, Label: "Produce v10 kgo/v1.22.3"},
			{ID: 2, From: "1", To: "kgo", Kind: "MetadataResponse", SentAt: 990, DeliverAt: 992, Label: "Metadata v12 kgo/v1.22.3"},
			{ID: 3, From: "1", To: "2", Kind: "Fetch", SentAt: 999, DeliverAt: 1001},
		}}
	l := Build(s, 960, 600)
	c := l.Cluster
	if c == nil || len(c.KafkaClients) != 1 {
		t.Fatalf("kafka clients %+v", c)
	}
	if b := c.KafkaClients[0]; b.Host != "kgo" || b.Software != "kgo/v1.22.3" || b.Box.W <= 0 {
		t.Fatalf("box %+v", b)
	}
	sprites, _ := l.Sprites(1000)
	var labelled bool
	for _, ml := range l.SpriteLabels(sprites) {
		if strings.HasPrefix(ml.Text, "Produce v10 kgo") && s.Messages[ml.Msg].ID == 1 {
			labelled = true
		}
	}
	if !labelled {
		t.Fatalf("no label by the produce request; sprites %+v", sprites)
	}
	s.View = scene.ViewSpaceTime
	if _, ok := Build(s, 960, 600).Space.LaneX("kgo"); !ok {
		t.Fatal("no space-time lane for the real client")
	}
	s.View, s.Messages = scene.ViewCluster, s.Messages[2:]
	if l := Build(s, 960, 600); len(l.Cluster.KafkaClients) != 0 {
		t.Fatal("a client box without its traffic")
	}
}

// TestLabelSoftware: the client box names the software only, not the
// notes a request's label carries after it (a fetch session's id and
// epoch), which changed with every fetch and showed cut off in the box.
func TestLabelSoftware(t *testing.T) {
	for label, want := range map[string]string{
		"Fetch v17 kgo/v1.22.3 session=234888380 epoch=45": "kgo/v1.22.3",
		"Produce v10 kgo/v1.22.3":                          "kgo/v1.22.3",
		"ApiVersions v3 librdkafka/2.0.2":                  "librdkafka/2.0.2",
		"Fetch v11":                                        "",
		"getData /brokers/ids":                             "",
	} {
		if got := labelSoftware(label); got != want {
			t.Errorf("labelSoftware(%q) = %q, want %q", label, got, want)
		}
	}
}
