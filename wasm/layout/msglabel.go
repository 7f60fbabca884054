package layout

import (
	"math"

	"github.com/kafkasim/kafkasim/wasm/scene"
)

// MsgLabel is a message's label (Scene.Messages[Msg].Label) placed beside
// it: in the cluster view next to its sprite, in the space-time view
// beside the middle of its arrow. Labels never overlap one another.
type MsgLabel struct {
	Msg   int
	P     Pt // top-left of the text
	Text  string
	Class string
}

// MaxMsgLabels is how many message labels a view writes at most (the
// first ones in scene order: more would be unreadable).
const MaxMsgLabels = 12

// SpriteLabels places the labels of the sprites whose messages have one,
// inside the cluster view's area, off every host's box and off one
// another. Messages that share a label (labelKey) get one, at the first
// of them.
func (l *Layout) SpriteLabels(sprites []Sprite) []MsgLabel {
	c := l.Cluster
	if c == nil {
		return nil
	}
	area := c.Area
	var out []MsgLabel
	var taken []Rect
	for _, h := range c.hosts {
		if h.kind != hostBroker {
			taken = append(taken, h.box)
		}
	}
	for _, b := range c.ZKClients {
		if b.Last != "" {
			taken = append(taken, Rect{b.LastAt.X, b.LastAt.Y, TextW(b.Last), CharH})
		}
	}
	// Labels of messages above the brokers go below them, into the gap.
	top := area.Bottom()
	for _, b := range c.Brokers {
		top = math.Min(top, b.Box.Y)
	}
	seen := map[string]bool{}
	for _, sp := range sprites {
		m := &l.S.Messages[sp.Msg]
		if m.Label == "" || sp.Dropped && sp.Fade >= 1 {
			continue
		}
		if !firstOfKey(seen, m) {
			continue
		}
		if len(out) == MaxMsgLabels {
			break
		}
		text := Fit(m.Label, area.W/2)
		w := TextW(text)
		p, dir := Pt{sp.P.X + 7, sp.P.Y - CharH - 3}, -1.0
		if sp.P.Y < top {
			p, dir = Pt{sp.P.X - w/2, sp.P.Y + 6}, 1
		}
		p.X = clamp(p.X, area.X+2, area.Right()-2-w)
		p.Y = clamp(p.Y, area.Y, area.Bottom()-CharH)
		if q, ok := place(&taken, p, w, dir, area); ok {
			out = append(out, MsgLabel{Msg: sp.Msg, P: q, Text: text, Class: sp.Class})
		}
	}
	return out
}

// labelKey groups messages that share a label: the label and its two
// ends, every broker counting as one ("NodeDeleted /controller" from zk to
// each broker, "getData /controller" from each broker to zk).
func labelKey(m *scene.Message) string {
	end := func(h string) string {
		if _, ok := scene.IsBrokerHost(h); ok {
			return "broker"
		}
		return h
	}
	return m.Label + "\x00" + end(m.From) + "\x00" + end(m.To)
}

// firstOfKey reports whether m is the first message of its labelKey in
// seen, and records it: one label is drawn per key.
func firstOfKey(seen map[string]bool, m *scene.Message) bool {
	k := labelKey(m)
	if seen[k] {
		return false
	}
	seen[k] = true
	return true
}

// ArrowLabels places the labels of the arrows whose messages have one,
// beside the arrow's middle, inside the plot, one per labelKey (the
// newest arrow's).
func (l *Layout) ArrowLabels(arrows []Arrow) []MsgLabel {
	sp := l.Space
	if sp == nil {
		return nil
	}
	var out []MsgLabel
	var taken []Rect
	seen := map[string]bool{}
	// Newest first: they sit at their arrows; older ones give way.
	for i := len(arrows) - 1; i >= 0; i-- {
		a := arrows[i]
		m := &l.S.Messages[a.Msg]
		if m.Label == "" {
			continue
		}
		if !firstOfKey(seen, m) {
			continue
		}
		if len(out) == MaxMsgLabels {
			break
		}
		text := Fit(m.Label, sp.Plot.W/2)
		w := TextW(text)
		mid := Lerp(a.A, a.B, 0.5)
		p := Pt{mid.X + 4, mid.Y - CharH/2}
		if p.X+w > sp.Plot.Right() {
			p.X = mid.X - 4 - w
		}
		p.X = math.Max(sp.Plot.X, p.X)
		p.Y = clamp(p.Y, sp.Plot.Y, sp.Plot.Bottom()-CharH-2)
		if q, ok := place(&taken, p, w, -1, sp.Plot); ok {
			out = append(out, MsgLabel{Msg: a.Msg, P: q, Text: text, Class: a.Class})
		}
	}
	return out
}

// place moves a label at p, w wide, a line at a time in direction dir
// (at most four lines) until it overlaps none of taken and stays inside
// bounds, and records it; false (nothing recorded) when there is no such
// place: a label left out beats one written over another.
func place(taken *[]Rect, p Pt, w, dir float64, bounds Rect) (Pt, bool) {
	r := Rect{p.X, p.Y, w, CharH}
	for try := 0; try < 5; try++ {
		if r.Y < bounds.Y || r.Bottom() > bounds.Bottom() {
			return Pt{}, false
		}
		clear := true
		for _, t := range *taken {
			if r.X < t.Right() && t.X < r.Right() && r.Y < t.Bottom() && t.Y < r.Bottom() {
				clear = false
				break
			}
		}
		if clear {
			*taken = append(*taken, r)
			return Pt{r.X, r.Y}, true
		}
		r.Y += math.Copysign(CharH+2, dir)
	}
	return Pt{}, false
}
