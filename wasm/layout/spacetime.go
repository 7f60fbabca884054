package layout

import (
	"sort"
	"strconv"

	"github.com/kafkasim/kafkasim/wasm/scene"
)

// Space is the space-time view: one vertical lane per host (brokers, the
// metadata service when it talks, producers, consumers by group), time
// flowing down from Now-Span at the top to Now at the bottom, each message
// an arrow from its send to its delivery.
type Space struct {
	Area   Rect
	Plot   Rect // where lanes run; the ruler is left of it
	Lanes  []Lane
	Span   float64
	byHost map[string]int
}

// Lane is one host's line. Down are the stretches of virtual time its
// broker was not running (crashed, powered off) or paused, from the marks.
type Lane struct {
	Host   string
	Text   string // its label: "b1" for broker 1, "zkcli :51792" for an outside ZooKeeper client
	Label  Rect
	X      float64
	Broker bool
	Down   []Stretch
}

// Stretch is [From, To) of virtual time in a state (Kind: a mark kind that
// started it: crash, poweroff or pause).
type Stretch struct {
	From, To float64
	Kind     string
}

// Ruler is the width of the time ruler left of the lanes.
const Ruler = 54

func buildSpace(s *scene.Scene, area Rect) *Space {
	sp := &Space{Area: area, Span: float64(s.Span), byHost: map[string]int{}}
	if sp.Span <= 0 {
		sp.Span = scene.DefaultSpan
	}
	in := area.Inset(Margin)
	sp.Plot = Rect{in.X + Ruler, in.Y + 18, in.W - Ruler, in.H - 18}
	var hosts []string
	for _, b := range s.Brokers {
		hosts = append(hosts, strconv.Itoa(b.ID))
	}
	meta := map[string]bool{}
	for _, m := range s.Messages {
		for _, h := range []string{m.From, m.To} {
			if h == "zk" || h == "controller" {
				meta[h] = true
			}
		}
	}
	if meta["zk"] {
		hosts = append(hosts, "zk")
	}
	hosts = append(hosts, zkClientHosts(s)...)
	if meta["controller"] {
		hosts = append(hosts, "controller")
	}
	for _, p := range s.Producers {
		hosts = append(hosts, p.Name)
	}
	kc, _ := kafkaClientHosts(s)
	hosts = append(hosts, kc...)
	for _, g := range s.Groups {
		for _, k := range s.Consumers {
			if k.Group == g.Name {
				hosts = append(hosts, k.Name)
			}
		}
	}
	grouped := map[string]bool{}
	for _, g := range s.Groups {
		grouped[g.Name] = true
	}
	for _, k := range s.Consumers {
		if !grouped[k.Group] {
			hosts = append(hosts, k.Name)
		}
	}
	if len(hosts) == 0 {
		return sp
	}
	w := sp.Plot.W / float64(len(hosts))
	for i, h := range hosts {
		x := sp.Plot.X + w*(float64(i)+0.5)
		_, isBroker := scene.IsBrokerHost(h)
		text := h
		if isBroker {
			text = "b" + h
		}
		if scene.IsZKClientHost(h) {
			text = zkLaneText(h)
		}
		lw := min(TextW(text), w-2)
		sp.Lanes = append(sp.Lanes, Lane{Host: h, Text: text, X: x, Broker: isBroker, Label: Rect{x - lw/2, in.Y, lw, 16}})
		sp.byHost[h] = i
	}
	sp.downStretches(s)
	return sp
}

// downStretches reads each broker's crash/poweroff/pause and
// restart/resume marks, in time order, into stretches of its lane.
func (sp *Space) downStretches(s *scene.Scene) {
	open := map[int]*Stretch{}
	marks := append([]scene.Mark(nil), s.Marks...)
	sort.SliceStable(marks, func(i, j int) bool { return marks[i].At < marks[j].At })
	end := float64(s.Now) + sp.Span // past any now the view will show
	for _, m := range marks {
		i, ok := sp.byHost[strconv.Itoa(m.Broker)]
		if !ok || m.Broker == 0 {
			continue
		}
		switch m.Kind {
		case scene.MarkCrash, scene.MarkPowerOff, scene.MarkPause:
			if open[i] == nil {
				sp.Lanes[i].Down = append(sp.Lanes[i].Down, Stretch{From: float64(m.At), To: end, Kind: m.Kind})
				open[i] = &sp.Lanes[i].Down[len(sp.Lanes[i].Down)-1]
			}
		case scene.MarkRestart, scene.MarkResume:
			if st := open[i]; st != nil {
				st.To = float64(m.At)
				open[i] = nil
			}
		}
	}
	// A broker down now with no mark in the scene is down over the whole window.
	for _, b := range s.Brokers {
		i := sp.byHost[strconv.Itoa(b.ID)]
		if b.State != scene.StateAlive && open[i] == nil {
			kind := map[string]string{scene.StateCrashed: scene.MarkCrash, scene.StatePoweredOff: scene.MarkPowerOff, scene.StatePaused: scene.MarkPause}[b.State]
			sp.Lanes[i].Down = append(sp.Lanes[i].Down, Stretch{From: float64(s.Now) - 1e12, To: end, Kind: kind})
		}
	}
}

// Y is the y of virtual time t when the view's bottom is now.
func (sp *Space) Y(t, now float64) float64 {
	return sp.Plot.Y + (t-(now-sp.Span))/sp.Span*sp.Plot.H
}

// T is the virtual time at y when the view's bottom is now.
func (sp *Space) T(y, now float64) float64 {
	return now - sp.Span + (y-sp.Plot.Y)/sp.Plot.H*sp.Span
}

// LaneX returns the x of host's lane.
func (sp *Space) LaneX(host string) (float64, bool) {
	i, ok := sp.byHost[host]
	if !ok {
		return 0, false
	}
	return sp.Lanes[i].X, true
}

// Arrow is one message in the space-time view: from its sender's lane at
// SentAt to its receiver's lane at DeliverAt (or at now, Done false, while
// in flight). Times above the top of the window are clipped to it.
type Arrow struct {
	Msg      int
	A, B     Pt
	Class    string
	Response bool
	Done     bool
	Dropped  bool
}

// MaxArrows is how many arrows the space-time view draws at most; past
// that it samples by ID hash like the cluster view (a fixed fraction
// 1/2^k of the messages, the same ones from frame to frame).
const MaxArrows = 240

// Arrows returns the arrows of the messages visible at now.
func (l *Layout) Arrows(now float64) []Arrow {
	sp := l.Space
	if sp == nil {
		return nil
	}
	s := l.S
	top := now - sp.Span
	var idx []int
	for i := range s.Messages {
		m := &s.Messages[i]
		if float64(m.SentAt) > now || float64(m.DeliverAt) < top || s.Hidden(m.ClassOf()) {
			continue
		}
		idx = append(idx, i)
	}
	bits := 0
	for len(idx) > MaxArrows<<bits {
		bits++
	}
	mask := uint64(1)<<bits - 1
	var out []Arrow
	for _, i := range idx {
		m := &s.Messages[i]
		if Hash(m.ID)&mask != 0 {
			continue
		}
		xa, ok1 := sp.LaneX(m.From)
		xb, ok2 := sp.LaneX(m.To)
		if !ok1 || !ok2 {
			continue
		}
		t0, t1 := float64(m.SentAt), float64(m.DeliverAt)
		done := t1 <= now
		if !done {
			t1 = now
		}
		// Clip the part above the window, keeping the arrow's slope.
		if t0 < top && t1 > t0 {
			f := (top - t0) / (t1 - t0)
			xa = xa + (xb-xa)*f
			t0 = top
		}
		out = append(out, Arrow{Msg: i, A: Pt{xa, sp.Y(t0, now)}, B: Pt{xb, sp.Y(t1, now)}, Class: m.ClassOf(),
			Response: IsResponse(m.Kind), Done: done, Dropped: m.Dropped})
	}
	return out
}

// LaneMark is a mark placed on the space-time view: on its lane (All for
// a split or heal, which spans every lane) at its time, with its label
// at Label (moved off other labels).
type LaneMark struct {
	Mark  int
	P     Pt
	All   bool
	Label Pt
}

// LaneMarks returns the marks inside the window at now.
func (l *Layout) LaneMarks(now float64) []LaneMark {
	sp := l.Space
	if sp == nil {
		return nil
	}
	var out []LaneMark
	for i, m := range l.S.Marks {
		t := float64(m.At)
		if t < now-sp.Span || t > now {
			continue
		}
		y := sp.Y(t, now)
		host := m.Host
		if host == "" && m.Broker > 0 {
			host = strconv.Itoa(m.Broker)
		}
		if m.Kind == scene.MarkRebalance && host == "" {
			host = firstMember(l.S, m.Group)
		}
		x, ok := sp.LaneX(host)
		switch {
		case ok:
			out = append(out, LaneMark{Mark: i, P: Pt{x, y}})
		case host == "":
			out = append(out, LaneMark{Mark: i, P: Pt{sp.Plot.X, y}, All: true})
		}
	}
	var taken []Rect
	for i := range out {
		lm := &out[i]
		w := TextW(MarkText(&l.S.Marks[lm.Mark]))
		p := Pt{lm.P.X + 11, lm.P.Y - CharH/2}
		switch {
		case lm.All:
			p = Pt{sp.Plot.X + 2, lm.P.Y - CharH - 1}
		case p.X+w > sp.Plot.Right():
			p.X = lm.P.X - 11 - w
		}
		lm.Label = Unclutter(&taken, p, w, 1)
	}
	return out
}

func firstMember(s *scene.Scene, group string) string {
	for _, g := range s.Groups {
		if g.Name == group && len(g.Members) > 0 {
			return g.Members[0]
		}
	}
	return ""
}
