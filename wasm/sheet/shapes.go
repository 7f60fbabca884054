package sheet

import "math"

// unit is the side of the square the shapes are designed in; a sprite of
// n pixels scales it by n/unit (stroke widths too).
const unit = 24

type pt struct{ x, y float64 }

// sdf is a shape's signed distance in design units: negative inside,
// positive outside. For polygons it is the largest distance to an edge's
// line, which is exact along edges and gives mitred corners.
type sdf func(x, y float64) float64

// distance returns shape k's signed distance.
func distance(k Shape) sdf {
	const c = unit / 2.0
	const r = c - 2
	const stroke = 3.2
	switch k {
	case Circle, Dot:
		return func(x, y float64) float64 { return math.Hypot(x-c, y-c) - r }
	case Ring:
		return func(x, y float64) float64 { return math.Abs(math.Hypot(x-c, y-c)-(r-1.5)) - stroke/2 }
	case Square:
		return convex(pt{3, 3}, pt{unit - 3, 3}, pt{unit - 3, unit - 3}, pt{3, unit - 3})
	case SquareO:
		return outline(stroke, convex(pt{4.5, 4.5}, pt{unit - 4.5, 4.5}, pt{unit - 4.5, unit - 4.5}, pt{4.5, unit - 4.5}))
	case Triangle:
		return convex(pt{c, 1.5}, pt{unit - 1.5, unit - 3}, pt{1.5, unit - 3})
	case TriangleO:
		return outline(stroke, convex(pt{c, 4.5}, pt{unit - 4, unit - 4}, pt{4, unit - 4}))
	case Diamond:
		return convex(pt{c, 1}, pt{unit - 1, c}, pt{c, unit - 1}, pt{1, c})
	case DiamondO:
		return outline(stroke, convex(pt{c, 3.5}, pt{unit - 3.5, c}, pt{c, unit - 3.5}, pt{3.5, c}))
	case Plus: // two bars 6 wide, 20 long
		a := convex(pt{c - 3, 2}, pt{c + 3, 2}, pt{c + 3, unit - 2}, pt{c - 3, unit - 2})
		b := convex(pt{2, c - 3}, pt{unit - 2, c - 3}, pt{unit - 2, c + 3}, pt{2, c + 3})
		return func(x, y float64) float64 { return math.Min(a(x, y), b(x, y)) }
	case Bar:
		return convex(pt{2, c - 4}, pt{unit - 2, c - 4}, pt{unit - 2, c + 4}, pt{2, c + 4})
	case BarO:
		return outline(2.4, convex(pt{3, c - 4}, pt{unit - 3, c - 4}, pt{unit - 3, c + 4}, pt{3, c + 4}))
	case Hex:
		return convex(hexagon(c, r+1)...)
	case HexO:
		return outline(stroke, convex(hexagon(c, r-0.5)...))
	}
	return func(x, y float64) float64 { return math.Inf(1) }
}

func hexagon(c, rad float64) []pt {
	var p []pt
	for i := 0; i < 6; i++ {
		a := float64(i)*math.Pi/3 + math.Pi/6
		p = append(p, pt{c + rad*math.Cos(a), c + rad*math.Sin(a)})
	}
	return p
}

// convex is the signed distance of a convex polygon (either winding): the
// largest signed distance to its edges' lines, positive outside.
func convex(poly ...pt) sdf {
	area := 0.0
	for i := range poly {
		a, b := poly[i], poly[(i+1)%len(poly)]
		area += a.x*b.y - b.x*a.y
	}
	sign := 1.0
	if area < 0 {
		sign = -1
	}
	type edge struct{ a, n pt } // a point on the edge, its unit outward normal
	var edges []edge
	for i := range poly {
		a, b := poly[i], poly[(i+1)%len(poly)]
		dx, dy := b.x-a.x, b.y-a.y
		l := math.Hypot(dx, dy)
		// y points down: a positive area is clockwise on screen, and a
		// clockwise edge's outward normal is (dy, -dx)
		edges = append(edges, edge{a, pt{sign * dy / l, -sign * dx / l}})
	}
	return func(x, y float64) float64 {
		d := math.Inf(-1)
		for _, e := range edges {
			d = math.Max(d, (x-e.a.x)*e.n.x+(y-e.a.y)*e.n.y)
		}
		return d
	}
}

// outline is the stroke of f's boundary, w wide and centred on it.
func outline(w float64, f sdf) sdf {
	return func(x, y float64) float64 { return math.Abs(f(x, y)) - w/2 }
}
