//go:build js && wasm

package main

import (
	"image/color"
	"math"
	"strconv"

	"github.com/kafkasim/kafkasim/wasm/layout"
	"github.com/kafkasim/kafkasim/wasm/scene"
)

// space draws the space-time view at virtual time now: ruler, lanes (with
// the stretches a broker was down or paused), arrows, marks.
func (d *drawer) space(sp *layout.Space, now float64) {
	g, dst := d.g, d.dst
	g.rect(dst, sp.Area.Inset(2), cPanel)
	g.frame(dst, sp.Area.Inset(2), 1, cRule)
	plot := sp.Plot
	// Ruler: a tick every step ms, labelled in seconds.
	step := tickStep(sp.Span, math.Max(2, plot.H/26))
	for t := math.Ceil((now-sp.Span)/step) * step; t <= now; t += step {
		y := sp.Y(t, now)
		g.rect(dst, layout.Rect{X: plot.X, Y: y, W: plot.W, H: 1}, rgb(0xEEEDE9))
		g.text(dst, fmtSec(t, step), sp.Area.X+layout.Margin, y-layout.CharH/2, cFaint)
	}
	for _, ln := range sp.Lanes {
		w := 1.0
		c := cRule
		if ln.Broker {
			w, c = 2, rgb(0xB5B2AA)
		}
		g.rect(dst, layout.Rect{X: ln.X - w/2, Y: plot.Y, W: w, H: plot.H}, c)
		for _, st := range ln.Down {
			y0 := math.Max(plot.Y, sp.Y(st.From, now))
			y1 := math.Min(plot.Bottom(), sp.Y(st.To, now))
			if y1 <= y0 {
				continue
			}
			switch st.Kind {
			case scene.MarkPause:
				for y := y0; y < y1; y += 6 {
					g.rect(dst, layout.Rect{X: ln.X - 4, Y: y, W: 8, H: math.Min(3, y1-y)}, cBlue)
				}
			case scene.MarkPowerOff:
				g.rect(dst, layout.Rect{X: ln.X - 4, Y: y0, W: 8, H: y1 - y0}, cDark)
			default:
				g.rect(dst, layout.Rect{X: ln.X - 4, Y: y0, W: 8, H: y1 - y0}, cGrey)
			}
		}
		label := ln.Text
		lw := math.Max(80, ln.Label.W)
		g.textC(dst, label, layout.Rect{X: ln.X - lw/2, Y: ln.Label.Y, W: lw, H: ln.Label.H}, cInk)
	}
	lw, op := 1.5, 1.0
	if len(d.arrows) > 80 {
		lw, op = 1, 0.7
	}
	for _, a := range d.arrows {
		st := styleOf(a.Class)
		c := alpha(st.c, op)
		if a.Response {
			g.dashLine(dst, a.A, a.B, lw, c)
		} else {
			g.line(dst, a.A, a.B, lw, c)
		}
		switch {
		case a.Dropped && a.Done:
			g.cross(dst, layout.Rect{X: a.B.X - 4, Y: a.B.Y - 4, W: 8, H: 8}, 1.8, cVermilion)
		case a.Done:
			arrowHead(d, a.A, a.B, c)
		default:
			g.shape(dst, st.req, a.B, 7, c)
		}
	}
	d.msgLabels(d.l.ArrowLabels(d.arrows))
	for _, lm := range d.laneMarks {
		m := &d.s.Marks[lm.Mark]
		t := layout.MarkText(m)
		if lm.All {
			g.dashLine(dst, layout.Pt{X: plot.X, Y: lm.P.Y}, layout.Pt{X: plot.Right(), Y: lm.P.Y}, 1.5, cVermilion)
			g.text(dst, layout.Fit(t, plot.W-4), lm.Label.X, lm.Label.Y, cVermilion)
			continue
		}
		c := markColour(m)
		g.rect(dst, layout.Rect{X: lm.P.X - 9, Y: lm.P.Y - 1.5, W: 18, H: 3}, c)
		tw := layout.TextW(t)
		g.rect(dst, layout.Rect{X: lm.Label.X - 2, Y: lm.Label.Y - 1, W: tw + 4, H: layout.CharH + 2}, alpha(cPanel, 0.85))
		g.text(dst, t, lm.Label.X, lm.Label.Y, c)
	}
	// Now: the bottom edge, where the cluster view's moment is.
	g.rect(dst, layout.Rect{X: plot.X, Y: plot.Bottom() - 1, W: plot.W, H: 2}, cInk)
	g.text(dst, "now", plot.Right()-layout.TextW("now")-2, plot.Bottom()-layout.CharH-2, cInk)
}

func arrowHead(d *drawer, a, b layout.Pt, c color.Color) {
	ang := math.Atan2(b.Y-a.Y, b.X-a.X)
	for _, da := range []float64{2.6, -2.6} {
		p := layout.Pt{X: b.X + 6*math.Cos(ang+da), Y: b.Y + 6*math.Sin(ang+da)}
		d.g.line(d.dst, b, p, 1.6, c)
	}
}

// tickStep is a round ruler step (1, 2 or 5 times a power of ten ms)
// giving at most n ticks over span ms.
func tickStep(span, n float64) float64 {
	for e := 1.0; e < 1e12; e *= 10 {
		for _, m := range []float64{1, 2, 5} {
			if span/(m*e) <= n {
				return m * e
			}
		}
	}
	return 1e12
}

// fmtSec writes virtual time t (ms) in seconds with the precision step needs.
func fmtSec(t, step float64) string {
	prec := 0
	switch {
	case step < 10:
		prec = 3
	case step < 100:
		prec = 2
	case step < 1000:
		prec = 1
	}
	return strconv.FormatFloat(t/1000, 'f', prec, 64) + "s"
}
