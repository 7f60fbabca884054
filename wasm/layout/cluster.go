package layout

import (
	"math"
	"slices"
	"sort"
	"strconv"

	"github.com/kafkasim/kafkasim/wasm/scene"
)

// Cluster is the cluster view: producers and the metadata service on top,
// brokers in the middle (one column each, one row per partition, so a
// partition reads as one line across the cluster and the same offset sits
// at the same place in every broker), consumer groups at the bottom.
type Cluster struct {
	Area      Rect
	Brokers   []BrokerBox
	Rows      []Row  // one per partition shown, per band of brokers
	Lines     []Line // the gutter's labels: one per line of partitions, per band
	Replicas  []ReplicaBox
	ISR       []Rect // the ISR bands and their connectors between brokers
	Producers []ClientBox
	Groups    []GroupBox
	Consumers []ClientBox
	Meta      *ClientBox    // "zk" or "controller", when the scene has a metadata mode
	ZKClients []ZKClientBox // outside ZooKeeper clients, left of zk (zkcli.go)
	More      int           // partitions not shown for want of room
	RowH      float64
	CellW     float64
	Labels    bool // rows are tall enough for text
	Badges    bool // replica badges have room for "L e1"
	Big       bool // rows are tall enough for HW/LEO words under the cells
	Sub       int  // partitions side by side in a broker column (1 to 3)
	hosts     map[string]hostBox

	// KafkaClients are real Kafka clients, after the producers (kclients.go).
	KafkaClients []KafkaClientBox
}

// BrokerBox is one broker's column. Index is the broker's index in
// Scene.Brokers; Col its column in its band, Band the band (row of brokers).
type BrokerBox struct {
	ID, Index, Col, Band int
	Box, Header          Rect
}

// Row is a partition's place in one band of brokers: line Y..Y+H, the
// Sub-th of the partitions side by side on that line, and its part of
// the line's label in the gutter (for hit-testing).
type Row struct {
	Partition int // index in Scene.Partitions
	Band, Sub int
	Label     Rect
	Y, H      float64
	From      int64 // first offset drawn
}

// Line is one gutter label: the partitions of a line ("orders-0" or, side
// by side, "orders-0/1").
type Line struct {
	Box  Rect
	Text string
	// Deleting: every partition on the line is marked for deletion (the
	// label is drawn struck through)
	Deleting bool
}

// ReplicaBox is one replica's row inside its broker's column.
type ReplicaBox struct {
	Partition, Replica int // indexes in Scene.Partitions and its Replicas
	Broker             int
	Row, Badge         Rect
	Cells              []CellBox
	HWX, LEOX          float64 // x of the HW and LEO markers
	CellsX             float64 // x of offset From
	Strip              Rect    // where the cells run: the markers sit under it
}

// CellBox is one record cell: Cell indexes the replica's Cells.
type CellBox struct {
	Cell int
	Box  Rect
}

// ClientBox is a producer, a consumer or the metadata service.
type ClientBox struct {
	Name  string
	Index int // in Scene.Producers or Scene.Consumers; -1 for Meta
	Box   Rect
	// Recent are the consumer's last received records, newest last.
	Recent []Rect
}

// GroupBox is a consumer group's frame around its members.
type GroupBox struct {
	Name   string
	Index  int
	Box    Rect
	Header Rect
}

type hostBox struct {
	box  Rect
	kind int // hostBroker, hostTop, hostBottom
	col  int // broker column, for spreading arcs
	band int
	cols int
}

const (
	hostBroker = iota
	hostTop
	hostBottom
)

// Sizes in the cluster view.
const (
	clientH       = 28
	groupH        = 74
	groupCompactH = 46
	brokerHdr     = 20
	minColW       = 110
	minSubW       = 64
	maxRowH       = 56
	minRowH       = 6
	maxCellW      = 40
	minCellW      = 3
)

func buildCluster(s *scene.Scene, area Rect) *Cluster {
	in := area.Inset(Margin)
	topH, botH := 0.0, 0.0
	gapMin, gapMax := 24.0, 80.0
	compact := in.H < 300 // no room for consumers' recent records, narrower gaps
	if len(s.Producers) > 0 || s.Metadata != "" {
		topH = clientH
	}
	if len(s.Consumers) > 0 {
		botH = groupH
		if compact {
			botH = groupCompactH
		}
	}
	if compact {
		gapMin = 14
	}
	avail := in.H - topH - botH - 2*gapMin
	// First pass: how tall the brokers want to be; then centre the whole
	// picture, with the gaps (where messages travel) as wide as it allows.
	trial := &Cluster{hosts: map[string]hostBox{}}
	used := trial.layoutBrokers(s, Rect{in.X, 0, in.W, avail})
	gap := clamp(gapMin+(avail-used)/2, gapMin, gapMax)
	total := topH + gap + used + gap + botH
	y := in.Y + math.Max(0, (in.H-total)/2)
	c := &Cluster{Area: area, hosts: map[string]hostBox{}}
	if topH > 0 {
		c.layoutTop(s, Rect{in.X, y, in.W, topH})
	}
	c.layoutBrokers(s, Rect{in.X, y + topH + gap, in.W, used})
	c.layoutGroups(s, Rect{in.X, y + topH + gap + used + gap, in.W, botH})
	return c
}

// layoutTop places producers from the left and the metadata service at
// the right, outside ZooKeeper clients left of it (zkcli.go).
func (c *Cluster) layoutTop(s *scene.Scene, r Rect) {
	right := r.Right() - 70
	if s.Metadata != "" {
		name := "zk"
		if s.Metadata == "kraft" {
			name = "controller"
		}
		w := TextW(name) + 16
		b := &ClientBox{Name: name, Index: -1, Box: Rect{r.Right() - w, r.Y, w, r.H}}
		c.Meta = b
		c.hosts[name] = hostBox{box: b.Box, kind: hostTop}
		if left, ok := c.layoutZKClients(s, r, b.Box.X); ok {
			right = math.Min(right, left-14)
		}
	}
	x := r.X + 70
	for i, p := range s.Producers {
		w := math.Max(56, TextW(p.Name)+TextW(" acks=all")+12)
		if x+w > right {
			break
		}
		b := ClientBox{Name: p.Name, Index: i, Box: Rect{x, r.Y, w, r.H}}
		c.Producers = append(c.Producers, b)
		c.hosts[p.Name] = hostBox{box: b.Box, kind: hostTop}
		x += w + 14
	}
	c.layoutKafkaClients(s, r, x, right)
}

// layoutGroups places groups side by side, each framing its consumers;
// consumers without a group come last in a frame of their own.
func (c *Cluster) layoutGroups(s *scene.Scene, r Rect) {
	if r.H <= 0 {
		return
	}
	type frame struct {
		name    string
		index   int
		members []int
	}
	var frames []frame
	inGroup := map[string]int{}
	for gi, g := range s.Groups {
		f := frame{name: g.Name, index: gi}
		for ci, k := range s.Consumers {
			if k.Group == g.Name {
				f.members = append(f.members, ci)
				inGroup[k.Name] = gi
			}
		}
		frames = append(frames, f)
	}
	loose := frame{index: -1}
	for ci, k := range s.Consumers {
		if _, ok := inGroup[k.Name]; !ok {
			loose.members = append(loose.members, ci)
		}
	}
	if len(loose.members) > 0 {
		frames = append(frames, loose)
	}
	n := 0
	for _, f := range frames {
		n += max(1, len(f.members))
	}
	unit := math.Min(150, (r.W-float64(len(frames))*14)/float64(max(1, n)))
	x := r.X
	for _, f := range frames {
		w := unit*float64(max(1, len(f.members))) + 8
		g := GroupBox{Name: f.name, Index: f.index, Box: Rect{x, r.Y, w, r.H}, Header: Rect{x, r.Y, w, 16}}
		if f.index >= 0 {
			c.Groups = append(c.Groups, g)
		}
		cx := x + 4
		for _, ci := range f.members {
			k := s.Consumers[ci]
			b := ClientBox{Name: k.Name, Index: ci, Box: Rect{cx, r.Y + 18, unit - 6, r.H - 22}}
			// Recent records: wide enough for their values when short.
			vw := 0
			for _, g := range k.Recent {
				vw = max(vw, len(g.Value))
			}
			rw := clamp(float64(vw*CharW+4), 12, 32)
			if vw > 4 {
				rw = 12
			}
			nrec := min(len(k.Recent), int((b.Box.W-8)/(rw+2)))
			if b.Box.H < 38 {
				nrec = 0
			}
			for j := 0; j < nrec; j++ {
				b.Recent = append(b.Recent, Rect{b.Box.X + 4 + float64(j)*(rw+2), b.Box.Y + 20, rw, 15})
			}
			c.Consumers = append(c.Consumers, b)
			c.hosts[k.Name] = hostBox{box: b.Box, kind: hostBottom}
			cx += unit
		}
		x += w + 14
	}
}

// shown lists the partitions the cluster view draws: every one that is not
// internal, in scene order.
func shown(s *scene.Scene) []int {
	var ps []int
	for i, p := range s.Partitions {
		if !p.Internal {
			ps = append(ps, i)
		}
	}
	return ps
}

// layoutBrokers places the broker columns in r (in bands when they do
// not fit side by side) and the partitions' rows in them, and returns the
// height used.
func (c *Cluster) layoutBrokers(s *scene.Scene, r Rect) float64 {
	nb := len(s.Brokers)
	if nb == 0 || r.H <= 0 || r.W <= 0 {
		return 0
	}
	ps := shown(s)
	gutter := 0.0
	for _, pi := range ps {
		gutter = math.Max(gutter, TextW(s.Partitions[pi].Name))
	}
	gutter = math.Min(gutter+2*CharW, 12*CharW) + 8
	gap := 12.0
	perRow := nb
	colW := func(n int) float64 { return (r.W - gutter - gap*float64(n-1)) / float64(n) }
	for perRow > 1 && colW(perRow) < minColW {
		perRow--
	}
	bands := (nb + perRow - 1) / perRow
	bandH := (r.H - gap*float64(bands-1)) / float64(bands)
	cw := colW(perRow)
	inner := bandH - brokerHdr - 6
	// Partitions side by side when one per line would make lines too thin.
	sub, lines, rowH := 1, len(ps), float64(maxRowH)
	for k := 1; k <= 3; k++ {
		if k > 1 && (cw-6)/float64(k) < minSubW {
			break
		}
		sub, lines = k, (len(ps)+k-1)/k
		if lines > 0 {
			rowH = math.Floor(math.Min(maxRowH, inner/float64(lines)))
		}
		if rowH >= CharH+2 {
			break
		}
	}
	if fit := int(math.Floor(inner / minRowH)); lines > fit {
		lines = max(fit, 0)
		c.More = len(ps) - lines*sub
		ps = ps[:lines*sub]
		rowH = minRowH
	}
	subW := (cw - 6) / float64(sub)
	window := int64(1)
	for _, pi := range ps {
		window = max(window, windowOf(&s.Partitions[pi]))
	}
	badgeW := TextW("L e00") + 4
	c.Sub, c.RowH, c.Labels, c.Big = sub, rowH, rowH >= CharH+2, rowH >= 40
	c.Badges = c.Labels && (subW-badgeW-12)/float64(window) >= 6
	if !c.Badges {
		badgeW = 8
	}
	cellsW := subW - badgeW - 12
	c.CellW = math.Max(minCellW, math.Min(maxCellW, math.Floor(cellsW/float64(window))))
	fits := max(1, int64(cellsW/c.CellW))
	boxH := brokerHdr + float64(lines)*rowH + 6
	for i, b := range s.Brokers {
		band, col := i/perRow, i%perRow
		x := r.X + gutter + float64(col)*(cw+gap)
		y := r.Y + float64(band)*(boxH+gap)
		bb := BrokerBox{ID: b.ID, Index: i, Col: col, Band: band, Box: Rect{x, y, cw, boxH}, Header: Rect{x, y, cw, brokerHdr}}
		c.Brokers = append(c.Brokers, bb)
		c.hosts[strconv.Itoa(b.ID)] = hostBox{box: bb.Box, kind: hostBroker, col: col, band: band, cols: min(perRow, nb)}
	}
	for band := 0; band < bands; band++ {
		y0 := r.Y + float64(band)*(boxH+gap) + brokerHdr
		for line := 0; line*sub < len(ps); line++ {
			y := y0 + float64(line)*rowH
			lbl := Rect{r.X, y, gutter - 6, rowH}
			var names []*scene.Partition
			deleting := true
			for k := 0; k < sub && line*sub+k < len(ps); k++ {
				pi := ps[line*sub+k]
				p := &s.Partitions[pi]
				names = append(names, p)
				deleting = deleting && p.Deleting
				from := max(p.From, windowEnd(p)-fits)
				part := Rect{lbl.X + lbl.W*float64(k)/float64(sub), y, lbl.W / float64(sub), rowH}
				c.Rows = append(c.Rows, Row{Partition: pi, Band: band, Sub: k, From: from, Y: y, H: rowH, Label: part})
			}
			c.Lines = append(c.Lines, Line{Box: lbl, Text: Fit(lineText(names), lbl.W), Deleting: deleting && len(names) > 0})
		}
	}
	c.layoutReplicas(s, badgeW, subW)
	return float64(bands)*boxH + float64(bands-1)*gap
}

// lineText labels a line of partitions: "orders-0", or "orders-0/1" for
// partitions of one topic side by side, else their names.
func lineText(ps []*scene.Partition) string {
	if len(ps) == 0 {
		return ""
	}
	t := ps[0].Name
	for _, p := range ps[1:] {
		if p.Topic == ps[0].Topic {
			t += "/" + strconv.Itoa(p.Index)
		} else {
			t += " " + p.Name
		}
	}
	return t
}

// windowOf is how many cells partition p's window spans.
func windowOf(p *scene.Partition) int64 { return max(1, windowEnd(p)-p.From) }

// windowEnd is one past the highest offset any replica of p shows.
func windowEnd(p *scene.Partition) int64 {
	end := p.From
	for _, r := range p.Replicas {
		end = max(end, r.LEO)
		if n := len(r.Cells); n > 0 {
			end = max(end, r.Cells[n-1].Offset+1)
		}
	}
	return end
}

func (c *Cluster) layoutReplicas(s *scene.Scene, badgeW, subW float64) {
	col := map[int]BrokerBox{}
	for _, b := range c.Brokers {
		col[b.ID] = b
	}
	// Sized once: grown by append, the boxes and their cells were a tenth
	// of what the page allocated per frame on the reference scene.
	n := 0
	for _, row := range c.Rows {
		n += len(s.Partitions[row.Partition].Replicas)
	}
	c.Replicas = slices.Grow(c.Replicas, n)
	var isr []BrokerBox
	for _, row := range c.Rows {
		p := &s.Partitions[row.Partition]
		isr = isr[:0]
		for ri := range p.Replicas {
			r := &p.Replicas[ri]
			bb, ok := col[r.Broker]
			if !ok || bb.Band != row.Band {
				continue
			}
			rr := Rect{bb.Box.X + 3 + float64(row.Sub)*subW, row.Y + 1, subW, row.H - 2}
			rb := ReplicaBox{Partition: row.Partition, Replica: ri, Broker: r.Broker, Row: rr}
			ch := rr.H - 5
			if c.Big {
				ch = rr.H - 22
			}
			bh := math.Min(ch, CharH+3)
			if !c.Badges {
				bh = math.Min(ch, 7)
			}
			rb.Badge = Rect{rr.X + 2, rr.Y + 2 + (ch-bh)/2, badgeW - 2, bh}
			if !c.Badges {
				rb.Badge.W = math.Min(7, badgeW-2)
			}
			rb.CellsX = rb.Badge.Right() + 5
			rb.Strip = Rect{rb.CellsX, rr.Y + 2, rr.Right() - rb.CellsX, ch}
			gap := 1.0
			if c.CellW < 5 {
				gap = 0
			}
			if len(r.Cells) > 0 {
				rb.Cells = make([]CellBox, 0, len(r.Cells))
			}
			for ci, cell := range r.Cells {
				if cell.Offset < row.From {
					continue
				}
				x := rb.CellsX + float64(cell.Offset-row.From)*c.CellW
				if x+c.CellW > rr.Right()+0.5 {
					break
				}
				rb.Cells = append(rb.Cells, CellBox{Cell: ci, Box: Rect{x, rr.Y + 2, c.CellW - gap, ch}})
			}
			rb.HWX = rb.CellsX + float64(max(r.HW, row.From)-row.From)*c.CellW
			rb.LEOX = rb.CellsX + float64(max(r.LEO, row.From)-row.From)*c.CellW
			rb.HWX, rb.LEOX = math.Min(rb.HWX, rr.Right()), math.Min(rb.LEOX, rr.Right())
			c.Replicas = append(c.Replicas, rb)
			if r.InISR {
				c.ISR = append(c.ISR, rr)
				isr = append(isr, bb)
			}
		}
		// Connectors between ISR members in neighbouring columns.
		sort.Slice(isr, func(i, j int) bool { return isr[i].Col < isr[j].Col })
		for i := 1; i < len(isr) && c.Sub == 1; i++ {
			lo, hi := isr[i-1], isr[i]
			if hi.Col == lo.Col+1 {
				c.ISR = append(c.ISR, Rect{lo.Box.Right() - 3, row.Y + row.H/2 - 2, hi.Box.X - lo.Box.Right() + 6, 4})
			}
		}
	}
}
