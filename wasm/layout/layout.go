package layout

import (
	"math"

	"github.com/kafkasim/kafkasim/wasm/scene"
)

// Bands of the viewport, in CSS pixels.
const (
	HeaderH = 20 // the counters line at the top
	LegendH = 20 // the message legend at the bottom
	Margin  = 8
)

// Layout is the static picture of one scene in one viewport: every box,
// row and cell, where each host's messages leave and arrive, the lanes of
// the space-time view. What moves is computed from it per frame (Sprites,
// Arrows). A Layout is never modified after Build.
type Layout struct {
	W, H    float64
	S       *scene.Scene
	View    scene.View
	Header  Rect
	Legend  []LegendItem
	Cluster *Cluster // nil when the view does not show it
	Space   *Space   // nil when the view does not show it
}

// LegendItem is one entry of the legend strip: a message class (Class
// set; clicking it posts a class click, the engine may toggle it) or a
// key to the log's drawing (Key set).
type LegendItem struct {
	Class  string
	Key    string
	Box    Rect // the whole item, for hit-testing
	Swatch Pt   // where the class's shape or the key's sample is drawn
	Label  Pt   // where its name starts
	Hidden bool
}

// Keys are the legend entries that explain the record cells and markers.
var Keys = []string{"committed", "above HW", "page cache", "lost", "dup", "reorder", "HW", "LEO", "ISR"}

// Build lays s out in a w x h viewport. It never fails: a viewport too
// small for everything shows less (fewer rows, no labels), never overlaps.
func Build(s *scene.Scene, w, h float64) *Layout {
	w, h = math.Max(w, 60), math.Max(h, 60)
	l := &Layout{W: w, H: h, S: s, View: s.View}
	if l.View == "" {
		l.View = scene.ViewCluster
	}
	l.Header = Rect{0, 0, w, HeaderH}
	legendH := l.buildLegend()
	body := Rect{0, HeaderH, w, h - HeaderH - legendH}
	switch l.View {
	case scene.ViewSpaceTime:
		l.Space = buildSpace(s, body)
	case scene.ViewBoth:
		top := math.Floor(body.H * 0.58)
		l.Cluster = buildCluster(s, Rect{body.X, body.Y, body.W, top})
		l.Space = buildSpace(s, Rect{body.X, body.Y + top, body.W, body.H - top})
	default:
		l.Cluster = buildCluster(s, body)
	}
	return l
}

// buildLegend lays the legend out in one strip at the bottom, or two
// when one is too narrow (classes, then keys), and returns its height.
func (l *Layout) buildLegend() float64 {
	type entry struct{ class, key string }
	var es []entry
	for _, c := range scene.Classes {
		es = append(es, entry{class: c})
	}
	if l.View != scene.ViewSpaceTime {
		for _, k := range Keys {
			es = append(es, entry{key: k})
		}
	}
	width := func(e entry) float64 { return 16 + TextW(e.class+e.key) + 10 }
	total := 0.0
	for _, e := range es {
		total += width(e)
	}
	rows := 1.0
	if total > l.W-2*Margin {
		rows = 2
	}
	y := l.H - rows*LegendH
	x := float64(Margin)
	for i, e := range es {
		wd := width(e)
		if rows == 2 && e.key != "" && (i == 0 || es[i-1].class != "") {
			x, y = Margin, y+LegendH
		}
		if x+wd > l.W-Margin {
			continue
		}
		l.Legend = append(l.Legend, LegendItem{Class: e.class, Key: e.key, Box: Rect{x, y, wd, LegendH},
			Swatch: Pt{x + 6, y + LegendH/2}, Label: Pt{x + 14, y + (LegendH-CharH)/2}, Hidden: e.class != "" && l.S.Hidden(e.class)})
		x += wd
	}
	return rows * LegendH
}

// Now is the virtual time to draw at: the scene's Now advanced by Rate for
// the wall milliseconds since the scene arrived, but never more than
// MaxExtrapolate wall ms (the engine posts a tick at least that often
// while playing, and a stalled engine must not let the picture run away).
func Now(s *scene.Scene, wallSince float64) float64 {
	if s.Rate <= 0 || wallSince <= 0 {
		return float64(s.Now)
	}
	return float64(s.Now) + s.Rate*math.Min(wallSince, MaxExtrapolate)
}

// MaxExtrapolate is how far (wall ms) the canvas runs the clock on its own.
const MaxExtrapolate = 1000
