package layout

import (
	"math"
	"strconv"

	"github.com/kafkasim/kafkasim/wasm/scene"
)

// Hit is what a point hits: the element (Ref), the view it is in and,
// in the space-time view, the virtual time under the point.
type Hit struct {
	Ref  scene.Ref
	View scene.View
	At   int64
}

// Hit returns the topmost element under p at virtual time now, false when
// p hits nothing. Moving things are above static ones: a message sprite
// above a cell, a cell above its replica row, a row above its broker.
func (l *Layout) Hit(p Pt, now float64) (Hit, bool) {
	for _, it := range l.Legend {
		if it.Class != "" && it.Box.Contains(p) {
			return Hit{Ref: scene.Ref{Kind: scene.KindClass, Name: it.Class}}, true
		}
	}
	if c := l.Cluster; c != nil && c.Area.Contains(p) {
		h, ok := l.hitCluster(p, now)
		h.View = scene.ViewCluster
		return h, ok
	}
	if sp := l.Space; sp != nil && sp.Area.Contains(p) {
		h, ok := l.hitSpace(p, now)
		h.View = scene.ViewSpaceTime
		return h, ok
	}
	return Hit{}, false
}

// hitRadius is how near (px) a message must be to be hit.
const hitRadius = 7

func (l *Layout) hitCluster(p Pt, now float64) (Hit, bool) {
	c, s := l.Cluster, l.S
	sprites, _ := l.Sprites(now)
	best, bestD := -1, float64(hitRadius)
	for i := range sprites {
		if d := math.Hypot(sprites[i].P.X-p.X, sprites[i].P.Y-p.Y); d <= bestD {
			best, bestD = i, d
		}
	}
	if best >= 0 {
		return Hit{Ref: scene.Ref{Kind: scene.KindMessage, Msg: s.Messages[sprites[best].Msg].ID}}, true
	}
	for _, r := range c.Replicas {
		if !r.Row.Contains(p) {
			continue
		}
		part := s.Partitions[r.Partition].Name
		rep := &s.Partitions[r.Partition].Replicas[r.Replica]
		for _, cb := range r.Cells {
			if cb.Box.Contains(p) {
				return Hit{Ref: scene.Ref{Kind: scene.KindRecord, Partition: part, Broker: r.Broker, Offset: rep.Cells[cb.Cell].Offset}}, true
			}
		}
		return Hit{Ref: scene.Ref{Kind: scene.KindReplica, Partition: part, Broker: r.Broker}}, true
	}
	for _, row := range c.Rows {
		if row.Label.Contains(p) {
			return Hit{Ref: scene.Ref{Kind: scene.KindPartition, Partition: s.Partitions[row.Partition].Name}}, true
		}
	}
	for _, b := range c.Brokers {
		if b.Box.Contains(p) {
			return Hit{Ref: scene.Ref{Kind: scene.KindBroker, Broker: b.ID}}, true
		}
	}
	for _, k := range c.Consumers {
		for j, rr := range k.Recent {
			if rr.Contains(p) {
				g := s.Consumers[k.Index].Recent[len(s.Consumers[k.Index].Recent)-len(k.Recent)+j]
				return Hit{Ref: scene.Ref{Kind: scene.KindRecord, Partition: g.Partition, Offset: g.Offset, Name: k.Name}}, true
			}
		}
		if k.Box.Contains(p) {
			return Hit{Ref: scene.Ref{Kind: scene.KindConsumer, Name: k.Name}}, true
		}
	}
	for _, k := range c.Producers {
		if k.Box.Contains(p) {
			return Hit{Ref: scene.Ref{Kind: scene.KindProducer, Name: k.Name}}, true
		}
	}
	for _, g := range c.Groups {
		if g.Box.Contains(p) {
			return Hit{Ref: scene.Ref{Kind: scene.KindGroup, Name: g.Name}}, true
		}
	}
	if c.Meta != nil && c.Meta.Box.Contains(p) {
		return Hit{Ref: scene.Ref{Kind: scene.KindLane, Name: c.Meta.Name}}, true
	}
	return Hit{}, false
}

func (l *Layout) hitSpace(p Pt, now float64) (Hit, bool) {
	sp, s := l.Space, l.S
	at := int64(math.Round(sp.T(clamp(p.Y, sp.Plot.Y, sp.Plot.Bottom()), now)))
	best, bestD := -1, 4.0
	for _, a := range l.Arrows(now) {
		if d := SegDist(p, a.A, a.B); d <= bestD {
			best, bestD = a.Msg, d
		}
	}
	if best >= 0 {
		return Hit{Ref: scene.Ref{Kind: scene.KindMessage, Msg: s.Messages[best].ID}, At: at}, true
	}
	if len(sp.Lanes) == 0 {
		return Hit{}, false
	}
	w := sp.Plot.W / float64(len(sp.Lanes))
	for _, ln := range sp.Lanes {
		if math.Abs(p.X-ln.X) <= w/2 && p.Y >= sp.Area.Y && p.Y <= sp.Plot.Bottom() {
			if id, ok := scene.IsBrokerHost(ln.Host); ok && ln.Label.Contains(p) {
				return Hit{Ref: scene.Ref{Kind: scene.KindBroker, Broker: id}, At: at}, true
			}
			return Hit{Ref: scene.Ref{Kind: scene.KindLane, Name: ln.Host}, At: at}, true
		}
	}
	return Hit{}, false
}

// Find returns the rectangle of the element r names at virtual time now
// (the cluster view's when both views show it), false when it is not
// drawn. Its centre is what a test clicks.
func (l *Layout) Find(r scene.Ref, now float64) (Rect, bool) {
	if r.Kind == scene.KindClass {
		for _, it := range l.Legend {
			if it.Class != "" && it.Class == r.Name {
				return it.Box, true
			}
		}
		return Rect{}, false
	}
	if c := l.Cluster; c != nil {
		if b, ok := l.findCluster(r, now); ok {
			return b, true
		}
	}
	if sp := l.Space; sp != nil {
		switch r.Kind {
		case scene.KindLane, scene.KindBroker, scene.KindProducer, scene.KindConsumer:
			host := r.Name
			if r.Kind == scene.KindBroker {
				host = strconv.Itoa(r.Broker)
			}
			if i, ok := sp.byHost[host]; ok {
				return sp.Lanes[i].Label, true
			}
		case scene.KindMessage:
			for _, a := range l.Arrows(now) {
				if l.S.Messages[a.Msg].ID == r.Msg {
					return Rect{math.Min(a.A.X, a.B.X), math.Min(a.A.Y, a.B.Y), math.Abs(a.B.X - a.A.X), math.Abs(a.B.Y - a.A.Y)}, true
				}
			}
		}
	}
	return Rect{}, false
}

func (l *Layout) findCluster(r scene.Ref, now float64) (Rect, bool) {
	c, s := l.Cluster, l.S
	switch r.Kind {
	case scene.KindBroker:
		for _, b := range c.Brokers {
			if b.ID == r.Broker {
				return b.Header, true
			}
		}
	case scene.KindHW, scene.KindLEO:
		return c.findMarker(s, r)
	case scene.KindReplica, scene.KindRecord:
		if r.Kind == scene.KindRecord && r.Name != "" {
			return c.findRecent(s, r)
		}
		broker := r.Broker
		if broker == 0 {
			broker = leaderOf(s, r.Partition)
		}
		for _, rb := range c.Replicas {
			if rb.Broker != broker || s.Partitions[rb.Partition].Name != r.Partition {
				continue
			}
			if r.Kind == scene.KindReplica {
				return rb.Badge, true
			}
			cells := s.Partitions[rb.Partition].Replicas[rb.Replica].Cells
			for _, cb := range rb.Cells {
				if cells[cb.Cell].Offset == r.Offset {
					return cb.Box, true
				}
			}
		}
	case scene.KindPartition:
		for _, row := range c.Rows {
			if s.Partitions[row.Partition].Name == r.Partition {
				return row.Label, true
			}
		}
	case scene.KindProducer:
		for _, k := range c.Producers {
			if k.Name == r.Name {
				return k.Box, true
			}
		}
	case scene.KindConsumer:
		for _, k := range c.Consumers {
			if k.Name == r.Name {
				// The name line: the rest of the box holds its records.
				return Rect{k.Box.X, k.Box.Y, k.Box.W, math.Min(k.Box.H, 18)}, true
			}
		}
	case scene.KindGroup:
		for _, g := range c.Groups {
			if g.Name == r.Name {
				return g.Header, true
			}
		}
	case scene.KindLane:
		if c.Meta != nil && c.Meta.Name == r.Name {
			return c.Meta.Box, true
		}
	case scene.KindMessage:
		sprites, _ := l.Sprites(now)
		for _, sp := range sprites {
			if s.Messages[sp.Msg].ID == r.Msg {
				return Rect{sp.P.X - 4, sp.P.Y - 4, 8, 8}, true
			}
		}
	}
	return Rect{}, false
}

// findMarker is the box around a replica's HW or LEO marker where it
// crosses the log strip (the triangle and the name under it stay clear).
func (c *Cluster) findMarker(s *scene.Scene, r scene.Ref) (Rect, bool) {
	broker := r.Broker
	if broker == 0 {
		broker = leaderOf(s, r.Partition)
	}
	for _, rb := range c.Replicas {
		if rb.Broker != broker || s.Partitions[rb.Partition].Name != r.Partition {
			continue
		}
		x := rb.HWX
		if r.Kind == scene.KindLEO {
			x = rb.LEOX
		}
		return Rect{X: x - 6, Y: rb.Strip.Y - 3, W: 12, H: rb.Strip.H + 6}, true
	}
	return Rect{}, false
}

func (c *Cluster) findRecent(s *scene.Scene, r scene.Ref) (Rect, bool) {
	for _, k := range c.Consumers {
		if k.Name != r.Name {
			continue
		}
		rec := s.Consumers[k.Index].Recent
		for j := range k.Recent {
			g := rec[len(rec)-len(k.Recent)+j]
			if g.Partition == r.Partition && g.Offset == r.Offset {
				return k.Recent[j], true
			}
		}
	}
	return Rect{}, false
}

func leaderOf(s *scene.Scene, part string) int {
	for _, p := range s.Partitions {
		if p.Name == part {
			return p.Leader
		}
	}
	return 0
}
