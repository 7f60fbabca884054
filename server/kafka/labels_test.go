package kafka

import (
	"regexp"
	"sync"
	"testing"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestMessageLabels: a real client's requests and their responses cross
// the simulated network labelled with API, version and the software it
// named in ApiVersions (KIP-511), and name their connection; the core's
// own messages carry no label.
func TestMessageLabels(t *testing.T) {
	b := threeBrokers(t, "3.9", "kraft", core.CreateTopic{Topic: "x", Partitions: 1, RF: 3})
	var mu sync.Mutex
	labels := map[string]bool{}
	var unlabelledOutside, labelledInside int
	stop, _ := b.Watch(func(c *core.Cluster, evs []core.Event, reset bool) {
		mu.Lock()
		defer mu.Unlock()
		for _, e := range evs {
			if e.Type != core.EvMsgSend {
				continue
			}
			_, fromBroker := isBroker(e.From)
			_, toBroker := isBroker(e.To)
			outside := e.Conn != ""
			switch {
			case outside && e.Label == "":
				unlabelledOutside++
			case !outside && e.Label != "":
				labelledInside++
			case outside && (fromBroker != toBroker):
				labels[e.Msg+" | "+e.Label] = true
			}
		}
	})
	defer stop()
	_, addr := startServer(t, b, 3)
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.SoftwareNameAndVersion("labeltest", "9.9"))
	if err != nil {
		t.Fatal(err)
	}
	produceAll(t, cl, "x", 3, "m")
	cl.Close()
	mu.Lock()
	defer mu.Unlock()
	want := []*regexp.Regexp{
		regexp.MustCompile(`^ApiVersions v4 \| ApiVersions v4 labeltest/9\.9$`),
		regexp.MustCompile(`^Metadata \| Metadata v\d+ labeltest/9\.9$`),
		regexp.MustCompile(`^Produce \| Produce v\d+ labeltest/9\.9$`),
		regexp.MustCompile(`^ProduceResponse \| Produce v\d+ labeltest/9\.9$`),
	}
	for _, re := range want {
		found := false
		for l := range labels {
			found = found || re.MatchString(l)
		}
		if !found {
			t.Errorf("no message matching %s among %v", re, labels)
		}
	}
	if unlabelledOutside > 0 || labelledInside > 0 {
		t.Errorf("%d outside messages without a label, %d simulated ones with one", unlabelledOutside, labelledInside)
	}
}

func isBroker(h string) (int, bool) {
	n := 0
	for _, ch := range h {
		if ch < '0' || ch > '9' {
			return 0, false
		}
		n = n*10 + int(ch-'0')
	}
	return n, h != ""
}
