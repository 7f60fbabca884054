package layout

import (
	"math"
	"strings"

	"github.com/kafkasim/kafkasim/wasm/scene"
)

// ZKClientBox is an outside ZooKeeper client (zkCli.sh, kazoo, ...
// connected to kafkasim serve) in the cluster view: a box left of zk,
// its address on the first line and its session on the second (Lines),
// its last request written under it (Last at LastAt, "" for none). Its
// requests, replies and watch events travel the link to zk. Index is the
// client's place in Scene.ZKClients, -1 for a client known only from its
// messages.
type ZKClientBox struct {
	Host   string
	Index  int
	Box    Rect
	Lines  [2]string
	Last   string
	LastAt Pt
}

// zkClientHosts lists the outside ZooKeeper clients of s: Scene.ZKClients
// in order, then any other client host its messages name.
func zkClientHosts(s *scene.Scene) []string {
	var hosts []string
	seen := map[string]bool{}
	for _, c := range s.ZKClients {
		if !seen[c.Host] {
			seen[c.Host] = true
			hosts = append(hosts, c.Host)
		}
	}
	for _, m := range s.Messages {
		for _, h := range []string{m.From, m.To} {
			if scene.IsZKClientHost(h) && !seen[h] {
				seen[h] = true
				hosts = append(hosts, h)
			}
		}
	}
	return hosts
}

// zkLaneText is a client's lane label in the space-time view: short, the
// port is what tells two clients on one machine apart.
func zkLaneText(host string) string {
	addr := strings.TrimPrefix(strings.TrimPrefix(host, scene.ZKClientHost), "@")
	if i := strings.LastIndexByte(addr, ':'); i >= 0 {
		addr = addr[i:]
	}
	return strings.TrimSpace(scene.ZKClientHost + " " + addr)
}

// zkClientGap is the link between the nearest client's box and zk's: long
// enough to see a request travel it.
const zkClientGap = 70

// layoutZKClients places the outside ZooKeeper clients right to left,
// ending zkClientGap left of right (zk's box), in the top row r, as many as fit
// beside room for one producer. It returns the leftmost box's x, false
// when it placed none.
func (c *Cluster) layoutZKClients(s *scene.Scene, r Rect, right float64) (float64, bool) {
	byHost := map[string]int{}
	for i, zc := range s.ZKClients {
		byHost[zc.Host] = i
	}
	x := right - zkClientGap
	limit := r.X + 70
	if len(s.Producers) > 0 {
		limit += 120
	}
	placed := false
	lastEnd := r.Right()
	for _, h := range zkClientHosts(s) {
		b := ZKClientBox{Host: h, Index: -1}
		addr := strings.TrimPrefix(strings.TrimPrefix(h, scene.ZKClientHost), "@")
		b.Lines[0] = strings.TrimSpace("zkcli " + addr)
		if i, ok := byHost[h]; ok {
			b.Index = i
			zc := s.ZKClients[i]
			if zc.Session != "" {
				b.Lines[1] = "session " + zc.Session
			} else {
				b.Lines[1] = "connecting"
			}
			if zc.Last != "" {
				b.Last = "last: " + zc.Last
			}
		}
		w := math.Max(TextW(b.Lines[0]), TextW(b.Lines[1])) + 12
		if x-w < limit {
			break
		}
		b.Box = Rect{x - w, r.Y, w, r.H}
		// The last request under the box, clipped to what fits before the
		// next box to the right (or the row's end).
		b.Last = Fit(b.Last, lastEnd-b.Box.X)
		lastEnd = b.Box.X - 4
		b.LastAt = Pt{b.Box.X, b.Box.Bottom() + 2}
		c.ZKClients = append(c.ZKClients, b)
		c.hosts[h] = hostBox{box: b.Box, kind: hostTop}
		x = b.Box.X - 10
		placed = true
	}
	return x + 10, placed
}
