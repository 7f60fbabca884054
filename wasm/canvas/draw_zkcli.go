//go:build js && wasm

package main

import (
	"github.com/kafkasim/kafkasim/wasm/layout"
	"github.com/kafkasim/kafkasim/wasm/scene"
)

// zkClients draws the outside ZooKeeper clients' boxes: ZooKeeper's
// colour, address and session, the last request under the box.
func (d *drawer) zkClients(c *layout.Cluster) {
	g, dst := d.g, d.dst
	zc := styleOf(scene.ClassZK).c
	for _, b := range c.ZKClients {
		g.rect(dst, b.Box, cPanel)
		g.frame(dst, b.Box, 1.5, zc)
		g.rect(dst, layout.Rect{X: b.Box.X, Y: b.Box.Y, W: 4, H: b.Box.H}, zc)
		g.text(dst, layout.Fit(b.Lines[0], b.Box.W-10), b.Box.X+8, b.Box.Y+1, cInk)
		g.text(dst, layout.Fit(b.Lines[1], b.Box.W-10), b.Box.X+8, b.Box.Y+14, cFaint)
		if b.Last != "" {
			g.text(dst, b.Last, b.LastAt.X, b.LastAt.Y, cFaint)
		}
	}
}

// msgLabels writes message labels on a light backing so they read over
// links and boxes.
func (d *drawer) msgLabels(ls []layout.MsgLabel) {
	for _, l := range ls {
		w := layout.TextW(l.Text)
		d.g.rect(d.dst, layout.Rect{X: l.P.X - 2, Y: l.P.Y - 1, W: w + 4, H: layout.CharH + 2}, alpha(cPanel, 0.85))
		d.g.text(d.dst, l.Text, l.P.X, l.P.Y, cInk)
	}
}
