package layout

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/wasm/scene"
	"github.com/kafkasim/kafkasim/wasm/scene/sample"
)

// fixtures reads the scene fixtures both the engine and the canvas test against.
func fixtures(t *testing.T) map[string]*scene.Scene {
	t.Helper()
	paths, err := filepath.Glob("../scene/testdata/*.json")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	out := map[string]*scene.Scene{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s, err := scene.Decode(b)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out[filepath.Base(p)] = s
	}
	out["storm"] = sample.Reference(60000, 40)
	return out
}

var viewports = [][2]float64{{320, 240}, {640, 420}, {960, 600}, {1600, 1000}}
var views = []scene.View{scene.ViewCluster, scene.ViewSpaceTime, scene.ViewBoth}

func withView(s *scene.Scene, v scene.View) *scene.Scene {
	c := *s
	c.View = v
	return &c
}

func inside(in, r Rect) bool {
	const eps = 0.5
	return r.X >= in.X-eps && r.Y >= in.Y-eps && r.Right() <= in.Right()+eps && r.Bottom() <= in.Bottom()+eps
}

func overlap(a, b Rect) bool {
	return a.X < b.Right()-0.5 && b.X < a.Right()-0.5 && a.Y < b.Bottom()-0.5 && b.Y < a.Bottom()-0.5
}

// TestBuildGeometry checks, for every fixture, viewport and view, that
// everything is inside the viewport, brokers do not overlap, replica rows
// are inside their broker and do not overlap, and cells are inside their row.
func TestBuildGeometry(t *testing.T) {
	for name, s0 := range fixtures(t) {
		for _, vp := range viewports {
			for _, v := range views {
				s := withView(s0, v)
				l := Build(s, vp[0], vp[1])
				where := fmt.Sprintf("%s %vx%v %s", name, vp[0], vp[1], v)
				screen := Rect{0, 0, vp[0], vp[1]}
				for _, it := range l.Legend {
					if !inside(screen, it.Box) {
						t.Errorf("%s: legend %s%s outside", where, it.Class, it.Key)
					}
				}
				if c := l.Cluster; c != nil {
					checkCluster(t, where, s, c)
				}
				if sp := l.Space; sp != nil {
					if !inside(screen, sp.Area) || !inside(sp.Area, sp.Plot) {
						t.Errorf("%s: space-time plot outside its area", where)
					}
					for _, ln := range sp.Lanes {
						if ln.X < sp.Plot.X || ln.X > sp.Plot.Right() {
							t.Errorf("%s: lane %s at x %v outside the plot", where, ln.Host, ln.X)
						}
					}
				}
			}
		}
	}
}

func checkCluster(t *testing.T, where string, s *scene.Scene, c *Cluster) {
	t.Helper()
	for i, a := range c.Brokers {
		if !inside(c.Area, a.Box) && c.Area.H > 200 {
			t.Errorf("%s: broker %d box %+v outside the area %+v", where, a.ID, a.Box, c.Area)
		}
		for _, b := range c.Brokers[i+1:] {
			if overlap(a.Box, b.Box) {
				t.Errorf("%s: brokers %d and %d overlap", where, a.ID, b.ID)
			}
		}
	}
	box := map[int]Rect{}
	for _, b := range c.Brokers {
		box[b.ID] = b.Box
	}
	for i, r := range c.Replicas {
		if !inside(box[r.Broker], r.Row) {
			t.Errorf("%s: replica row %+v outside broker %d %+v", where, r.Row, r.Broker, box[r.Broker])
		}
		if !inside(r.Row, r.Badge) {
			t.Errorf("%s: badge outside its row", where)
		}
		for _, o := range c.Replicas[i+1:] {
			if o.Broker == r.Broker && overlap(o.Row, r.Row) {
				t.Errorf("%s: rows of %s and %s on broker %d overlap", where, s.Partitions[r.Partition].Name, s.Partitions[o.Partition].Name, r.Broker)
			}
		}
		for _, cb := range r.Cells {
			if !inside(r.Row, cb.Box) || cb.Box.X < r.Badge.Right() {
				t.Errorf("%s: cell %+v outside row %+v", where, cb.Box, r.Row)
			}
		}
		if r.HWX < r.CellsX-0.5 || r.LEOX < r.CellsX-0.5 || r.HWX > r.Row.Right()+0.5 {
			t.Errorf("%s: HW/LEO markers at %v/%v outside the row", where, r.HWX, r.LEOX)
		}
	}
	for _, k := range append(append([]ClientBox(nil), c.Producers...), c.Consumers...) {
		if !inside(c.Area, k.Box) && c.Area.H > 200 {
			t.Errorf("%s: client %s outside the area", where, k.Name)
		}
	}
}

// TestBuildDeterministic: the same scene and viewport give the same layout,
// which is what lets a test compute where the canvas drew something.
func TestBuildDeterministic(t *testing.T) {
	for name, s := range fixtures(t) {
		a, b := Build(s, 960, 600), Build(s, 960, 600)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two builds differ", name)
		}
	}
}

// TestFindHitRoundTrip: the centre of every element Find returns hits
// that same element, in both samples that have one of each.
func TestFindHitRoundTrip(t *testing.T) {
	for _, s := range []*scene.Scene{sample.LeaderDeath(), sample.Faults(), withView(sample.Faults(), scene.ViewCluster)} {
		l := Build(s, 960, 600)
		now := float64(s.Now)
		var refs []scene.Ref
		for _, b := range s.Brokers {
			refs = append(refs, scene.Ref{Kind: scene.KindBroker, Broker: b.ID})
		}
		for _, p := range s.Partitions {
			refs = append(refs, scene.Ref{Kind: scene.KindPartition, Partition: p.Name})
			for _, r := range p.Replicas {
				refs = append(refs, scene.Ref{Kind: scene.KindReplica, Partition: p.Name, Broker: r.Broker})
				for _, c := range r.Cells {
					refs = append(refs, scene.Ref{Kind: scene.KindRecord, Partition: p.Name, Broker: r.Broker, Offset: c.Offset})
				}
			}
		}
		for _, p := range s.Producers {
			refs = append(refs, scene.Ref{Kind: scene.KindProducer, Name: p.Name})
		}
		for _, k := range s.Consumers {
			refs = append(refs, scene.Ref{Kind: scene.KindConsumer, Name: k.Name})
		}
		for _, g := range s.Groups {
			refs = append(refs, scene.Ref{Kind: scene.KindGroup, Name: g.Name})
		}
		for _, c := range scene.Classes {
			refs = append(refs, scene.Ref{Kind: scene.KindClass, Name: c})
		}
		for _, r := range refs {
			box, ok := l.Find(r, now)
			if !ok {
				t.Errorf("%s view %s: Find(%+v) found nothing", s.Version, s.View, r)
				continue
			}
			// Messages in flight may sit over static elements: step off them.
			p := box.Center()
			h, ok := l.Hit(p, now)
			if ok && h.Ref.Kind == scene.KindMessage {
				p = Pt{box.X + 1, box.Y + 1}
				h, ok = l.Hit(p, now)
			}
			if !ok || h.Ref != r {
				t.Errorf("%s view %s: Find(%+v) = %+v, but its centre hits %+v (%v)", s.Version, s.View, r, box, h.Ref, ok)
			}
		}
	}
}

func oneLink(n int, sent, deliver int64) *scene.Scene {
	s := &scene.Scene{V: scene.Version, Now: sent, Brokers: []scene.Broker{{ID: 1, State: scene.StateAlive}, {ID: 2, State: scene.StateAlive}},
		Partitions: []scene.Partition{{Name: "t-0", Topic: "t", Leader: 1, Assignment: []int{1, 2}, ISR: []int{1, 2},
			Replicas: []scene.Replica{{Broker: 1, Role: scene.RoleLeader}, {Broker: 2, Role: scene.RoleFollower}}}}}
	for i := 0; i < n; i++ {
		s.Messages = append(s.Messages, scene.Message{ID: uint64(i + 1), From: "2", To: "1", Kind: "Fetch", SentAt: sent, DeliverAt: deliver})
	}
	return s
}

// TestSpriteInterpolation: a message is on its path in proportion to the
// virtual time elapsed, not before it is sent, gone once delivered.
func TestSpriteInterpolation(t *testing.T) {
	s := oneLink(1, 100, 110)
	l := Build(s, 960, 600)
	path, ok := l.Cluster.PathOf("2", "1")
	if !ok {
		t.Fatal("no path between brokers 2 and 1")
	}
	for _, c := range []struct {
		now  float64
		want int
		at   float64
	}{{99.9, 0, 0}, {100, 1, 0}, {102.5, 1, 0.25}, {105, 1, 0.5}, {109.9, 1, 0.99}, {110, 0, 0}} {
		ss, _ := l.Sprites(c.now)
		if len(ss) != c.want {
			t.Fatalf("now %v: %d sprites, want %d", c.now, len(ss), c.want)
		}
		if c.want == 1 {
			p := path.At(c.at)
			if math.Hypot(ss[0].P.X-p.X, ss[0].P.Y-p.Y) > 0.01 {
				t.Errorf("now %v: sprite at %+v, want %+v", c.now, ss[0].P, p)
			}
		}
	}
	s.Messages[0].Dropped = true
	l = Build(s, 960, 600)
	if ss, _ := l.Sprites(110 + DropLinger/2); len(ss) != 1 || !ss[0].Dropped {
		t.Errorf("a dropped message is not shown dying after its delivery time: %+v", ss)
	}
	if ss, _ := l.Sprites(110 + DropLinger); len(ss) != 0 {
		t.Errorf("a dropped message lingers past DropLinger")
	}
	s.Hide = []string{scene.ClassFetch}
	if ss, _ := Build(s, 960, 600).Sprites(105); len(ss) != 0 {
		t.Errorf("a hidden class is drawn")
	}
}

// TestAggregation checks the sampling rule: all messages up to PerLink,
// then at most 2*PerLink sprites and a badge with the exact count; the
// same messages stay drawn while the count stays in one power-of-two
// band; the whole view stays under MaxSprites.
func TestAggregation(t *testing.T) {
	for _, n := range []int{1, PerLink, PerLink + 1, 50, 1000, scene.MaxMessages} {
		l := Build(oneLink(n, 100, 200), 960, 600)
		ss, bs := l.Sprites(150)
		switch {
		case n <= PerLink:
			if len(ss) != n || len(bs) != 0 {
				t.Errorf("n=%d: %d sprites %d badges, want all and no badge", n, len(ss), len(bs))
			}
		default:
			if len(ss) == 0 || len(ss) > 2*PerLink || len(bs) != 1 || bs[0].N != n {
				t.Errorf("n=%d: %d sprites, badges %+v", n, len(ss), bs)
			}
		}
	}
	// Stability: n steady at 40, the set drawn does not change as time passes.
	s := oneLink(40, 100, 200)
	l := Build(s, 960, 600)
	a, _ := l.Sprites(120)
	b, _ := l.Sprites(180)
	if len(a) != len(b) {
		t.Fatalf("sprites changed from %d to %d with the same messages in flight", len(a), len(b))
	}
	for i := range a {
		if a[i].Msg != b[i].Msg {
			t.Errorf("sprite %d was message %d, then %d", i, a[i].Msg, b[i].Msg)
		}
	}
	// The storm: many links, thousands of messages, a bounded picture.
	storm := Build(withView(sample.Reference(60000, 40), scene.ViewCluster), 960, 600)
	ss, bs := storm.Sprites(60000)
	if len(ss) > MaxSprites || len(bs) == 0 {
		t.Errorf("storm: %d sprites (max %d), %d badges", len(ss), MaxSprites, len(bs))
	}
	total := 0
	for _, b := range bs {
		total += b.N
	}
	if total == 0 {
		t.Errorf("storm: badges count nothing")
	}
	if got := SampleBits(PerLink, 0); got != 0 {
		t.Errorf("SampleBits(PerLink) = %d", got)
	}
	if got := SampleBits(PerLink*4, 0); got != 2 {
		t.Errorf("SampleBits(4*PerLink) = %d, want 2", got)
	}
	if got := SampleBits(1, 3); got != 3 {
		t.Errorf("SampleBits with a global minimum = %d, want 3", got)
	}
}

// TestSpaceTime checks the diagram's geometry: lane order, the time axis
// (now at the bottom, now-span at the top), arrows from send to delivery,
// in-flight arrows ending at now, and lanes down between crash and restart.
func TestSpaceTime(t *testing.T) {
	s := withView(sample.LeaderDeath(), scene.ViewSpaceTime)
	l := Build(s, 960, 600)
	sp := l.Space
	var hosts []string
	for _, ln := range sp.Lanes {
		hosts = append(hosts, ln.Host)
	}
	if want := []string{"1", "2", "3", "zk", "p1", "c1"}; !reflect.DeepEqual(hosts, want) {
		t.Errorf("lanes %v, want %v", hosts, want)
	}
	now := float64(s.Now)
	if y := sp.Y(now, now); math.Abs(y-sp.Plot.Bottom()) > 1e-9 {
		t.Errorf("now at y %v, want the bottom %v", y, sp.Plot.Bottom())
	}
	if y := sp.Y(now-sp.Span, now); math.Abs(y-sp.Plot.Y) > 1e-9 {
		t.Errorf("now-span at y %v, want the top %v", y, sp.Plot.Y)
	}
	if tt := sp.T(sp.Y(now-17, now), now); math.Abs(tt-(now-17)) > 1e-9 {
		t.Errorf("T(Y(t)) = %v, want %v", tt, now-17)
	}
	arrows := l.Arrows(now)
	byID := map[uint64]Arrow{}
	for _, a := range arrows {
		byID[s.Messages[a.Msg].ID] = a
	}
	// 909: ProduceResponse 2 -> p1, sent 31160, delivered 31162.
	a, ok := byID[909]
	x2, _ := sp.LaneX("2")
	xp, _ := sp.LaneX("p1")
	if !ok || !a.Done || a.A.X != x2 || a.B.X != xp || math.Abs(a.A.Y-sp.Y(31160, now)) > 1e-9 || math.Abs(a.B.Y-sp.Y(31162, now)) > 1e-9 || !a.Response {
		t.Errorf("arrow of message 909: %+v (found %v)", a, ok)
	}
	// 904: Fetch 1 -> 2, sent 31200 (= now), in flight: ends at now.
	if a, ok := byID[904]; !ok || a.Done || math.Abs(a.B.Y-sp.Plot.Bottom()) > 1e-9 {
		t.Errorf("in-flight arrow of 904: %+v (found %v)", a, ok)
	}
	// Broker 1 crashed at 1100 and restarted at 31100: down over that stretch.
	if d := sp.Lanes[0].Down; len(d) != 1 || d[0].From != 1100 || d[0].To != 31100 || d[0].Kind != scene.MarkCrash {
		t.Errorf("broker 1's lane stretches %+v", d)
	}
	// Hits on the space-time view carry the time under the pointer.
	h, ok := l.Hit(Pt{xp, sp.Y(now-95, now)}, now)
	if !ok || h.Ref.Kind != scene.KindLane || h.Ref.Name != "p1" || h.At != int64(now-95) || h.View != scene.ViewSpaceTime {
		t.Errorf("hit on lane p1: %+v %v", h, ok)
	}
	// Sampling keeps the arrows bounded.
	storm := Build(withView(sample.Reference(60000, 40), scene.ViewSpaceTime), 960, 600)
	if n := len(storm.Arrows(60000)); n == 0 || n > MaxArrows*2 {
		t.Errorf("storm: %d arrows", n)
	}
}

func TestNow(t *testing.T) {
	s := &scene.Scene{Now: 1000, Rate: 0.5}
	for _, c := range []struct{ wall, want float64 }{{0, 1000}, {100, 1050}, {MaxExtrapolate, 1500}, {5 * MaxExtrapolate, 1500}} {
		if got := Now(s, c.wall); got != c.want {
			t.Errorf("Now after %v wall ms = %v, want %v", c.wall, got, c.want)
		}
	}
	s.Rate = 0
	if got := Now(s, 500); got != 1000 {
		t.Errorf("paused: Now = %v", got)
	}
}

// TestFlashes: a truncation's records start on their cells and rise; mark
// labels do not overlap; marks end after their life.
func TestFlashes(t *testing.T) {
	s := sample.LeaderDeath()
	var trunc *scene.Mark
	for i := range s.Marks {
		if s.Marks[i].Kind == scene.MarkTruncate {
			trunc = &s.Marks[i]
		}
	}
	s.Rate = 0.01 // life = 20 virtual ms
	l := Build(s, 960, 600)
	at := float64(trunc.At)
	fl := flashOf(l.Flashes(at, s.Rate), s, scene.MarkTruncate)
	if fl == nil || len(fl.Fly) != 1 {
		t.Fatalf("no flying record at the truncation: %+v", fl)
	}
	rb := l.Cluster.replicaOf(s, "orders-0", 1)
	start := fl.Fly[0].Box
	var row Row
	for _, r := range l.Cluster.Rows {
		if r.Partition == rb.Partition {
			row = r
		}
	}
	if want := rb.CellsX + float64(2-row.From)*l.Cluster.CellW; math.Abs(start.X-want) > 0.01 {
		t.Errorf("flying record starts at x %v, want its cell's %v", start.X, want)
	}
	later := flashOf(l.Flashes(at+MarkLife(s.Rate)*0.9, s.Rate), s, scene.MarkTruncate)
	if later == nil || later.Fly[0].Box.Y >= start.Y {
		t.Errorf("flying record does not rise: %+v then %+v", start, later)
	}
	if f := flashOf(l.Flashes(at+MarkLife(s.Rate)+1, s.Rate), s, scene.MarkTruncate); f != nil {
		t.Errorf("truncation still animating after its life")
	}
	// Labels of simultaneous marks do not overlap.
	f := sample.Faults()
	f.Rate = 0
	lf := Build(f, 960, 600)
	var rects []Rect
	for _, x := range lf.Flashes(4990, 0) {
		if x.Label.X < 0 {
			continue
		}
		r := Rect{x.Label.X, x.Label.Y, TextW(flashText(x, f)), CharH}
		for _, o := range rects {
			if overlap(o, r) {
				t.Errorf("mark labels overlap: %+v and %+v", o, r)
			}
		}
		rects = append(rects, r)
	}
	if len(rects) < 3 {
		t.Errorf("faults at 4990: only %d labelled marks", len(rects))
	}
	if got := MarkText(&scene.Mark{Kind: scene.MarkElection, Epoch: 3, Unclean: true}); got != "UNCLEAN e3" {
		t.Errorf("unclean election text %q", got)
	}
}

// flashText is the text the canvas writes for a flash.
func flashText(f Flash, s *scene.Scene) string {
	if f.Text != "" {
		return f.Text
	}
	return MarkText(&s.Marks[f.Mark])
}

// TestRebalanceLabelFits: a group's rebalance text (the coordinator's
// event, often long) is cut to the room right of the group's header line,
// so it neither covers the header nor runs out of the box into the next
// group.
func TestRebalanceLabelFits(t *testing.T) {
	f := sample.Faults()
	f.Rate = 0
	for i := range f.Marks {
		if f.Marks[i].Kind == scene.MarkRebalance {
			f.Marks[i].Text = "is CompletingRebalance (generation 5): 2 member(s) joined, leader c1, protocol range"
		}
	}
	l := Build(f, 960, 600)
	fl := flashOf(l.Flashes(4990, 0), f, scene.MarkRebalance)
	if fl == nil || fl.Label.X < 0 {
		t.Fatalf("no rebalance label: %+v", fl)
	}
	var box GroupBox
	for _, g := range l.Cluster.Groups {
		if g.Name == "g" {
			box = g
		}
	}
	header := TextW(GroupHeader(&f.Groups[0]))
	text := flashText(*fl, f)
	if !strings.HasSuffix(text, "~") || fl.Label.X < box.Box.X+header || fl.Label.X+TextW(text) > box.Box.Right() {
		t.Fatalf("label %q at x %v..%v: want it cut, right of the header (ends at %v) and inside the box (%v..%v)",
			text, fl.Label.X, fl.Label.X+TextW(text), box.Box.X+header, box.Box.X, box.Box.Right())
	}
}

func flashOf(fs []Flash, s *scene.Scene, kind string) *Flash {
	for i := range fs {
		if s.Marks[fs[i].Mark].Kind == kind {
			return &fs[i]
		}
	}
	return nil
}

func TestFit(t *testing.T) {
	for _, c := range []struct {
		s    string
		w    float64
		want string
	}{{"orders-0", 100, "orders-0"}, {"orders-0", 5 * CharW, "orde~"}, {"ab", CharW, "a"}, {"ab", 3, ""}} {
		if got := Fit(c.s, c.w); got != c.want {
			t.Errorf("Fit(%q, %v) = %q, want %q", c.s, c.w, got, c.want)
		}
	}
}

// TestFindMarkers: the HW and LEO refs a lesson lights are found around
// their replica's markers (Broker 0: the leader's), inside the replica.
func TestFindMarkers(t *testing.T) {
	s := sample.LeaderDeath()
	l := Build(s, 960, 600)
	for _, r := range []scene.Ref{
		{Kind: scene.KindHW, Partition: "orders-0"},
		{Kind: scene.KindHW, Partition: "orders-0", Broker: 3},
		{Kind: scene.KindLEO, Partition: "orders-0", Broker: 2},
	} {
		box, ok := l.Find(r, float64(s.Now))
		if !ok {
			t.Fatalf("Find(%+v) found nothing", r)
		}
		broker := r.Broker
		if broker == 0 {
			broker = leaderOf(s, r.Partition)
		}
		var rb *ReplicaBox
		for i := range l.Cluster.Replicas {
			if b := &l.Cluster.Replicas[i]; b.Broker == broker && s.Partitions[b.Partition].Name == r.Partition {
				rb = b
			}
		}
		x := rb.HWX
		if r.Kind == scene.KindLEO {
			x = rb.LEOX
		}
		if c := box.Center(); c.X != x || box.Y > rb.Strip.Y || box.Bottom() < rb.Strip.Bottom() {
			t.Errorf("%+v: box %+v, marker at x=%v over strip %+v", r, box, x, rb.Strip)
		}
	}
	if _, ok := l.Find(scene.Ref{Kind: scene.KindHW, Partition: "nope-0"}, 0); ok {
		t.Error("a marker of an unknown partition was found")
	}
}

// TestDeletingLine: a line of partitions all marked for deletion is
// flagged for the strike-through, and no other line is.
func TestDeletingLine(t *testing.T) {
	l := Build(withView(sample.Faults(), scene.ViewCluster), 960, 600)
	var deleting, other []string
	for _, ln := range l.Cluster.Lines {
		if ln.Deleting {
			deleting = append(deleting, ln.Text)
		} else {
			other = append(other, ln.Text)
		}
	}
	if len(deleting) != 1 || deleting[0] != "old-0" || len(other) == 0 {
		t.Errorf("lines struck through %q, others %q; want only old-0 struck", deleting, other)
	}
}
