package layout

import (
	"math"
	"strconv"

	"github.com/kafkasim/kafkasim/wasm/scene"
)

// MarkLife is how long, in virtual ms, the cluster view animates a mark
// when the timeline plays at rate (virtual ms per wall ms): about 1.5 s of
// wall time, within [20, 3000] virtual ms; scene.MarkLife when paused, so
// a paused picture is the same whatever speed the learner last chose.
func MarkLife(rate float64) float64 {
	if rate <= 0 {
		return scene.MarkLife
	}
	return clamp(rate*1500, 20, 3000)
}

// Progress is how far (0..1) mark m's animation is at now; ok false
// before it starts and after it ends.
func Progress(m *scene.Mark, now, rate float64) (float64, bool) {
	d := now - float64(m.At)
	life := MarkLife(rate)
	if d < 0 || d > life {
		return 0, false
	}
	return d / life, true
}

// Flash is a mark being animated on the cluster view: the element it is
// about (Box), how far along it is, and for marks that move something
// (records flying out of a truncated log, a partition moving between
// consumers) the pieces in motion.
type Flash struct {
	Mark  int
	Box   Rect
	T     float64
	Fly   []Flying
	Label Pt     // where its short text goes; negative: no text
	Text  string // the text, when cut to fit (else MarkText)
}

// Flying is one piece in motion: a record cell (Cell, from the mark's
// Cells) or a partition chip (Cell -1).
type Flying struct {
	Cell int
	Box  Rect
}

// Flashes returns the marks animating at now on the cluster view.
func (l *Layout) Flashes(now, rate float64) []Flash {
	c := l.Cluster
	if c == nil {
		return nil
	}
	s := l.S
	var out []Flash
	for i := range s.Marks {
		m := &s.Marks[i]
		t, ok := Progress(m, now, rate)
		if !ok {
			continue
		}
		f := Flash{Mark: i, T: t}
		switch m.Kind {
		case scene.MarkElection, scene.MarkISRShrink, scene.MarkISRExpand, scene.MarkTruncate, scene.MarkLost:
			r, ok := l.findCluster(scene.Ref{Kind: scene.KindReplica, Partition: m.Partition, Broker: m.Broker}, now)
			if !ok {
				continue
			}
			f.Box = r
			f.Label = Pt{r.X, r.Y - CharH - 3}
			if rb := c.replicaOf(s, m.Partition, m.Broker); rb != nil {
				f.Box = rb.Row
				// Beside the log when there is room, else above the row.
				if w := TextW(MarkText(m)); rb.Row.Right()-rb.LEOX-10 > w {
					f.Label = Pt{rb.Row.Right() - w - 4, rb.Strip.Y + (rb.Strip.H-CharH)/2}
				} else if bb, ok := c.brokerBox(m.Broker); ok {
					f.Label = Pt{bb.Box.X, bb.Box.Y - CharH - 3}
				}
			}
			if m.Kind == scene.MarkTruncate || m.Kind == scene.MarkLost {
				_, f.Fly = c.flyOut(s, m, t)
			}
		case scene.MarkRebalance:
			b, ok := l.findCluster(scene.Ref{Kind: scene.KindGroup, Name: m.Group}, now)
			if !ok {
				continue
			}
			f.Box = b
			// Right of the group's own header line, cut to the room left
			// there: a long rebalance text must not run over the header or
			// out of the box into the next group (the event log has it whole).
			room := b.W - 8
			for gi := range s.Groups {
				if s.Groups[gi].Name == m.Group {
					room -= TextW(GroupHeader(&s.Groups[gi])) + 12
				}
			}
			f.Text = Fit(MarkText(m), room)
			if f.Text == "" {
				f.Label = Pt{-1, -1}
				break
			}
			f.Label = Pt{b.Right() - TextW(f.Text) - 4, b.Y + 2}
		case scene.MarkMove:
			a, okA := l.findCluster(scene.Ref{Kind: scene.KindConsumer, Name: m.From}, now)
			b, okB := l.findCluster(scene.Ref{Kind: scene.KindConsumer, Name: m.To}, now)
			switch {
			case okA && okB:
			case okB:
				a = Rect{b.X, b.Y - 40, b.W, b.H}
			case okA:
				b = Rect{a.X, a.Y - 40, a.W, a.H}
			default:
				continue
			}
			p := Lerp(a.Center(), b.Center(), easeInOut(t))
			w := TextW(m.Partition) + 6
			f.Box = b
			f.Fly = []Flying{{Cell: -1, Box: Rect{p.X - w/2, p.Y - 8, w, 16}}}
			f.Label = Pt{-1, -1} // the chip says it
		case scene.MarkDup, scene.MarkReorder:
			b, ok := l.findCluster(scene.Ref{Kind: scene.KindConsumer, Name: m.Host}, now)
			if !ok {
				continue
			}
			f.Box = b
			f.Label = Pt{b.X, b.Y - CharH - 3}
			for _, g := range c.Groups {
				if g.Box.Contains(b.Center()) {
					f.Label.Y = g.Box.Y - CharH - 3
				}
			}
		case scene.MarkSplit, scene.MarkHeal:
			f.Box = c.Area
			f.Label = Pt{c.Area.X + Margin, c.Area.Y + 2}
		default: // broker faults and the controller
			b, ok := l.findCluster(scene.Ref{Kind: scene.KindBroker, Broker: m.Broker}, now)
			if !ok {
				continue
			}
			f.Box = b
			f.Label = Pt{b.X, b.Y - CharH - 3}
		}
		out = append(out, f)
	}
	var taken []Rect
	for i := range out {
		f := &out[i]
		if f.Label.X < 0 {
			continue
		}
		dir := 1.0 // labels above their element give way upwards
		if f.Label.Y < f.Box.Y {
			dir = -1
		}
		f.Label = Unclutter(&taken, f.Label, TextW(MarkText(&s.Marks[f.Mark])), dir)
	}
	return out
}

// Unclutter moves a label at p, w pixels wide, a line at a time (down
// for dir > 0, up for dir < 0; at most four lines) until it overlaps none
// of the labels already placed in taken, and records where it went.
func Unclutter(taken *[]Rect, p Pt, w, dir float64) Pt {
	r := Rect{p.X, p.Y, w, CharH}
	for try := 0; try < 4; try++ {
		clear := true
		for _, t := range *taken {
			if r.X < t.Right() && t.X < r.Right() && r.Y < t.Bottom() && t.Y < r.Bottom() {
				clear = false
				break
			}
		}
		if clear {
			break
		}
		r.Y += math.Copysign(CharH+2, dir)
	}
	*taken = append(*taken, r)
	return Pt{r.X, r.Y}
}

// flyOut places the records of a truncate or lost mark: they start on
// their cells of the replica's row (where their offsets were) and rise
// out of the broker, turning as they go; the canvas draws them crossed.
func (c *Cluster) flyOut(s *scene.Scene, m *scene.Mark, t float64) (Rect, []Flying) {
	var row Row
	rb := c.replicaOf(s, m.Partition, m.Broker)
	if rb == nil {
		return Rect{}, nil
	}
	for _, r := range c.Rows {
		if r.Partition == rb.Partition {
			row = r
			break
		}
	}
	var fly []Flying
	e := easeOut(t)
	for i, cell := range m.Cells {
		x := rb.CellsX + float64(cell.Offset-row.From)*c.CellW
		x = math.Min(x, rb.Row.Right()-c.CellW)
		y := rb.Strip.Y
		fly = append(fly, Flying{Cell: i, Box: Rect{x + e*float64(12+6*i), y - e*(46+8*float64(i)), c.CellW - 1, rb.Strip.H}})
	}
	return rb.Row, fly
}

func (c *Cluster) brokerBox(id int) (BrokerBox, bool) {
	for _, b := range c.Brokers {
		if b.ID == id {
			return b, true
		}
	}
	return BrokerBox{}, false
}

// replicaOf returns the row of partition part's replica on broker, nil
// when it is not drawn.
func (c *Cluster) replicaOf(s *scene.Scene, part string, broker int) *ReplicaBox {
	for i := range c.Replicas {
		r := &c.Replicas[i]
		if r.Broker == broker && s.Partitions[r.Partition].Name == part {
			return r
		}
	}
	return nil
}

func easeOut(t float64) float64   { return 1 - (1-t)*(1-t) }
func easeInOut(t float64) float64 { return t * t * (3 - 2*t) }

// GroupHeader is a group box's header line: its name, generation and,
// while it rebalances, its state.
func GroupHeader(gr *scene.Group) string {
	t := gr.Name + " gen " + itoa(int64(gr.Generation))
	if gr.State != "" && gr.State != "Stable" {
		t += " " + gr.State
	}
	return t
}

// MarkText is the short ASCII label of a mark, as the canvas writes it.
func MarkText(m *scene.Mark) string {
	if m.Text != "" && m.Kind != scene.MarkSplit {
		return m.Text
	}
	switch m.Kind {
	case scene.MarkElection:
		if m.Unclean {
			return "UNCLEAN e" + itoa(int64(m.Epoch))
		}
		return "leader e" + itoa(int64(m.Epoch))
	case scene.MarkISRShrink:
		return "out of ISR"
	case scene.MarkISRExpand:
		return "back in ISR"
	case scene.MarkTruncate:
		return "truncated to " + itoa(m.Offset)
	case scene.MarkLost:
		return "page cache lost"
	case scene.MarkDup:
		return "dup " + cellValue(m)
	case scene.MarkReorder:
		return "out of order " + cellValue(m)
	case scene.MarkRebalance:
		return "rebalance gen " + itoa(int64(m.Generation))
	case scene.MarkMove:
		return m.Partition + " " + m.From + ">" + m.To
	case scene.MarkSplit:
		if m.Text != "" {
			return "split " + m.Text
		}
		return "split"
	case scene.MarkControl:
		return "controller"
	}
	return m.Kind
}

func cellValue(m *scene.Mark) string {
	if len(m.Cells) > 0 {
		return m.Cells[0].Value
	}
	return ""
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
