package sheet

import (
	_ "embed"
	"fmt"
)

//go:generate go run ./gen alpha.bin

// alpha is Build's coverage, one byte a pixel (row-major, W*H bytes):
// Build's Pix is white premultiplied by it. It is rasterised when the
// sources are (go generate ./wasm/sheet writes it; TestLoadIsBuild fails
// when it is not Build's), so that the page does not rasterise the sheet
// while it starts: in WebAssembly Build takes 50 to 130 ms of the page's
// one thread before the first frame, and its loops are hot enough for V8
// to compile them a second time.
//
//go:embed alpha.bin
var alpha []byte

// Load returns the sheet Build returns, its pixels from alpha.bin. An
// alpha.bin of the wrong size (which TestLoadIsBuild catches) gives the
// sheet's layout with transparent pixels and an error.
func Load() (*Sheet, error) {
	s, _ := layout()
	if len(alpha) != s.W*s.H {
		return s, fmt.Errorf("sheet: alpha.bin has %d bytes, want %d (%dx%d): run go generate ./wasm/sheet", len(alpha), s.W*s.H, s.W, s.H)
	}
	for i, a := range alpha {
		s.Pix[4*i], s.Pix[4*i+1], s.Pix[4*i+2], s.Pix[4*i+3] = a, a, a, a
	}
	return s, nil
}

// Alphas is s's coverage, one byte a pixel (what alpha.bin holds for
// Build's sheet).
func (s *Sheet) Alphas() []byte {
	b := make([]byte, s.W*s.H)
	for i := range b {
		b[i] = s.Pix[4*i+3]
	}
	return b
}
