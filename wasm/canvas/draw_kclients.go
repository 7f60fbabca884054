//go:build js && wasm

package main

import "github.com/kafkasim/kafkasim/wasm/layout"

// kafkaClients draws the real Kafka clients' boxes: the producers'
// colour with a double left edge (a real client, not a simulated one),
// host on the first line, software (KIP-511) on the second.
func (d *drawer) kafkaClients(c *layout.Cluster) {
	g, dst := d.g, d.dst
	for _, b := range c.KafkaClients {
		g.rect(dst, b.Box, cPanel)
		g.frame(dst, b.Box, 1.5, cOrange)
		g.rect(dst, layout.Rect{X: b.Box.X, Y: b.Box.Y, W: 2, H: b.Box.H}, cOrange)
		g.rect(dst, layout.Rect{X: b.Box.X + 4, Y: b.Box.Y, W: 2, H: b.Box.H}, cOrange)
		g.text(dst, layout.Fit(b.Host, b.Box.W-12), b.Box.X+9, b.Box.Y+1, cInk)
		sw := b.Software
		if sw == "" {
			sw = "real client"
		}
		g.text(dst, layout.Fit(sw, b.Box.W-12), b.Box.X+9, b.Box.Y+14, cFaint)
	}
}
