// Package layout is the canvas's geometry and animation maths, with no
// drawing in it: where every broker, replica, log cell and client of a
// scene goes in a viewport, where each message is on its way at a virtual
// time, which messages are drawn one by one and which are counted, the
// space-time diagram's lanes and arrows, and which element a point hits.
// It imports no graphics package, so it is tested natively, and the
// engine's browser tests can compute where an element is from the same
// scene and viewport the canvas has.
//
// Everything here is a pure function of its inputs: Build(scene, w, h)
// for the static picture, then (*Layout).Sprites(now) and
// (*Layout).Arrows(now) for what moves.
package layout

import "math"

// Pt is a point in CSS pixels, y down.
type Pt struct{ X, Y float64 }

// Rect is an axis-aligned rectangle: X,Y its top-left corner.
type Rect struct{ X, Y, W, H float64 }

// Contains reports whether p lies inside r (edges included).
func (r Rect) Contains(p Pt) bool {
	return p.X >= r.X && p.X <= r.X+r.W && p.Y >= r.Y && p.Y <= r.Y+r.H
}

// Center returns r's centre.
func (r Rect) Center() Pt { return Pt{r.X + r.W/2, r.Y + r.H/2} }

// Inset returns r shrunk by d on every side (never below zero size).
func (r Rect) Inset(d float64) Rect {
	w, h := math.Max(0, r.W-2*d), math.Max(0, r.H-2*d)
	return Rect{r.X + d, r.Y + d, w, h}
}

// Bottom returns the y of r's lower edge.
func (r Rect) Bottom() float64 { return r.Y + r.H }

// Right returns the x of r's right edge.
func (r Rect) Right() float64 { return r.X + r.W }

// Lerp is a + (b-a)*t.
func Lerp(a, b Pt, t float64) Pt { return Pt{a.X + (b.X-a.X)*t, a.Y + (b.Y-a.Y)*t} }

// Quad is the point at t on the quadratic Bézier from a over control c to b.
func Quad(a, c, b Pt, t float64) Pt {
	u := 1 - t
	return Pt{u*u*a.X + 2*u*t*c.X + t*t*b.X, u*u*a.Y + 2*u*t*c.Y + t*t*b.Y}
}

// SegDist is the distance from p to the segment a-b.
func SegDist(p, a, b Pt) float64 {
	dx, dy := b.X-a.X, b.Y-a.Y
	l2 := dx*dx + dy*dy
	t := 0.0
	if l2 > 0 {
		t = clamp(((p.X-a.X)*dx+(p.Y-a.Y)*dy)/l2, 0, 1)
	}
	q := Pt{a.X + t*dx, a.Y + t*dy}
	return math.Hypot(p.X-q.X, p.Y-q.Y)
}

func clamp(v, lo, hi float64) float64 {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// Text metrics of the canvas's bitmap font (x/image basicfont 7x13), so
// layout can size labels without importing it.
const (
	CharW = 7
	CharH = 13
)

// TextW is the width of s in the bitmap font.
func TextW(s string) float64 { return float64(len(s) * CharW) }

// Fit returns s cut to at most w pixels of the bitmap font, ending in "~"
// when cut; "" when not even one character fits.
func Fit(s string, w float64) string {
	n := int(w / CharW)
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	if n == 1 {
		return s[:1]
	}
	return s[:n-1] + "~"
}
