package layout

import (
	"math"
	"strings"

	"github.com/kafkasim/kafkasim/wasm/scene"
)

// KafkaClientBox is a real Kafka client (kcat, franz-go, sarama,
// kafkajs, ... connected to kafkasim serve's listeners) in the cluster
// view: a box in the top row after the scenario's producers, its host
// (the name the listener gave it from its client id) on the first line
// and the software it reported (KIP-511) on the second. Its requests
// and responses travel the links to the brokers, labelled with API,
// version and software.
type KafkaClientBox struct {
	Host     string
	Box      Rect
	Software string // "" when the client sent no ApiVersions v3+
}

// kafkaClientHosts lists the hosts of a real Kafka client's messages
// (those carrying a label that are not ZooKeeper traffic) in the order
// they first appear, with the software their labels name.
func kafkaClientHosts(s *scene.Scene) ([]string, map[string]string) {
	known := map[string]bool{"zk": true, "controller": true}
	for _, p := range s.Producers {
		known[p.Name] = true
	}
	for _, k := range s.Consumers {
		known[k.Name] = true
	}
	var hosts []string
	sw := map[string]string{}
	for i := range s.Messages {
		m := &s.Messages[i]
		if m.Label == "" || strings.HasPrefix(m.Kind, "Zk") {
			continue
		}
		for _, h := range []string{m.From, m.To} {
			if _, broker := scene.IsBrokerHost(h); broker || known[h] || scene.IsZKClientHost(h) {
				continue
			}
			if _, seen := sw[h]; !seen {
				hosts = append(hosts, h)
			}
			if v := labelSoftware(m.Label); v != "" || sw[h] == "" {
				sw[h] = v
			}
		}
	}
	return hosts, sw
}

// labelSoftware is the software a Kafka client's label names after API
// and version ("Fetch v12 kgo/v1.22.3" -> "kgo/v1.22.3"), without the
// request's own key=value notes that may follow it (a fetch session's
// "session=81 epoch=4"), "" if none.
func labelSoftware(label string) string {
	f := strings.Fields(label)
	if len(f) < 3 || !strings.HasPrefix(f[1], "v") {
		return ""
	}
	sw := f[2:]
	for i, w := range sw {
		if strings.Contains(w, "=") {
			sw = sw[:i]
			break
		}
	}
	return strings.Join(sw, " ")
}

// layoutKafkaClients places the real Kafka clients in the top row r from
// x, as many as fit before right, and returns the x after the last.
func (c *Cluster) layoutKafkaClients(s *scene.Scene, r Rect, x, right float64) float64 {
	hosts, sw := kafkaClientHosts(s)
	for _, h := range hosts {
		w := math.Min(math.Max(64, math.Max(TextW(h), TextW(sw[h]))+16), 180)
		if x+w > right {
			break
		}
		b := KafkaClientBox{Host: h, Box: Rect{x, r.Y, w, r.H}, Software: sw[h]}
		c.KafkaClients = append(c.KafkaClients, b)
		c.hosts[h] = hostBox{box: b.Box, kind: hostTop}
		x += w + 14
	}
	return x
}
