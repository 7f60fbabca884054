//go:build js && wasm

package main

import (
	"image"
	"image/color"
	"math"
	"syscall/js"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/kafkasim/kafkasim/wasm/layout"
	"github.com/kafkasim/kafkasim/wasm/sheet"
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

// gfx batches a frame's drawing: every primitive appends textured quads
// cut from one sprite sheet (wasm/sheet: a white texel, the font, the
// shapes at each pixel size, the hatch) to a vertex list, and flush draws
// the list with one DrawTriangles32, so Ebiten sends the frame to the GPU
// in one draw call instead of one per source-image, filter or shader
// change (it was 160 a frame on the reference scene, each a program
// switch and a uniform upload). Quads are drawn in the order appended, so
// later ones cover earlier ones exactly as separate draws did. Everything
// is drawn unscaled from the sheet with nearest sampling except solid
// fills and lines, which stretch the white texel.
type gfx struct {
	sheet *sheet.Sheet
	img   *ebiten.Image
	dst   *ebiten.Image // the image the pending quads are for
	vs    []ebiten.Vertex
	is    []uint32
	op    ebiten.DrawTrianglesOptions

	quads  int     // quads appended since count was last called
	pixels float64 // and their area
}

// count returns the quads appended since the last call and their area
// in pixels, and starts counting afresh.
func (g *gfx) count() (int, float64) {
	n, px := g.quads, g.pixels
	g.quads, g.pixels = 0, 0
	return n, px
}

type shapeKind = sheet.Shape

const (
	shCircle    = sheet.Circle
	shRing      = sheet.Ring
	shSquare    = sheet.Square
	shSquareO   = sheet.SquareO
	shTriangle  = sheet.Triangle
	shTriangleO = sheet.TriangleO
	shDiamond   = sheet.Diamond
	shDiamondO  = sheet.DiamondO
	shPlus      = sheet.Plus
	shBar       = sheet.Bar
	shBarO      = sheet.BarO
	shHex       = sheet.Hex
	shHexO      = sheet.HexO
	shDot       = sheet.Dot
)

// maxBatchQuads bounds the vertices pending; past it the batch is drawn
// and a new one started (a frame rarely has a tenth of this).
const maxBatchQuads = 1 << 14

func newGfx() *gfx {
	sh, err := sheet.Load() // Build's pixels, rasterised when the sources were
	if err != nil {
		js.Global().Get("console").Call("error", "kafkasim canvas: "+err.Error())
	}
	img := ebiten.NewImage(sh.W, sh.H)
	img.WritePixels(sh.Pix)
	g := &gfx{sheet: sh, img: img}
	g.op.ColorScaleMode = ebiten.ColorScaleModePremultipliedAlpha
	return g
}

// flush draws the pending quads onto their image.
func (g *gfx) flush() {
	if len(g.is) > 0 && g.dst != nil {
		g.dst.DrawTriangles32(g.vs, g.is, g.img, &g.op)
	}
	g.vs, g.is = g.vs[:0], g.is[:0]
}

// quad appends a quad with corners p0..p3 (clockwise from top left)
// textured by sheet rectangle src and tinted by c (premultiplied). The
// corners are snapped as DrawImage snaps them (sheet.Snap).
func (g *gfx) quad(dst *ebiten.Image, p [4]layout.Pt, src image.Rectangle, c color.Color) {
	if dst != g.dst || len(g.vs) >= 4*maxBatchQuads {
		g.flush()
		g.dst = dst
	}
	r, gr, b, a := c.RGBA()
	cr, cg, cb, ca := float32(r)/0xffff, float32(gr)/0xffff, float32(b)/0xffff, float32(a)/0xffff
	sx0, sy0, sx1, sy1 := float32(src.Min.X), float32(src.Min.Y), float32(src.Max.X), float32(src.Max.Y)
	g.quads++
	g.pixels += quadArea(p)
	base := uint32(len(g.vs))
	for i, s := range [4][2]float32{{sx0, sy0}, {sx1, sy0}, {sx1, sy1}, {sx0, sy1}} {
		g.vs = append(g.vs, ebiten.Vertex{DstX: float32(sheet.Snap(p[i].X)), DstY: float32(sheet.Snap(p[i].Y)), SrcX: s[0], SrcY: s[1], ColorR: cr, ColorG: cg, ColorB: cb, ColorA: ca})
	}
	g.is = append(g.is, base, base+1, base+2, base, base+2, base+3)
}

// quadArea is the area of the quad p0..p3 (the shoelace formula).
func quadArea(p [4]layout.Pt) float64 {
	a := 0.0
	for i := range p {
		j := (i + 1) % 4
		a += p[i].X*p[j].Y - p[j].X*p[i].Y
	}
	return math.Abs(a) / 2
}

// sprite draws sheet rectangle src unscaled with its top left at (x, y)
// rounded to the pixel (nearest sampling then copies texels exactly).
func (g *gfx) sprite(dst *ebiten.Image, src image.Rectangle, x, y float64, c color.Color) {
	x, y = math.Round(x), math.Round(y)
	w, h := float64(src.Dx()), float64(src.Dy())
	g.quad(dst, [4]layout.Pt{{X: x, Y: y}, {X: x + w, Y: y}, {X: x + w, Y: y + h}, {X: x, Y: y + h}}, src, c)
}

func (g *gfx) rect(dst *ebiten.Image, r layout.Rect, c color.Color) {
	if r.W <= 0 || r.H <= 0 {
		return
	}
	g.quad(dst, [4]layout.Pt{{X: r.X, Y: r.Y}, {X: r.Right(), Y: r.Y}, {X: r.Right(), Y: r.Bottom()}, {X: r.X, Y: r.Bottom()}}, g.sheet.White, c)
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
	// the unit normal, half the width long
	nx, ny := -(b.Y-a.Y)/d*w/2, (b.X-a.X)/d*w/2
	g.quad(dst, [4]layout.Pt{{X: a.X - nx, Y: a.Y - ny}, {X: b.X - nx, Y: b.Y - ny}, {X: b.X + nx, Y: b.Y + ny}, {X: a.X + nx, Y: a.Y + ny}}, g.sheet.White, c)
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

// shape draws shape k centred at p, size px across (rasterised at that
// size in the sheet, rounded to a whole pixel).
func (g *gfx) shape(dst *ebiten.Image, k shapeKind, p layout.Pt, size float64, c color.Color) {
	src := g.sheet.Shape(k, size)
	n := float64(src.Dx())
	g.sprite(dst, src, p.X-n/2, p.Y-n/2, c)
}

// hatched fills r with diagonal stripes.
func (g *gfx) hatched(dst *ebiten.Image, r layout.Rect, c color.Color) {
	const size = sheet.HatchSize
	w, h := int(math.Min(r.W, size)), int(math.Min(r.H, size))
	if w <= 0 || h <= 0 {
		return
	}
	// the stripes line up from cell to cell: offset by the cell's x
	ox := int(r.X) % sheet.HatchPeriod
	if ox < 0 || ox+w > size {
		ox = 0
	}
	hs := g.sheet.Hatch
	g.sprite(dst, image.Rect(hs.Min.X+ox, hs.Min.Y, hs.Min.X+ox+w, hs.Min.Y+h), r.X, r.Y, c)
}

// text draws ASCII s with its top-left at (x, y); other runes draw as '?'.
func (g *gfx) text(dst *ebiten.Image, s string, x, y float64, c color.Color) {
	x, y = math.Round(x), math.Round(y)
	for i := 0; i < len(s); i++ {
		if ch := s[i]; ch != ' ' {
			g.sprite(dst, g.sheet.Glyph(ch), x+float64(i*sheet.Advance), y, c)
		}
	}
}

// textC draws s centred in r (cut to fit).
func (g *gfx) textC(dst *ebiten.Image, s string, r layout.Rect, c color.Color) {
	s = layout.Fit(s, r.W)
	g.text(dst, s, r.X+(r.W-layout.TextW(s))/2, r.Y+(r.H-layout.CharH)/2, c)
}
