//go:build js && wasm

package main

import (
	"image/color"
	"math"
	"strconv"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/kafkasim/kafkasim/wasm/layout"
	"github.com/kafkasim/kafkasim/wasm/scene"
)

// drawer draws one frame of one layout. It only reads: the scene, the
// layout and what layout computed for this moment.
type drawer struct {
	g         *gfx
	dst       *ebiten.Image
	l         *layout.Layout
	s         *scene.Scene
	now, rate float64
	arrows    []layout.Arrow
	laneMarks []layout.LaneMark
	hover     *scene.Ref
	drawn     int // message sprites and arrows drawn
}

func (d *drawer) frame() {
	d.dst.Fill(cBG)
	d.header()
	d.legend()
	if c := d.l.Cluster; c != nil {
		d.cluster(c)
	}
	if sp := d.l.Space; sp != nil {
		d.arrows = d.l.Arrows(d.now)
		d.laneMarks = d.l.LaneMarks(d.now)
		d.space(sp, d.now)
		d.drawn += len(d.arrows)
	}
	if d.l.Cluster != nil {
		ss, bs := d.l.Sprites(d.now)
		d.sprites(ss, bs)
		d.msgLabels(d.l.SpriteLabels(ss))
		d.drawn += len(ss)
		d.flashes()
	}
	d.marked()
}

func (d *drawer) header() {
	s := d.s
	t := "t=" + strconv.FormatFloat(d.now/1000, 'f', 3, 64) + "s"
	if s.Version != "" {
		t += "  kafka " + s.Version
	}
	if s.Metadata != "" {
		t += " " + s.Metadata
	}
	c := s.Counters
	t += "   produced " + itoa(c.Produced) + "  acked " + itoa(c.Acked) + "  consumed " + itoa(c.Consumed)
	d.g.text(d.dst, layout.Fit(t, d.l.W-16), 8, 4, cInk)
	x := 8 + layout.TextW(t) + 12
	for _, f := range []struct {
		n    int
		word string
	}{{c.Lost, "lost"}, {c.Dups, "dup"}, {c.Reordered, "reordered"}} {
		if f.n == 0 {
			continue
		}
		w := f.word + " " + strconv.Itoa(f.n)
		if x+layout.TextW(w) < d.l.W-8 {
			d.g.text(d.dst, w, x, 4, cVermilion)
		}
		x += layout.TextW(w) + 10
	}
	right := ""
	if c.Rate > 0 {
		right = strconv.FormatFloat(c.Rate, 'f', 0, 64) + " rec/s"
	}
	if c.Omitted > 0 {
		right += "  +" + strconv.Itoa(c.Omitted) + " msgs not shown"
	}
	if right != "" && x+layout.TextW(right) < d.l.W-8 {
		d.g.text(d.dst, right, d.l.W-8-layout.TextW(right), 4, cFaint)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func (d *drawer) legend() {
	g, dst := d.g, d.dst
	for _, it := range d.l.Legend {
		ink := color.Color(cInk)
		if it.Class != "" {
			st := styleOf(it.Class)
			a := 1.0
			if it.Hidden {
				a, ink = 0.25, cFaint
			}
			g.shape(dst, st.req, it.Swatch, 10, alpha(st.c, a))
			g.text(dst, it.Class, it.Label.X, it.Label.Y, ink)
			if it.Hidden {
				g.rect(dst, layout.Rect{X: it.Label.X, Y: it.Label.Y + 6, W: layout.TextW(it.Class), H: 1}, cFaint)
			}
			continue
		}
		d.key(it)
	}
}

// key draws a sample of one log key in the legend.
func (d *drawer) key(it layout.LegendItem) {
	g, dst := d.g, d.dst
	box := layout.Rect{X: it.Swatch.X - 5, Y: it.Swatch.Y - 6, W: 11, H: 12}
	switch it.Key {
	case "committed":
		g.rect(dst, box, cBlue)
	case "above HW":
		g.rect(dst, box, cPanel)
		g.hatched(dst, box, alpha(cBlue, 0.55))
		g.frame(dst, box, 1, cBlue)
	case "page cache":
		g.frame(dst, box, 1, cBlue)
		g.shape(dst, shRing, layout.Pt{X: box.Right() - 3.5, Y: box.Bottom() - 3.5}, 7, cInk)
	case "lost":
		g.rect(dst, box, rgb(0xE4E4E4))
		g.cross(dst, box.Inset(1.5), 1.6, cVermilion)
	case "dup":
		dupBadge(g, dst, it.Swatch, 2)
	case "reorder":
		g.rect(dst, box, cBlue)
		g.shape(dst, shTriangle, layout.Pt{X: box.X + 3, Y: box.Y + 3}, 8, cOrange)
	case "HW":
		g.rect(dst, layout.Rect{X: it.Swatch.X - 1, Y: box.Y, W: 2, H: 8}, cInk)
		g.shape(dst, shTriangle, layout.Pt{X: it.Swatch.X, Y: box.Bottom() - 2}, 7, cInk)
	case "LEO":
		g.shape(dst, shTriangleO, layout.Pt{X: it.Swatch.X, Y: box.Bottom() - 3}, 9, cInk)
	case "ISR":
		g.rect(dst, box, alpha(cSky, 0.35))
	}
	g.text(dst, it.Key, it.Label.X, it.Label.Y, cInk)
}

// markColour: faults and losses vermilion, elections purple, ISR blue,
// group changes sky blue.
func markColour(m *scene.Mark) color.RGBA {
	switch m.Kind {
	case scene.MarkElection:
		if m.Unclean {
			return cVermilion
		}
		return cPurple
	case scene.MarkISRShrink, scene.MarkISRExpand:
		return cBlue
	case scene.MarkRebalance, scene.MarkMove:
		return rgb(0x2F86B8)
	case scene.MarkResume, scene.MarkRestart, scene.MarkHeal, scene.MarkControl:
		return cGreen
	case scene.MarkReorder:
		return rgb(0xB07800)
	case scene.MarkDup:
		return cPurple
	}
	return cVermilion
}

// flashes animates the marks in progress on the cluster view.
func (d *drawer) flashes() {
	g, dst := d.g, d.dst
	for _, f := range d.l.Flashes(d.now, d.rate) {
		m := &d.s.Marks[f.Mark]
		c := markColour(m)
		pulse := 1 - f.T
		if m.Kind != scene.MarkSplit && m.Kind != scene.MarkHeal {
			grow := 2 + 5*f.T
			g.frame(dst, layout.Rect{X: f.Box.X - grow, Y: f.Box.Y - grow, W: f.Box.W + 2*grow, H: f.Box.H + 2*grow}, 2.5, alpha(c, pulse))
		}
		for _, fl := range f.Fly {
			if fl.Cell < 0 {
				g.rect(dst, fl.Box, alpha(cPanel, 0.95))
				g.frame(dst, fl.Box, 1.5, c)
				g.textC(dst, m.Partition, fl.Box, cInk)
				continue
			}
			a := math.Max(0.25, pulse)
			g.rect(dst, fl.Box, alpha(rgb(0xE4E4E4), a))
			g.frame(dst, fl.Box, 1, alpha(cVermilion, a))
			g.cross(dst, fl.Box.Inset(1), 1.6, alpha(cVermilion, a))
		}
		if f.Label.X < 0 {
			continue
		}
		t := f.Text
		if t == "" {
			t = layout.MarkText(m)
		}
		tw := layout.TextW(t)
		x := math.Min(math.Max(2, f.Label.X), d.l.W-tw-4)
		y := math.Max(d.l.Header.Bottom(), f.Label.Y)
		g.rect(dst, layout.Rect{X: x - 2, Y: y - 1, W: tw + 4, H: layout.CharH + 2}, alpha(cPanel, 0.9*pulse+0.1))
		g.text(dst, t, x, y, alpha(c, math.Max(0.3, pulse)))
	}
}

// marked outlines what the lesson highlights, what the learner selected,
// and what the pointer is over.
func (d *drawer) marked() {
	g, dst := d.g, d.dst
	for _, r := range d.s.Highlights {
		b, ok := d.l.Find(r, d.now)
		if !ok {
			continue
		}
		if r.Kind == scene.KindHW || r.Kind == scene.KindLEO {
			// The marker itself, thick and orange, in a frame of its own.
			g.rect(dst, layout.Rect{X: b.X + b.W/2 - 2, Y: b.Y + 1, W: 4, H: b.H - 2}, cOrange)
			g.frame(dst, b, 2, alpha(cOrange, 0.9))
			continue
		}
		g.frame(dst, layout.Rect{X: b.X - 4, Y: b.Y - 4, W: b.W + 8, H: b.H + 8}, 3, alpha(cOrange, 0.9))
	}
	if r := d.s.Selection; r != nil {
		if b, ok := d.l.Find(*r, d.now); ok {
			g.frame(dst, layout.Rect{X: b.X - 3, Y: b.Y - 3, W: b.W + 6, H: b.H + 6}, 2, cInk)
			g.frame(dst, layout.Rect{X: b.X - 5, Y: b.Y - 5, W: b.W + 10, H: b.H + 10}, 1.5, cSky)
		}
	}
	if d.hover != nil {
		if b, ok := d.l.Find(*d.hover, d.now); ok {
			g.frame(dst, layout.Rect{X: b.X - 2, Y: b.Y - 2, W: b.W + 4, H: b.H + 4}, 1, cFaint)
		}
	}
}
