//go:build js && wasm

package main

import (
	"image/color"
	"math"
	"strconv"
	"strings"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/kafkasim/kafkasim/wasm/layout"
	"github.com/kafkasim/kafkasim/wasm/scene"
)

// classStyle is how a message class is drawn: colour, request shape,
// response shape (hollow: responses are outlines of their request).
type classStyle struct {
	c         color.RGBA
	req, resp shapeKind
}

var styles = map[string]classStyle{
	scene.ClassProduce:   {cOrange, shCircle, shRing},
	scene.ClassAck:       {cOrange, shRing, shRing},
	scene.ClassFetch:     {cGreen, shSquare, shSquareO},
	scene.ClassConsume:   {cSky, shTriangle, shTriangleO},
	scene.ClassMetadata:  {cPurple, shDiamond, shDiamondO},
	scene.ClassZK:        {rgb(0xB8A200), shHex, shHexO},
	scene.ClassHeartbeat: {cBlue, shBar, shBarO},
	scene.ClassJoin:      {cBlue, shPlus, shPlus},
	scene.ClassOther:     {cFaint, shDot, shDot},
}

func styleOf(class string) classStyle {
	if st, ok := styles[class]; ok {
		return st
	}
	return styles[scene.ClassOther]
}

func (d *drawer) cluster(c *layout.Cluster) {
	s := d.s
	for _, b := range c.Brokers {
		d.broker(c, b, &s.Brokers[b.Index])
	}
	if c.Labels {
		for _, ln := range c.Lines {
			ink := cInk
			if ln.Deleting {
				ink = cFaint
			}
			d.g.text(d.dst, ln.Text, ln.Box.X, ln.Box.Y+(ln.Box.H-layout.CharH)/2, ink)
			if ln.Deleting {
				strike(d.g, d.dst, layout.Rect{X: ln.Box.X, Y: ln.Box.Y, W: layout.TextW(ln.Text), H: ln.Box.H})
			}
		}
	} else {
		for _, ln := range c.Lines {
			d.g.rect(d.dst, layout.Rect{X: ln.Box.X, Y: ln.Box.Y + ln.Box.H/2, W: ln.Box.W, H: 1}, cRule)
		}
	}
	for _, r := range c.ISR {
		d.g.rect(d.dst, r, alpha(cSky, 0.35))
	}
	for i := range c.Replicas {
		d.replica(c, &c.Replicas[i])
	}
	if c.More > 0 && len(c.Brokers) > 0 {
		b := c.Brokers[len(c.Brokers)-1].Box
		d.g.text(d.dst, "+"+strconv.Itoa(c.More)+" more partitions", c.Area.X+layout.Margin, b.Bottom()+2, cFaint)
	}
	for _, p := range c.Producers {
		d.producer(p, &s.Producers[p.Index])
	}
	if m := c.Meta; m != nil {
		d.g.rect(d.dst, m.Box, cPanel)
		d.g.frame(d.dst, m.Box, 1.5, cPurple)
		d.g.textC(d.dst, m.Name, m.Box, cInk)
	}
	d.zkClients(c)
	d.kafkaClients(c)
	for _, g := range c.Groups {
		d.group(g, &s.Groups[g.Index])
	}
	for _, k := range c.Consumers {
		d.consumer(k, &s.Consumers[k.Index])
	}
}

func (d *drawer) broker(c *layout.Cluster, b layout.BrokerBox, br *scene.Broker) {
	g, dst := d.g, d.dst
	fill, ink, border := cPanel, cInk, cInk
	switch br.State {
	case scene.StateCrashed:
		fill, ink, border = cGrey, rgb(0x555555), rgb(0x777777)
	case scene.StatePoweredOff:
		fill, ink, border = cDark, rgb(0xF2F2F2), rgb(0x222222)
	case scene.StatePaused:
		fill = cPaused
	}
	g.rect(dst, b.Box, fill)
	// Alternate row shading inside the box, so a partition's line is easy to follow.
	if br.State == scene.StateAlive && c.RowH >= 10 {
		for i, r := range c.Rows {
			if r.Band == b.Band && i%2 == 1 {
				g.rect(dst, layout.Rect{X: b.Box.X + 1, Y: r.Y, W: b.Box.W - 2, H: r.H}, rgb(0xF3F2EF))
			}
		}
	}
	if br.Cut {
		g.dashed(dst, b.Box, 2, cVermilion)
	} else {
		g.frame(dst, b.Box, 1.5, border)
	}
	g.rect(dst, layout.Rect{X: b.Header.X, Y: b.Header.Bottom() - 1, W: b.Header.W, H: 1}, alpha(border, 0.5))
	x := b.Header.X + 6
	ty := b.Header.Y + (b.Header.H-layout.CharH)/2
	if br.Controller {
		crown(g, dst, layout.Pt{X: x + 6, Y: b.Header.Y + b.Header.H/2}, cOrange, ink)
		x += 16
	}
	name := "broker " + strconv.Itoa(br.ID)
	if b.Header.W < 110 {
		name = "b" + strconv.Itoa(br.ID)
	}
	g.text(dst, name, x, ty, ink)
	x += layout.TextW(name) + 6
	right := b.Header.Right() - 6
	icon := layout.Pt{X: right - 6, Y: b.Header.Y + b.Header.H/2}
	word := ""
	switch br.State {
	case scene.StateCrashed:
		g.cross(dst, layout.Rect{X: icon.X - 5, Y: icon.Y - 5, W: 10, H: 10}, 2.5, cVermilion)
		word = "crashed"
	case scene.StatePoweredOff:
		bolt(g, dst, icon, cYellow)
		word = "off"
	case scene.StatePaused:
		g.rect(dst, layout.Rect{X: icon.X - 5, Y: icon.Y - 6, W: 3.5, H: 12}, cBlue)
		g.rect(dst, layout.Rect{X: icon.X + 1.5, Y: icon.Y - 6, W: 3.5, H: 12}, cBlue)
		word = "paused"
	}
	if br.Cut {
		word = "cut off"
		if br.State != scene.StateAlive {
			word = "cut"
		}
	}
	if word != "" {
		ww := layout.TextW(word)
		if x+ww < icon.X-8 {
			c := ink
			if br.Cut {
				c = cVermilion
			}
			g.text(dst, word, icon.X-8-ww, ty, c)
		}
	} else if br.Rack != "" && x+layout.TextW(br.Rack) < right {
		g.text(dst, br.Rack, right-layout.TextW(br.Rack), ty, cFaint)
	}
}

// crown is the controller's mark: three points on a band.
func crown(g *gfx, dst *ebiten.Image, p layout.Pt, c, edge color.Color) {
	g.rect(dst, layout.Rect{X: p.X - 6, Y: p.Y + 1, W: 12, H: 4}, c)
	for _, dx := range []float64{-5, 0, 5} {
		g.line(dst, layout.Pt{X: p.X + dx, Y: p.Y + 2}, layout.Pt{X: p.X + dx, Y: p.Y - 5}, 2.2, c)
	}
	g.rect(dst, layout.Rect{X: p.X - 6, Y: p.Y + 5, W: 12, H: 1}, edge)
}

// bolt is the powered-off mark: a zigzag.
func bolt(g *gfx, dst *ebiten.Image, p layout.Pt, c color.Color) {
	a := layout.Pt{X: p.X + 2, Y: p.Y - 7}
	b := layout.Pt{X: p.X - 3, Y: p.Y + 1}
	e := layout.Pt{X: p.X + 3, Y: p.Y - 1}
	f := layout.Pt{X: p.X - 2, Y: p.Y + 7}
	g.line(dst, a, b, 2.2, c)
	g.line(dst, b, e, 2.2, c)
	g.line(dst, e, f, 2.2, c)
}

func (d *drawer) replica(c *layout.Cluster, rb *layout.ReplicaBox) {
	g, dst, s := d.g, d.dst, d.s
	p := &s.Partitions[rb.Partition]
	r := &p.Replicas[rb.Replica]
	b := rb.Badge
	unclean := p.Unclean && r.Role == scene.RoleLeader && p.Leader == r.Broker
	switch r.Role {
	case scene.RoleLeader:
		fill := cInk
		if unclean {
			fill = cVermilion
		}
		g.rect(dst, b, fill)
		if c.Badges {
			g.textC(dst, "L e"+strconv.Itoa(int(r.Epoch)), b, cPanel)
		}
	case scene.RoleFollower:
		g.rect(dst, b, cPanel)
		g.frame(dst, b, 1.2, cInk)
		if c.Badges {
			g.textC(dst, "F e"+strconv.Itoa(int(r.Epoch)), b, cInk)
		}
	default:
		g.frame(dst, b, 1, cFaint)
		if c.Badges {
			g.textC(dst, "- e"+strconv.Itoa(int(r.Epoch)), b, cFaint)
		}
	}
	if unclean && c.Badges {
		g.text(dst, "!", b.Right()-1, b.Y+(b.H-layout.CharH)/2, cVermilion)
	}
	for _, cb := range rb.Cells {
		d.cell(c, r, r.Cells[cb.Cell], cb.Box)
	}
	d.markers(c, rb, r)
	if p.Deleting {
		d.deleting(c, rb)
	}
}

// deleting crosses out a replica of a partition marked for deletion, its
// badge and cells, and says so after them where the row has room.
func (d *drawer) deleting(c *layout.Cluster, rb *layout.ReplicaBox) {
	end := rb.Badge.Right()
	if n := len(rb.Cells); n > 0 {
		end = rb.Cells[n-1].Box.Right()
	}
	end = math.Max(end, rb.LEOX)
	strike(d.g, d.dst, layout.Rect{X: rb.Badge.X, Y: rb.Strip.Y, W: end - rb.Badge.X, H: rb.Strip.H})
	const word = "deleting"
	if x := end + 8; c.Badges && x+layout.TextW(word) <= rb.Row.Right()-2 {
		d.g.text(d.dst, word, x, rb.Strip.Y+(rb.Strip.H-layout.CharH)/2, cVermilion)
	}
}

// strike crosses out what r holds, a partition marked for deletion: a
// line through its middle (a shape, not only a colour).
func strike(g *gfx, dst *ebiten.Image, r layout.Rect) {
	g.rect(dst, layout.Rect{X: r.X - 1, Y: r.Y + r.H/2 - 1, W: r.W + 2, H: 2}, cVermilion)
}

// markers draws HW (a bar through the log at the boundary, a filled
// triangle under it) and LEO (a hollow triangle), with their names under
// them when the row is tall enough.
func (d *drawer) markers(c *layout.Cluster, rb *layout.ReplicaBox, r *scene.Replica) {
	g, dst := d.g, d.dst
	st := rb.Strip
	tri := 8.0
	if c.RowH < 16 {
		tri = 5
	}
	ty := st.Bottom() + tri/2
	if !c.Big {
		ty = math.Min(ty, rb.Row.Bottom()-tri/2+1)
	}
	g.shape(dst, shTriangleO, layout.Pt{X: rb.LEOX, Y: ty}, tri+2, cInk)
	g.rect(dst, layout.Rect{X: rb.HWX - 1, Y: st.Y - 1, W: 2, H: st.H + 2}, cInk)
	g.shape(dst, shTriangle, layout.Pt{X: rb.HWX, Y: ty}, tri, cInk)
	if !c.Big {
		return
	}
	y := ty + tri/2
	hw, leo := "HW "+itoa(r.HW), "LEO "+itoa(r.LEO)
	hx := rb.HWX - layout.TextW(hw)/2
	lx := rb.LEOX - layout.TextW(leo)/2
	if r.HW == r.LEO {
		hw = "HW=LEO " + itoa(r.HW)
		hx, leo = rb.HWX-layout.TextW(hw)/2, ""
	} else if lx < hx+layout.TextW(hw)+6 {
		lx = hx + layout.TextW(hw) + 6
	}
	// Keep both words inside the row, HW first.
	if leo != "" {
		lx = math.Min(lx, rb.Row.Right()-layout.TextW(leo)-2)
		hx = math.Min(hx, lx-layout.TextW(hw)-6)
	} else {
		hx = math.Min(hx, rb.Row.Right()-layout.TextW(hw)-2)
	}
	hx = math.Max(hx, rb.Row.X+2)
	g.text(dst, hw, hx, y, cInk)
	if leo != "" && lx >= hx+layout.TextW(hw)+4 {
		g.text(dst, leo, lx, y, cFaint)
	}
}

// cell draws one record: solid = committed, hatched = above HW, a ring =
// only in the page cache, crossed = lost, a numbered badge = delivered
// more than once, a left-pointing notch = delivered out of order.
func (d *drawer) cell(c *layout.Cluster, r *scene.Replica, cell scene.Cell, box layout.Rect) {
	g, dst := d.g, d.dst
	text := cInk
	switch {
	case cell.Lost():
		g.rect(dst, box, rgb(0xE4E4E4))
		g.frame(dst, box, 1, cVermilion)
		if box.W >= layout.TextW(cell.Value)+1 && box.H >= layout.CharH {
			g.textC(dst, cell.Value, box, rgb(0x777777))
		}
		g.cross(dst, box.Inset(1.5), 1.6, alpha(cVermilion, 0.8))
		return
	case r.Committed(cell):
		g.rect(dst, box, cBlue)
		text = cPanel
	default:
		g.rect(dst, box, cPanel)
		g.hatched(dst, box, alpha(cBlue, 0.55))
		g.frame(dst, box, 1, cBlue)
	}
	if box.W >= layout.TextW(cell.Value)+1 && box.H >= layout.CharH {
		g.textC(dst, cell.Value, box, text)
	}
	if !cell.Lost() && !r.OnDisk(cell) && box.W >= 5 {
		ring := cInk
		if r.Committed(cell) {
			ring = cPanel
		}
		sz := min(7, box.W-1)
		g.shape(dst, shRing, layout.Pt{X: box.Right() - sz/2 - 1, Y: box.Bottom() - sz/2 - 1}, sz, ring)
	}
	if cell.OutOfOrder() {
		g.shape(dst, shTriangle, layout.Pt{X: box.X + 3, Y: box.Y + 3}, 8, cOrange)
	}
	if cell.Dup >= 2 {
		dupBadge(g, dst, layout.Pt{X: box.Right() - 2, Y: box.Y + 1}, cell.Dup)
	}
}

// dupBadge is the numbered badge of a record delivered more than once.
func dupBadge(g *gfx, dst *ebiten.Image, p layout.Pt, n int) {
	g.shape(dst, shCircle, p, 13, cPurple)
	g.textC(dst, strconv.Itoa(min(n, 9)), layout.Rect{X: p.X - 6, Y: p.Y - 6, W: 13, H: 13}, cPanel)
}

func (d *drawer) producer(b layout.ClientBox, p *scene.Producer) {
	g, dst := d.g, d.dst
	g.rect(dst, b.Box, cPanel)
	if p.Cut {
		g.dashed(dst, b.Box, 2, cVermilion)
	} else {
		g.frame(dst, b.Box, 1.5, cOrange)
	}
	g.rect(dst, layout.Rect{X: b.Box.X, Y: b.Box.Y, W: 4, H: b.Box.H}, cOrange)
	line1 := p.Name
	if p.Acks != "" {
		line1 += " acks=" + p.Acks
	}
	g.text(dst, layout.Fit(line1, b.Box.W-10), b.Box.X+8, b.Box.Y+1, cInk)
	line2 := ""
	if p.Idempotent {
		line2 = "idem "
	}
	if p.Pending > 0 {
		line2 += strconv.Itoa(p.Pending) + " pend"
	} else if p.Rate > 0 {
		line2 += strconv.FormatFloat(p.Rate, 'f', 0, 64) + "/s"
	}
	g.text(dst, layout.Fit(line2, b.Box.W-10), b.Box.X+8, b.Box.Y+14, cFaint)
}

func (d *drawer) group(b layout.GroupBox, gr *scene.Group) {
	g, dst := d.g, d.dst
	g.rect(dst, b.Box, alpha(cSky, 0.10))
	g.frame(dst, b.Box, 1, alpha(cSky, 0.9))
	g.text(dst, layout.Fit(layout.GroupHeader(gr), b.Header.W-8), b.Header.X+4, b.Header.Y+2, cInk)
}

func (d *drawer) consumer(b layout.ClientBox, k *scene.Consumer) {
	g, dst := d.g, d.dst
	fill := cPanel
	if !k.Alive {
		fill = cGrey
	}
	g.rect(dst, b.Box, fill)
	if k.Cut {
		g.dashed(dst, b.Box, 2, cVermilion)
	} else {
		g.frame(dst, b.Box, 1.5, cSky)
	}
	t := k.Name
	if k.Lag > 0 {
		t += " lag " + strconv.FormatInt(k.Lag, 10)
	}
	if a := assignedText(k.Assigned); a != "" {
		if layout.TextW(t+" "+a) <= b.Box.W-8 {
			t += " " + a
		} else {
			t += " " + strconv.Itoa(len(k.Assigned)) + " parts"
		}
	}
	g.text(dst, layout.Fit(t, b.Box.W-8), b.Box.X+4, b.Box.Y+3, cInk)
	if !k.Alive {
		g.cross(dst, layout.Rect{X: b.Box.Right() - 14, Y: b.Box.Y + 4, W: 10, H: 10}, 2, cVermilion)
	}
	off := len(k.Recent) - len(b.Recent)
	for j, r := range b.Recent {
		got := k.Recent[off+j]
		g.rect(dst, r, cSky)
		if r.W >= layout.TextW(got.Value)+2 {
			g.textC(dst, got.Value, r, cInk)
		}
		if got.OutOfOrder {
			g.shape(dst, shTriangle, layout.Pt{X: r.X + 3, Y: r.Y + 3}, 8, cOrange)
		}
		if got.Dup >= 2 {
			dupBadge(g, dst, layout.Pt{X: r.Right() - 1, Y: r.Y}, got.Dup)
		}
	}
	if n := len(b.Recent); n > 0 && b.Recent[0].W < 14 {
		last := k.Recent[len(k.Recent)-1]
		x := b.Recent[n-1].Right() + 4
		if x+layout.TextW(last.Value) < b.Box.Right()-2 {
			g.text(dst, last.Value, x, b.Recent[n-1].Y, cInk)
		}
	}
}

func (d *drawer) sprites(ss []layout.Sprite, bs []layout.Badge) {
	g, dst := d.g, d.dst
	for _, sp := range ss {
		st := styleOf(sp.Class)
		k := st.req
		if sp.Response {
			k = st.resp
		}
		a := 1.0 - 0.7*sp.Fade
		g.shape(dst, k, sp.P, 13, alpha(st.c, a))
		if sp.Dropped {
			g.cross(dst, layout.Rect{X: sp.P.X - 6, Y: sp.P.Y - 6, W: 12, H: 12}, 2, alpha(cVermilion, a))
		}
	}
	for _, b := range bs {
		t := "x" + strconv.Itoa(b.N)
		w := layout.TextW(t) + 6
		r := layout.Rect{X: b.P.X - w/2, Y: b.P.Y - 8, W: w, H: 15}
		g.rect(dst, r, cPanel)
		g.frame(dst, r, 1, styleOf(b.Class).c)
		g.textC(dst, t, r, cInk)
	}
}

// assignedText writes partitions compactly: "orders-0,1 clicks-3".
func assignedText(parts []string) string {
	out, last := "", ""
	for _, p := range parts {
		i := strings.LastIndexByte(p, '-')
		if i < 0 {
			out += " " + p
			last = ""
			continue
		}
		topic, idx := p[:i], p[i+1:]
		if topic == last {
			out += "," + idx
		} else {
			out += " " + p
			last = topic
		}
	}
	return strings.TrimSpace(out)
}
