package layout

import (
	"math"
	"strings"

	"github.com/kafkasim/kafkasim/wasm/scene"
)

// Path is the way a message travels in the cluster view: a quadratic
// curve from A over C to B (C = the midpoint for a straight line).
type Path struct{ A, C, B Pt }

// At is the point a fraction t of the way along p.
func (p Path) At(t float64) Pt { return Quad(p.A, p.C, p.B, clamp(t, 0, 1)) }

// laneOffset is how far requests and responses keep to their side of a
// link, so the two directions never overlap.
const laneOffset = 3

// PathOf returns the path from host from to host to, false when either is
// not on the picture (a client the view had no room for).
func (c *Cluster) PathOf(from, to string) (Path, bool) {
	a, ok1 := c.hosts[from]
	b, ok2 := c.hosts[to]
	if !ok1 || !ok2 || from == to {
		return Path{}, false
	}
	var p Path
	switch {
	case a.kind == hostBroker && b.kind == hostBroker && a.band == b.band:
		// An arc above the two brokers' headers, leaving each broker
		// towards the other's side.
		p.A = Pt{spread(a, b.col), a.box.Y}
		p.B = Pt{spread(b, a.col), b.box.Y}
		lift := 10 + math.Abs(p.B.X-p.A.X)*0.12
		p.C = Pt{(p.A.X + p.B.X) / 2, math.Min(p.A.Y, p.B.Y) - lift}
	default:
		p.A, p.B = edgeToward(a, b), edgeToward(b, a)
		p.C = Lerp(p.A, p.B, 0.5)
	}
	// Keep to the right of the direction of travel.
	dx, dy := p.B.X-p.A.X, p.B.Y-p.A.Y
	if l := math.Hypot(dx, dy); l > 0 {
		nx, ny := -dy/l*laneOffset, dx/l*laneOffset
		p.A, p.B, p.C = Pt{p.A.X + nx, p.A.Y + ny}, Pt{p.B.X + nx, p.B.Y + ny}, Pt{p.C.X + nx, p.C.Y + ny}
	}
	return p, true
}

// spread is where on broker a's top edge links to the broker in column
// col leave: towards that column's side.
func spread(a hostBox, col int) float64 {
	if a.cols <= 1 {
		return a.box.Center().X
	}
	f := 0.2 + 0.6*float64(col)/float64(a.cols-1)
	return a.box.X + a.box.W*f
}

// edgeToward is the point on a's edge facing b: top or bottom edge when b
// is above or below, the side otherwise, clamped to run as straight as it can.
func edgeToward(a, b hostBox) Pt {
	ac, bc := a.box.Center(), b.box.Center()
	switch {
	case b.box.Bottom() <= a.box.Y:
		return Pt{clamp(bc.X, a.box.X+6, a.box.Right()-6), a.box.Y}
	case b.box.Y >= a.box.Bottom():
		return Pt{clamp(bc.X, a.box.X+6, a.box.Right()-6), a.box.Bottom()}
	case bc.X < ac.X:
		return Pt{a.box.X, clamp(bc.Y, a.box.Y+6, a.box.Bottom()-6)}
	default:
		return Pt{a.box.Right(), clamp(bc.Y, a.box.Y+6, a.box.Bottom()-6)}
	}
}

// Sprite is one message drawn on its way at some virtual time.
type Sprite struct {
	Msg      int // index in Scene.Messages
	P        Pt
	Class    string
	Response bool // drawn hollow: a response, not a request
	Dropped  bool // drawn crossed: the core dropped it
	Fade     float64
}

// Badge counts the messages in flight on one link and class when only a
// sample of them is drawn.
type Badge struct {
	P     Pt
	N     int
	Class string
}

// Aggregation: a link (an unordered pair of hosts) and class with at most
// PerLink messages in flight draws all of them. With n > PerLink it draws
// those whose ID hash has its low k bits zero, k = ceil(log2(n/PerLink)),
// at most 2*PerLink of them (the lowest hashes), and a Badge with n. The
// whole view draws at most MaxSprites: past that, k grows for every link
// alike. A message keeps being drawn, or not, for as long as its link's k
// stays the same, which only changes when n crosses PerLink times a power
// of two: sprites do not flicker while the rate is steady.
const (
	PerLink    = 4
	MaxSprites = 320
	// DropLinger is how long (virtual ms, at least) a dropped message stays
	// visible after it would have arrived, crossed, where it died.
	DropLinger = 2
)

// Hash mixes a message id (splitmix64's finaliser): the sampling key.
func Hash(id uint64) uint64 {
	id ^= id >> 30
	id *= 0xbf58476d1ce4e5b9
	id ^= id >> 27
	id *= 0x94d049bb133111eb
	id ^= id >> 31
	return id
}

// SampleBits is k for n messages on one link with the given global
// minimum: the number of low hash bits that must be zero.
func SampleBits(n, global int) int {
	k := 0
	for n > PerLink<<k {
		k++
	}
	return max(k, global)
}

// Sprites returns the messages in flight at virtual time now on the
// cluster view, sampled by the aggregation rule, and a badge for every
// link and class that was sampled. Hidden classes are left out.
func (l *Layout) Sprites(now float64) ([]Sprite, []Badge) {
	c := l.Cluster
	if c == nil {
		return nil, nil
	}
	s := l.S
	type key struct{ a, b, class string }
	type item struct {
		msg int
		t   float64
		h   uint64
	}
	links := map[key][]item{}
	var order []key
	total := 0
	for i := range s.Messages {
		m := &s.Messages[i]
		class := m.ClassOf()
		if s.Hidden(class) || float64(m.SentAt) > now {
			continue
		}
		end := float64(m.DeliverAt)
		if m.Dropped {
			end += DropLinger
		}
		if now >= end {
			continue
		}
		if _, ok := c.hosts[m.From]; !ok {
			continue
		}
		if _, ok := c.hosts[m.To]; !ok {
			continue
		}
		k := key{m.From, m.To, class}
		if k.b < k.a {
			k.a, k.b = k.b, k.a
		}
		if _, ok := links[k]; !ok {
			order = append(order, k)
		}
		t := 1.0
		if m.DeliverAt > m.SentAt {
			t = (now - float64(m.SentAt)) / float64(m.DeliverAt-m.SentAt)
		}
		links[k] = append(links[k], item{msg: i, t: t, h: Hash(m.ID)})
		total++
	}
	global := 0
	for total > MaxSprites<<global {
		global++
	}
	var sprites []Sprite
	var badges []Badge
	for _, k := range order {
		items := links[k]
		bits := SampleBits(len(items), global)
		keep := items
		if bits > 0 {
			mask := uint64(1)<<bits - 1
			keep = nil
			for _, it := range items {
				if it.h&mask == 0 {
					keep = append(keep, it)
				}
			}
			if len(keep) > 2*PerLink {
				sortByHash(keep, func(it item) uint64 { return it.h })
				keep = keep[:2*PerLink]
			}
			if p, ok := c.PathOf(k.a, k.b); ok && len(keep) < len(items) {
				// Classes sharing a link put their badges at different places along it.
				badges = append(badges, Badge{P: p.At(0.25 + 0.5*float64(classIndex(k.class))/float64(len(scene.Classes))), N: len(items), Class: k.class})
			}
		}
		for _, it := range keep {
			m := &s.Messages[it.msg]
			p, ok := c.PathOf(m.From, m.To)
			if !ok {
				continue
			}
			sp := Sprite{Msg: it.msg, P: p.At(math.Min(it.t, 1)), Class: k.class, Response: IsResponse(m.Kind), Dropped: m.Dropped}
			if m.Dropped && it.t > 1 {
				sp.P = p.At(0.85)
				sp.Fade = clamp((now-float64(m.DeliverAt))/DropLinger, 0, 1)
			}
			sprites = append(sprites, sp)
		}
	}
	return sprites, badges
}

func classIndex(class string) int {
	for i, c := range scene.Classes {
		if c == class {
			return i
		}
	}
	return len(scene.Classes) - 1
}

// IsResponse reports whether a message kind is a response.
func IsResponse(kind string) bool { return strings.HasSuffix(kind, "Response") }

func sortByHash[T any](xs []T, h func(T) uint64) {
	// insertion sort: at most a few dozen items per link
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && h(xs[j]) < h(xs[j-1]); j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}
