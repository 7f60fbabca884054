// Package sheet rasterises everything the canvas draws from into one
// sprite sheet: a white block (solid fills and lines), the bitmap font's
// glyphs, the message shapes at every pixel size the canvas uses, and the
// hatch pattern of records above the high watermark. It is plain Go (no
// ebiten), so its pixels are tested natively; the canvas uploads Pix once
// and draws a whole frame as triangles from this one image, which lets
// Ebiten send the frame to the GPU in a single draw call (a batch breaks
// whenever the source image, shader or filter changes).
//
// Pix is premultiplied RGBA, white with alpha = coverage, so any colour
// is a vertex colour scale. Every sprite has a transparent 1-pixel gutter
// (the white block excepted: it is opaque around the texel drawn from), so
// nearest-neighbour sampling at a sprite's edge never reads a neighbour.
package sheet

import (
	"image"
	"math"

	"golang.org/x/image/font/basicfont"
)

// Shape is a message or marker shape.
type Shape int

// The shapes: filled ones and their outlines (O), as the legend shows.
const (
	Circle Shape = iota
	Ring
	Square
	SquareO
	Triangle
	TriangleO
	Diamond
	DiamondO
	Plus
	Bar
	BarO
	Hex
	HexO
	Dot
	NumShapes
)

// Shape sizes rasterised: a shape drawn at size s (pixels across) uses the
// sprite of round(s) clamped to [MinSize, MaxSize].
const (
	MinSize = 3
	MaxSize = 16
)

// Font metrics (basicfont.Face7x13): glyph cells GlyphW x GlyphH, one
// every Advance pixels; glyphs for ASCII FirstRune..LastRune.
const (
	GlyphW    = 6
	GlyphH    = 13
	Advance   = 7
	FirstRune = 0x20
	LastRune  = 0x7e
)

// HatchSize is the side of the hatch pattern: diagonal lines (lower left
// to upper right) HatchPeriod pixels apart horizontally.
const (
	HatchSize   = 96
	HatchPeriod = 5
)

// Width is the sheet's width in pixels; its height follows from packing.
const Width = 256

// Sheet is the sprite sheet: its pixels and where each sprite lies.
type Sheet struct {
	W, H  int
	Pix   []byte          // premultiplied RGBA, row-major, 4*W*H bytes
	White image.Rectangle // one opaque white texel (inside a white block)
	Hatch image.Rectangle // HatchSize x HatchSize
	glyph [LastRune - FirstRune + 1]image.Rectangle
	shape [NumShapes][MaxSize + 1]image.Rectangle
}

// Glyph is the sprite of ASCII character c; other bytes map to '?'.
func (s *Sheet) Glyph(c byte) image.Rectangle {
	if c < FirstRune || c > LastRune {
		c = '?'
	}
	return s.glyph[c-FirstRune]
}

// ShapeSize is the sprite size used for a shape drawn size pixels across.
func ShapeSize(size float64) int {
	n := int(math.Round(size))
	return min(max(n, MinSize), MaxSize)
}

// Shape is the sprite of shape k drawn size pixels across (see ShapeSize);
// the zero rectangle for an unknown shape.
func (s *Sheet) Shape(k Shape, size float64) image.Rectangle {
	if k < 0 || k >= NumShapes {
		return image.Rectangle{}
	}
	return s.shape[k][ShapeSize(size)]
}

// packer places rectangles left to right in rows of Width pixels.
type packer struct {
	x, y, rowH int
}

func (p *packer) place(w, h int) image.Rectangle {
	// each sprite gets a 1-pixel gutter on every side
	if p.x+w+2 > Width {
		p.x, p.y, p.rowH = 0, p.y+p.rowH, 0
	}
	r := image.Rect(p.x+1, p.y+1, p.x+1+w, p.y+1+h)
	p.x += w + 2
	p.rowH = max(p.rowH, h+2)
	return r
}

// Build rasterises the sheet. It is deterministic: the same pixels every
// time. The canvas uses Load, the same sheet from what Build made when
// the sources were built (alpha.bin).
func Build() *Sheet {
	s, block := layout()
	for y := block.Min.Y; y < block.Max.Y; y++ {
		for x := block.Min.X; x < block.Max.X; x++ {
			s.set(x, y, 1)
		}
	}
	s.hatch()
	m := basicfont.Face7x13.Mask.(*image.Alpha)
	for i, r := range s.glyph {
		for y := 0; y < GlyphH; y++ {
			for x := 0; x < GlyphW; x++ {
				a := m.AlphaAt(m.Rect.Min.X+x, m.Rect.Min.Y+i*GlyphH+y).A
				s.set(r.Min.X+x, r.Min.Y+y, float64(a)/255)
			}
		}
	}
	for k := Shape(0); k < NumShapes; k++ {
		d := distance(k)
		for n := MinSize; n <= MaxSize; n++ {
			s.fill(s.shape[k][n], float64(n)/unit, d)
		}
	}
	return s
}

// layout places every sprite and allocates the (transparent) pixels;
// block is the white block's rectangle.
func layout() (s *Sheet, block image.Rectangle) {
	var p packer
	s = &Sheet{}
	block = p.place(3, 3)
	s.White = image.Rect(block.Min.X+1, block.Min.Y+1, block.Min.X+2, block.Min.Y+2)
	s.Hatch = p.place(HatchSize, HatchSize)
	for i := range s.glyph {
		s.glyph[i] = p.place(GlyphW, GlyphH)
	}
	for k := Shape(0); k < NumShapes; k++ {
		for n := MinSize; n <= MaxSize; n++ {
			s.shape[k][n] = p.place(n, n)
		}
	}
	s.W, s.H = Width, p.y+p.rowH
	s.Pix = make([]byte, 4*s.W*s.H)
	return s, block
}

// set stores coverage a (0..1) at (x, y) as premultiplied white.
func (s *Sheet) set(x, y int, a float64) {
	v := uint8(math.Round(255 * min(max(a, 0), 1)))
	i := 4 * (y*s.W + x)
	s.Pix[i], s.Pix[i+1], s.Pix[i+2], s.Pix[i+3] = v, v, v, v
}

// Alpha is the coverage (0..255) stored at (x, y).
func (s *Sheet) Alpha(x, y int) uint8 {
	if x < 0 || y < 0 || x >= s.W || y >= s.H {
		return 0
	}
	return s.Pix[4*(y*s.W+x)+3]
}

// fill rasterises d (in design units, scale pixels per unit) into r:
// each pixel's coverage is its centre's signed distance in pixels mapped
// to [0, 1] over one pixel (0.5 - distance), the usual analytic
// antialiasing of a distance field.
func (s *Sheet) fill(r image.Rectangle, scale float64, d sdf) {
	for py := 0; py < r.Dy(); py++ {
		for px := 0; px < r.Dx(); px++ {
			v := d((float64(px)+0.5)/scale, (float64(py)+0.5)/scale) * scale
			s.set(r.Min.X+px, r.Min.Y+py, 0.5-v)
		}
	}
}

// hatch fills the hatch pattern: lines x+y = 0 (mod HatchPeriod), 1.6
// pixels wide, antialiased like fill. A pixel's coverage depends only on
// (x+y) mod HatchPeriod.
func (s *Sheet) hatch() {
	var cov [HatchPeriod]float64
	for i := range cov {
		t := math.Mod(float64(i)+1, HatchPeriod) // pixel centre: x+y+1
		cov[i] = 0.5 - (math.Min(t, HatchPeriod-t)/math.Sqrt2 - 0.8)
	}
	r := s.Hatch
	for y := 0; y < r.Dy(); y++ {
		for x := 0; x < r.Dx(); x++ {
			s.set(r.Min.X+x, r.Min.Y+y, cov[(x+y)%HatchPeriod])
		}
	}
}

// Snap moves a destination coordinate off the pixel centre as Ebiten's
// DrawImage does for every vertex (graphics.adjustDestinationPixel): to
// the nearest of 0, 5/16, 11/16 or 1 of a pixel (the fractions below 3/16,
// 8/16, 13/16 and above). DrawTriangles does not, so the canvas's batch
// snaps its own vertices: a 1.5-pixel border covers the same pixels as
// when each border was a DrawImage (an edge at x.5 would otherwise be a
// tie at a pixel centre, filled on one side of a box and not the other).
func Snap(x float64) float64 {
	i := math.Floor(x)
	switch f := x - i; {
	case f < 3.0/16:
		return i
	case f < 8.0/16:
		return i + 5.0/16
	case f < 13.0/16:
		return i + 11.0/16
	}
	return i + 1
}
