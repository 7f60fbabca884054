package sheet

import (
	"bytes"
	"image"
	"math"
	"strings"
	"testing"

	"golang.org/x/image/font/basicfont"
)

// sprites lists every sprite rectangle with a name.
func sprites(s *Sheet) map[string]image.Rectangle {
	m := map[string]image.Rectangle{"hatch": s.Hatch}
	for c := FirstRune; c <= LastRune; c++ {
		m["glyph "+string(rune(c))] = s.Glyph(byte(c))
	}
	for k := Shape(0); k < NumShapes; k++ {
		for n := MinSize; n <= MaxSize; n++ {
			m["shape "+string(rune('A'+k))+" "+string(rune('0'+n))] = s.Shape(k, float64(n))
		}
	}
	return m
}

func TestLayout(t *testing.T) {
	s := Build()
	if s.W != Width || s.H <= 0 || s.H > 1024 || len(s.Pix) != 4*s.W*s.H {
		t.Fatalf("sheet %dx%d with %d bytes", s.W, s.H, len(s.Pix))
	}
	bounds := image.Rect(0, 0, s.W, s.H)
	all := sprites(s)
	for n, r := range all {
		if r.Empty() || !r.Inset(-1).In(bounds) {
			t.Errorf("%s at %v: empty or its gutter outside %v", n, r, bounds)
		}
		for m, q := range all {
			if n < m && r.Inset(-1).Overlaps(q) {
				t.Errorf("%s %v and %s %v overlap (gutter included)", n, r, m, q)
			}
		}
		// the gutter is transparent
		g := r.Inset(-1)
		for x := g.Min.X; x < g.Max.X; x++ {
			for _, y := range []int{g.Min.Y, g.Max.Y - 1} {
				if a := s.Alpha(x, y); a != 0 {
					t.Fatalf("%s: gutter pixel (%d,%d) has alpha %d", n, x, y, a)
				}
			}
		}
		for y := g.Min.Y; y < g.Max.Y; y++ {
			for _, x := range []int{g.Min.X, g.Max.X - 1} {
				if a := s.Alpha(x, y); a != 0 {
					t.Fatalf("%s: gutter pixel (%d,%d) has alpha %d", n, x, y, a)
				}
			}
		}
	}
	w := s.White
	if w.Dx() != 1 || w.Dy() != 1 {
		t.Fatalf("white %v: want one texel", w)
	}
	for y := w.Min.Y - 1; y <= w.Min.Y+1; y++ {
		for x := w.Min.X - 1; x <= w.Min.X+1; x++ {
			if s.Alpha(x, y) != 255 {
				t.Errorf("white block (%d,%d) alpha %d: nearest sampling at the texel's edge must read white", x, y, s.Alpha(x, y))
			}
		}
	}
	if !bytes.Equal(s.Pix, Build().Pix) {
		t.Error("Build is not deterministic")
	}
}

func TestPremultipliedWhite(t *testing.T) {
	s := Build()
	for i := 0; i < len(s.Pix); i += 4 {
		a := s.Pix[i+3]
		if s.Pix[i] != a || s.Pix[i+1] != a || s.Pix[i+2] != a {
			t.Fatalf("pixel %d: %v, want premultiplied white", i/4, s.Pix[i:i+4])
		}
	}
}

func TestGlyphs(t *testing.T) {
	s := Build()
	m := basicfont.Face7x13.Mask.(*image.Alpha)
	if basicfont.Face7x13.Advance != Advance || basicfont.Face7x13.Height != GlyphH || basicfont.Face7x13.Width != GlyphW {
		t.Fatalf("basicfont metrics changed: %+v", basicfont.Face7x13)
	}
	for c := FirstRune; c <= LastRune; c++ {
		r := s.Glyph(byte(c))
		for y := 0; y < GlyphH; y++ {
			for x := 0; x < GlyphW; x++ {
				want := m.AlphaAt(x, (c-FirstRune)*GlyphH+y).A
				if got := s.Alpha(r.Min.X+x, r.Min.Y+y); got != want {
					t.Fatalf("glyph %q (%d,%d): alpha %d, want %d", rune(c), x, y, got, want)
				}
			}
		}
	}
	if s.Glyph(0x7f) != s.Glyph('?') || s.Glyph(0x10) != s.Glyph('?') || s.Glyph(0xe4) != s.Glyph('?') {
		t.Error("a byte outside printable ASCII does not draw as '?'")
	}
	if ink(s, s.Glyph('A')) == 0 || ink(s, s.Glyph(' ')) != 0 {
		t.Error("'A' has no ink or ' ' has some")
	}
}

// ink sums r's coverage in pixels.
func ink(s *Sheet, r image.Rectangle) float64 {
	sum := 0.0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			sum += float64(s.Alpha(x, y)) / 255
		}
	}
	return sum
}

func at(s *Sheet, r image.Rectangle, fx, fy float64) uint8 {
	return s.Alpha(r.Min.X+int(fx*float64(r.Dx())), r.Min.Y+int(fy*float64(r.Dy())))
}

func TestShapes(t *testing.T) {
	s := Build()
	for _, n := range []int{7, 13, 16} {
		sc := float64(n) / unit
		circle := s.Shape(Circle, float64(n))
		if got, want := ink(s, circle), math.Pi*math.Pow(10*sc, 2); math.Abs(got-want) > 0.04*want {
			t.Errorf("circle %d: ink %.1f, want %.1f (pi r^2)", n, got, want)
		}
		for k := Shape(0); k < NumShapes; k++ {
			r := s.Shape(k, float64(n))
			if ink(s, r) < 0.1*float64(n*n) {
				t.Errorf("shape %d at %d px: almost no ink (%.1f)", k, n, ink(s, r))
			}
			// every shape is symmetric about its vertical axis
			for y := r.Min.Y; y < r.Max.Y; y++ {
				for x := 0; x < r.Dx()/2; x++ {
					a, b := s.Alpha(r.Min.X+x, y), s.Alpha(r.Max.X-1-x, y)
					if d := int(a) - int(b); d > 40 || d < -40 {
						t.Fatalf("shape %d at %d px: row %d not symmetric (%d vs %d)", k, n, y-r.Min.Y, a, b)
					}
				}
			}
		}
		// outlines are hollow, fills are not
		for _, k := range []Shape{Ring, SquareO, DiamondO, HexO} {
			if a := at(s, s.Shape(k, float64(n)), 0.5, 0.5); a != 0 {
				t.Errorf("outline %d at %d px: centre alpha %d, want 0", k, n, a)
			}
		}
		for _, k := range []Shape{Circle, Square, Triangle, Diamond, Plus, Bar, Hex} {
			fy := 0.5
			if k == Triangle {
				fy = 0.6 // below the apex
			}
			if a := at(s, s.Shape(k, float64(n)), 0.5, fy); a != 255 {
				t.Errorf("fill %d at %d px: centre alpha %d, want 255", k, n, a)
			}
		}
		// the outline runs through the edge midpoints
		if a := at(s, s.Shape(SquareO, float64(n)), 0.5, 4.5/unit); a < 128 {
			t.Errorf("square outline %d px: top edge alpha %d", n, a)
		}
		// a plus has empty corners
		if a := at(s, s.Shape(Plus, float64(n)), 0.1, 0.1); a != 0 {
			t.Errorf("plus %d px: corner alpha %d", n, a)
		}
	}
	if s.Shape(Circle, 1) != s.Shape(Circle, MinSize) || s.Shape(Circle, 99) != s.Shape(Circle, MaxSize) || s.Shape(Circle, 12.6) != s.Shape(Circle, 13) {
		t.Error("sizes are not rounded and clamped")
	}
	if !s.Shape(NumShapes, 10).Empty() || !s.Shape(-1, 10).Empty() {
		t.Error("an unknown shape has a sprite")
	}
}

func TestHatch(t *testing.T) {
	s := Build()
	r := s.Hatch
	// stripes 1.6 px wide every 5/sqrt2 px: 45% ink
	if f := ink(s, r) / float64(HatchSize*HatchSize); math.Abs(f-1.6/(HatchPeriod/math.Sqrt2)) > 0.02 {
		t.Errorf("hatch ink %.3f, want %.3f", f, 1.6/(HatchPeriod/math.Sqrt2))
	}
	// periodic along x with period 5, and constant along the diagonal
	for y := 0; y < HatchSize; y++ {
		for x := 0; x+HatchPeriod < HatchSize; x++ {
			if s.Alpha(r.Min.X+x, r.Min.Y+y) != s.Alpha(r.Min.X+x+HatchPeriod, r.Min.Y+y) {
				t.Fatalf("hatch (%d,%d) not periodic", x, y)
			}
			if y+1 < HatchSize && x > 0 && s.Alpha(r.Min.X+x, r.Min.Y+y) != s.Alpha(r.Min.X+x-1, r.Min.Y+y+1) {
				t.Fatalf("hatch (%d,%d) not diagonal", x, y)
			}
		}
	}
}

// TestPicture prints shapes as text with -v, for a person to look at.
func TestPicture(t *testing.T) {
	s := Build()
	for _, k := range []Shape{Circle, SquareO, Triangle, TriangleO, Plus, HexO} {
		r := s.Shape(k, 13)
		var b strings.Builder
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				b.WriteByte(" .:-=+*#%@"[int(s.Alpha(x, y))*9/255])
			}
			b.WriteByte('\n')
		}
		t.Logf("shape %d at 13 px:\n%s", k, b.String())
	}
}

func TestOutlineMitre(t *testing.T) {
	d := distance(SquareO) // edges at 4.5 and 19.5, 3.2 wide
	in := func(x, y float64) bool { return d(x, y) <= 0 }
	for _, c := range []struct {
		x, y float64
		want bool
	}{{3.0, 3.0, true}, {12, 12, false}, {12, 4.5, true}, {12, 2.8, false}, {2.8, 12, false}, {6.0, 6.0, true}} {
		if got := in(c.x, c.y); got != c.want {
			t.Errorf("square outline at (%v,%v): %v, want %v (mitred corners, 1.6 either side of the edge)", c.x, c.y, got, c.want)
		}
	}
}

func BenchmarkBuild(b *testing.B) {
	for i := 0; i < b.N; i++ {
		Build()
	}
}

func TestSnap(t *testing.T) {
	for _, c := range [][2]float64{{0, 0}, {0.1, 0}, {0.2, 5.0 / 16}, {0.5, 11.0 / 16}, {119.5, 119 + 11.0/16}, {0.8, 11.0 / 16}, {0.9, 1}, {-0.5, -1 + 11.0/16}, {-0.05, 0}, {3, 3}} {
		if got := Snap(c[0]); got != c[1] {
			t.Errorf("Snap(%v) = %v, want %v", c[0], got, c[1])
		}
	}
}

// TestLoadIsBuild: the sheet the canvas loads (alpha.bin) is the one
// Build rasterises, pixel for pixel, sprite for sprite.
func TestLoadIsBuild(t *testing.T) {
	got, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	want := Build()
	if got.W != want.W || got.H != want.H || got.White != want.White || got.Hatch != want.Hatch || got.glyph != want.glyph || got.shape != want.shape {
		t.Fatalf("Load's layout differs from Build's")
	}
	if !bytes.Equal(got.Pix, want.Pix) {
		for i := range got.Pix {
			if got.Pix[i] != want.Pix[i] {
				t.Fatalf("Load's pixels differ from Build's from byte %d (pixel %d,%d): run go generate ./wasm/sheet", i, i/4%want.W, i/4/want.W)
			}
		}
	}
}
