//go:build js && wasm

package main

import (
	"image"
	"image/color"
	"math"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/vector"
	"golang.org/x/image/font/basicfont"

	"github.com/kafkasim/kafkasim/wasm/layout"
)

// The palette: Okabe-Ito's colour-blind-safe colours, and every state also
// differs by shape or pattern, never by colour alone.
var (
	cBG        = rgb(0xF5F3EE)
	cPanel     = rgb(0xFFFFFF)
	cInk       = rgb(0x222222)
	cFaint     = rgb(0x9A9A9A)
	cRule      = rgb(0xD6D3CC)
	cOrange    = rgb(0xE69F00)
	cSky       = rgb(0x56B4E9)
	cGreen     = rgb(0x009E73)
	cYellow    = rgb(0xF0E442)
	cBlue      = rgb(0x0072B2)
	cVermilion = rgb(0xD55E00)
	cPurple    = rgb(0xCC79A7)
	cGrey      = rgb(0xC8C8C8)
	cDark      = rgb(0x4A4A4A)
	cPaused    = rgb(0xE3EEF6)
)

func rgb(v uint32) color.RGBA {
	return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 0xFF}
}

// alpha returns c at opacity a (premultiplied, as ebiten wants).
func alpha(c color.RGBA, a float64) color.RGBA {
	return color.RGBA{uint8(float64(c.R) * a), uint8(float64(c.G) * a), uint8(float64(c.B) * a), uint8(255 * a)}
}

// gfx holds the images every frame draws from: a white pixel, the font
// atlas, the message shapes and the hatch pattern. All drawing goes
// through DrawImage of these, so ebiten batches a frame into few draw calls.
type gfx struct {
	white  *ebiten.Image
	font   *ebiten.Image
	shapes map[shapeKind]*ebiten.Image
	hatch  *ebiten.Image
	op     ebiten.DrawImageOptions
}

type shapeKind int

const (
	shCircle shapeKind = iota
	shRing
	shSquare
	shSquareO
	shTriangle
	shTriangleO
	shDiamond
	shDiamondO
	shPlus
	shBar
	shBarO
	shHex
	shHexO
	shDot
)

// shapeSize is the side of the pre-rendered shape images; drawn at any size.
const shapeSize = 24

func newGfx() *gfx {
	g := &gfx{shapes: map[shapeKind]*ebiten.Image{}}
	g.white = ebiten.NewImage(3, 3)
	g.white.Fill(color.White)
	g.white = g.white.SubImage(image.Rect(1, 1, 2, 2)).(*ebiten.Image)
	g.font = fontAtlas()
	for k := shCircle; k <= shDot; k++ {
		g.shapes[k] = renderShape(k)
	}
	g.hatch = ebiten.NewImage(96, 96)
	for i := -96; i < 96; i += 5 {
		vector.StrokeLine(g.hatch, float32(i), 96, float32(i+96), 0, 1.6, color.White, true)
	}
	return g
}

// fontAtlas turns basicfont's 7x13 masks into an image (white, alpha =
// the mask, premultiplied) so glyphs can be drawn in any colour. It
// writes the pixels itself: ebiten.NewImageFromImage would bring
// image/draw into the binary for this one image.
func fontAtlas() *ebiten.Image {
	m := basicfont.Face7x13.Mask
	b := m.Bounds()
	w, h := b.Dx(), b.Dy()
	pix := make([]byte, 4*w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			_, _, _, a := m.At(b.Min.X+x, b.Min.Y+y).RGBA()
			v := uint8(a >> 8)
			i := 4 * (y*w + x)
			pix[i], pix[i+1], pix[i+2], pix[i+3] = v, v, v, v
		}
	}
	img := ebiten.NewImage(w, h)
	img.WritePixels(pix)
	return img
}

func renderShape(k shapeKind) *ebiten.Image {
	const s = shapeSize
	img := ebiten.NewImage(s, s)
	var p vector.Path
	c := float32(s) / 2
	r := c - 2
	op := &vector.DrawPathOptions{AntiAlias: true}
	stroke := &vector.StrokeOptions{Width: 3.2, LineJoin: vector.LineJoinMiter}
	poly := func(pts ...[2]float32) {
		p.MoveTo(pts[0][0], pts[0][1])
		for _, q := range pts[1:] {
			p.LineTo(q[0], q[1])
		}
		p.Close()
	}
	hex := func(rad float32) {
		var pts [][2]float32
		for i := 0; i < 6; i++ {
			a := float64(i)*math.Pi/3 + math.Pi/6
			pts = append(pts, [2]float32{c + rad*float32(math.Cos(a)), c + rad*float32(math.Sin(a))})
		}
		poly(pts...)
	}
	switch k {
	case shCircle, shDot:
		vector.FillCircle(img, c, c, r, color.White, true)
		return img
	case shRing:
		vector.StrokeCircle(img, c, c, r-1.5, 3.2, color.White, true)
		return img
	case shSquare:
		poly([2]float32{3, 3}, [2]float32{s - 3, 3}, [2]float32{s - 3, s - 3}, [2]float32{3, s - 3})
		vector.FillPath(img, &p, nil, op)
	case shSquareO:
		poly([2]float32{4.5, 4.5}, [2]float32{s - 4.5, 4.5}, [2]float32{s - 4.5, s - 4.5}, [2]float32{4.5, s - 4.5})
		vector.StrokePath(img, &p, stroke, op)
	case shTriangle:
		poly([2]float32{c, 1.5}, [2]float32{s - 1.5, s - 3}, [2]float32{1.5, s - 3})
		vector.FillPath(img, &p, nil, op)
	case shTriangleO:
		poly([2]float32{c, 4.5}, [2]float32{s - 4, s - 4}, [2]float32{4, s - 4})
		vector.StrokePath(img, &p, stroke, op)
	case shDiamond:
		poly([2]float32{c, 1}, [2]float32{s - 1, c}, [2]float32{c, s - 1}, [2]float32{1, c})
		vector.FillPath(img, &p, nil, op)
	case shDiamondO:
		poly([2]float32{c, 3.5}, [2]float32{s - 3.5, c}, [2]float32{c, s - 3.5}, [2]float32{3.5, c})
		vector.StrokePath(img, &p, stroke, op)
	case shPlus:
		poly([2]float32{c - 3, 2}, [2]float32{c + 3, 2}, [2]float32{c + 3, c - 3}, [2]float32{s - 2, c - 3}, [2]float32{s - 2, c + 3},
			[2]float32{c + 3, c + 3}, [2]float32{c + 3, s - 2}, [2]float32{c - 3, s - 2}, [2]float32{c - 3, c + 3}, [2]float32{2, c + 3},
			[2]float32{2, c - 3}, [2]float32{c - 3, c - 3})
		vector.FillPath(img, &p, nil, op)
	case shBar:
		poly([2]float32{2, c - 4}, [2]float32{s - 2, c - 4}, [2]float32{s - 2, c + 4}, [2]float32{2, c + 4})
		vector.FillPath(img, &p, nil, op)
	case shBarO:
		poly([2]float32{3, c - 4}, [2]float32{s - 3, c - 4}, [2]float32{s - 3, c + 4}, [2]float32{3, c + 4})
		vector.StrokePath(img, &p, &vector.StrokeOptions{Width: 2.4}, op)
	case shHex:
		hex(r + 1)
		vector.FillPath(img, &p, nil, op)
	case shHexO:
		hex(r - 0.5)
		vector.StrokePath(img, &p, stroke, op)
	}
	return img
}

func (g *gfx) rect(dst *ebiten.Image, r layout.Rect, c color.Color) {
	if r.W <= 0 || r.H <= 0 {
		return
	}
	g.op.GeoM.Reset()
	g.op.GeoM.Scale(r.W, r.H)
	g.op.GeoM.Translate(r.X, r.Y)
	g.op.ColorScale.Reset()
	g.op.ColorScale.ScaleWithColor(c)
	dst.DrawImage(g.white, &g.op)
}

// frame strokes r's border inside it, w pixels wide.
func (g *gfx) frame(dst *ebiten.Image, r layout.Rect, w float64, c color.Color) {
	g.rect(dst, layout.Rect{X: r.X, Y: r.Y, W: r.W, H: w}, c)
	g.rect(dst, layout.Rect{X: r.X, Y: r.Bottom() - w, W: r.W, H: w}, c)
	g.rect(dst, layout.Rect{X: r.X, Y: r.Y + w, W: w, H: r.H - 2*w}, c)
	g.rect(dst, layout.Rect{X: r.Right() - w, Y: r.Y + w, W: w, H: r.H - 2*w}, c)
}

// dashed strokes r's border in dashes (the cut-off border).
func (g *gfx) dashed(dst *ebiten.Image, r layout.Rect, w float64, c color.Color) {
	const on, off = 7.0, 5.0
	for x := r.X; x < r.Right(); x += on + off {
		l := math.Min(on, r.Right()-x)
		g.rect(dst, layout.Rect{X: x, Y: r.Y, W: l, H: w}, c)
		g.rect(dst, layout.Rect{X: x, Y: r.Bottom() - w, W: l, H: w}, c)
	}
	for y := r.Y; y < r.Bottom(); y += on + off {
		l := math.Min(on, r.Bottom()-y)
		g.rect(dst, layout.Rect{X: r.X, Y: y, W: w, H: l}, c)
		g.rect(dst, layout.Rect{X: r.Right() - w, Y: y, W: w, H: l}, c)
	}
}

func (g *gfx) line(dst *ebiten.Image, a, b layout.Pt, w float64, c color.Color) {
	d := math.Hypot(b.X-a.X, b.Y-a.Y)
	if d == 0 {
		return
	}
	g.op.GeoM.Reset()
	g.op.GeoM.Scale(d, w)
	g.op.GeoM.Translate(0, -w/2)
	g.op.GeoM.Rotate(math.Atan2(b.Y-a.Y, b.X-a.X))
	g.op.GeoM.Translate(a.X, a.Y)
	g.op.ColorScale.Reset()
	g.op.ColorScale.ScaleWithColor(c)
	dst.DrawImage(g.white, &g.op)
}

// dashLine draws a dashed line from a to b.
func (g *gfx) dashLine(dst *ebiten.Image, a, b layout.Pt, w float64, c color.Color) {
	d := math.Hypot(b.X-a.X, b.Y-a.Y)
	for s := 0.0; s < d; s += 9 {
		e := math.Min(s+5, d)
		g.line(dst, layout.Lerp(a, b, s/d), layout.Lerp(a, b, e/d), w, c)
	}
}

// cross draws an X over r.
func (g *gfx) cross(dst *ebiten.Image, r layout.Rect, w float64, c color.Color) {
	g.line(dst, layout.Pt{X: r.X, Y: r.Y}, layout.Pt{X: r.Right(), Y: r.Bottom()}, w, c)
	g.line(dst, layout.Pt{X: r.Right(), Y: r.Y}, layout.Pt{X: r.X, Y: r.Bottom()}, w, c)
}

// shape draws a pre-rendered shape centred at p, size px across.
func (g *gfx) shape(dst *ebiten.Image, k shapeKind, p layout.Pt, size float64, c color.Color) {
	img := g.shapes[k]
	sc := size / shapeSize
	g.op.GeoM.Reset()
	g.op.GeoM.Scale(sc, sc)
	g.op.GeoM.Translate(p.X-size/2, p.Y-size/2)
	g.op.ColorScale.Reset()
	g.op.ColorScale.ScaleWithColor(c)
	g.op.Filter = ebiten.FilterLinear
	dst.DrawImage(img, &g.op)
	g.op.Filter = ebiten.FilterNearest
}

// hatched fills r with diagonal stripes.
func (g *gfx) hatched(dst *ebiten.Image, r layout.Rect, c color.Color) {
	w, h := int(math.Min(r.W, 96)), int(math.Min(r.H, 96))
	if w <= 0 || h <= 0 {
		return
	}
	ox := int(r.X) % 5
	sub := g.hatch.SubImage(image.Rect(ox, 0, ox+w, h)).(*ebiten.Image)
	if ox+w > 96 {
		sub = g.hatch.SubImage(image.Rect(0, 0, w, h)).(*ebiten.Image)
	}
	g.op.GeoM.Reset()
	g.op.GeoM.Translate(math.Round(r.X), math.Round(r.Y))
	g.op.ColorScale.Reset()
	g.op.ColorScale.ScaleWithColor(c)
	dst.DrawImage(sub, &g.op)
}

// text draws ASCII s with its top-left at (x, y); other runes draw as '?'.
func (g *gfx) text(dst *ebiten.Image, s string, x, y float64, c color.Color) {
	f := basicfont.Face7x13
	g.op.ColorScale.Reset()
	g.op.ColorScale.ScaleWithColor(c)
	x, y = math.Round(x), math.Round(y)
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch < 0x20 || ch >= 0x7f {
			ch = '?'
		}
		if ch != ' ' {
			idx := int(ch - 0x20)
			sub := g.font.SubImage(image.Rect(0, idx*f.Height, f.Width, (idx+1)*f.Height)).(*ebiten.Image)
			g.op.GeoM.Reset()
			g.op.GeoM.Translate(x+float64(i*f.Advance), y)
			dst.DrawImage(sub, &g.op)
		}
	}
}

// textC draws s centred in r (cut to fit).
func (g *gfx) textC(dst *ebiten.Image, s string, r layout.Rect, c color.Color) {
	s = layout.Fit(s, r.W)
	g.text(dst, s, r.X+(r.W-layout.TextW(s))/2, r.Y+(r.H-layout.CharH)/2, c)
}
