package app

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/wasm/scene"
	"github.com/kafkasim/kafkasim/wasm/session"
)

// SceneOptions are the page's choices for the canvas: the view, the
// message classes hidden, what is selected and lit, the space-time span.
type SceneOptions struct {
	View       scene.View  `json:"view"`
	Hide       []string    `json:"hide"`
	Selection  *scene.Ref  `json:"selection"`
	Highlights []scene.Ref `json:"highlights"`
	Span       int64       `json:"span"`
	// Cells is how many offsets of each log the canvas shows (0: 12).
	Cells int `json:"cells"`
}

// Scene limits the engine applies on top of scene's.
const (
	defaultCells = 12
	markWindow   = 3000 // virtual ms of past marks sent
	recentGot    = 8    // records per consumer's Recent
	// findingsEvery: while playing, the checker's counts and cell flags
	// on the canvas are recomputed at most this often (virtual ms): the
	// checker reads the whole history. Paused, they are always current.
	findingsEvery = 2000
)

// SceneJSON builds the scene for the canvas and returns it wrapped in
// its envelope, as posted. opts is SceneOptions as JSON ("" for
// defaults).
func (e *Engine) SceneJSON(opts string) (json.RawMessage, error) {
	var o SceneOptions
	if opts != "" {
		if err := json.Unmarshal([]byte(opts), &o); err != nil {
			return nil, fmt.Errorf("scene: bad options: %v", err)
		}
	}
	s, err := e.Scene(o)
	if err != nil {
		return nil, err
	}
	b, err := scene.Encode(s)
	return json.RawMessage(b), err
}

// SetSceneOptions sets what the canvas draws (the page calls it through
// the engine's "view" when the learner changes the view, hides a message
// class, selects or a lesson lights something); CurrentScene uses them.
func (e *Engine) SetSceneOptions(o SceneOptions) {
	e.sceneOpts = o
	e.optsVer++
}

// SetSceneOptionsJSON is SetSceneOptions with the options as JSON ("" for
// the defaults); bad JSON is an error and keeps the options.
func (e *Engine) SetSceneOptionsJSON(opts string) error {
	var o SceneOptions
	if opts != "" {
		if len(opts) > scene.MaxBytes {
			return fmt.Errorf("view: options of %d bytes", len(opts))
		}
		if err := json.Unmarshal([]byte(opts), &o); err != nil {
			return fmt.Errorf("view: bad options: %v", err)
		}
	}
	e.SetSceneOptions(o)
	return nil
}

// SceneVersion changes whenever the scene CurrentScene builds would: the
// engine changed or the options did. The canvas rebuilds only then.
func (e *Engine) SceneVersion() uint64 { return e.version + e.optsVer }

// CurrentScene builds the scene of now with the options last set.
func (e *Engine) CurrentScene() (*scene.Scene, error) { return e.Scene(e.sceneOpts) }

// Scene builds the canvas's picture of now.
func (e *Engine) Scene(o SceneOptions) (*scene.Scene, error) {
	d := e.sess.Driver()
	if d == nil {
		return nil, fmt.Errorf("no scenario loaded")
	}
	c := d.Cluster()
	snap := c.Snapshot()
	now := snap.At
	s := &scene.Scene{V: scene.Version, Now: now, Metadata: snap.Metadata, Version: snap.Version, Controller: snap.Controller,
		Brokers: []scene.Broker{}, Partitions: []scene.Partition{}, View: o.View, Selection: o.Selection, Span: o.Span}
	if e.playing {
		s.Rate = e.speed
	}
	if len(o.Hide) <= len(scene.Classes) {
		s.Hide = o.Hide
	}
	if len(o.Highlights) <= scene.MaxRefs {
		s.Highlights = o.Highlights
	}
	if s.Span <= 0 {
		s.Span = scene.DefaultSpan
	}
	cellsN := o.Cells
	if cellsN <= 0 || cellsN > scene.MaxCells {
		cellsN = defaultCells
	}
	tc := e.traceCache()
	sides := tc.split
	side := func(host string) (int, bool) {
		n, ok := sides[host]
		return n, ok
	}
	ctlSide := 0
	if n, ok := side("zk"); ok && snap.Metadata == "zk" {
		ctlSide = n
	} else if n, ok := side("controller"); ok {
		ctlSide = n
	}
	cut := func(host string) (int, bool) {
		n, ok := side(host)
		return n, ok && ctlSide != 0 && n != ctlSide
	}
	for _, b := range snap.Brokers {
		st := b.State
		if st == "up" {
			st = scene.StateAlive
		}
		sd, ct := cut(strconv.Itoa(b.ID))
		s.Brokers = append(s.Brokers, scene.Broker{ID: b.ID, Rack: b.Rack, State: st, Controller: b.ID == snap.Controller, Side: sd, Cut: ct})
	}
	h := c.History()
	// Records sent and acked per producer: counted into a slice by the
	// producer's index (the history is long, producers are few; a map
	// write per record was most of a scene's cost).
	sent, acked := e.traceCache().producerCounts(h.Sent, snap.Producers)
	for i, p := range snap.Producers {
		if len(s.Producers) == scene.MaxClients {
			break
		}
		sd, ct := cut(p.Name)
		s.Producers = append(s.Producers, scene.Producer{Name: p.Name, Acks: p.Acks, Idempotent: p.Idempotent, Pending: p.Pending,
			InFlight: p.InFlight, Sent: sent[i], Acked: acked[i], Side: sd, Cut: ct})
		s.Counters.Produced += sent[i]
		s.Counters.Acked += acked[i]
	}
	hw := map[string]int64{}
	e.partitions(c, snap, s, cellsN, hw)
	e.consumers(c, snap, s, hw, cut)
	consumerNames := map[string]bool{}
	for _, k := range s.Consumers {
		consumerNames[k.Name] = true
	}
	for _, g := range snap.Groups {
		if len(s.Groups) == scene.MaxClients {
			break
		}
		sg := scene.Group{Name: g.Name, State: g.State, Generation: g.Generation, Coordinator: g.Coordinator, Protocol: g.Protocol, Leader: g.Leader}
		for _, m := range g.Members {
			if consumerNames[m.Client] {
				sg.Members = append(sg.Members, m.Client)
			}
		}
		s.Groups = append(s.Groups, sg)
	}
	from := now - max(s.Span, msgLookback)
	outside := d.Events().OutsideSince(from)
	wire := session.MergeByAt(d.Events().WireSince(from), outside)
	clusterOnly := s.View == "" || s.View == scene.ViewCluster
	if len(outside) == 0 {
		s.Messages, s.Counters.Omitted = e.messagesCached(d.Events(), now, s.Span, clusterOnly)
	} else {
		s.Messages, s.Counters.Omitted = messages(wire, now, s.Span, clusterOnly)
	}
	s.ZKClients = zkClients(c, e.outsideZKClients(), wire, s.Messages)
	s.Marks = e.marksCached(d.Events(), now)
	f := e.findingsCached()
	s.Counters.Lost, s.Counters.Dups, s.Counters.Reordered = f.lost, f.dups, f.reordered
	for _, k := range snap.Consumers {
		s.Counters.Consumed += int64(k.Polled)
	}
	// Real clients (kcat, franz-go, ...) count too: what their Produce
	// requests carried and had acknowledged, what Fetch returned to them.
	out := c.OutsideRecords()
	s.Counters.Produced += out.Produced
	s.Counters.Acked += out.Acked
	s.Counters.Consumed += out.Fetched
	return s, s.Validate()
}

// splitStep is the network split in force after ev, given the one in
// force before (host -> side, 1-based; nil when none): the latest split
// or heal event decides.
func splitStep(cur map[string]int, ev *core.Event) map[string]int {
	if ev.Type != core.EvNet {
		return cur
	}
	if ev.Detail == "heal" {
		return nil
	}
	rest, ok := strings.CutPrefix(ev.Detail, "split ")
	if !ok {
		return cur
	}
	out := map[string]int{}
	for n, grp := range strings.Split(rest, "|") {
		for _, h := range strings.Split(strings.TrimSpace(grp), ",") {
			if h = strings.TrimSpace(h); h != "" {
				out[h] = n + 1
			}
		}
	}
	return out
}

func (e *Engine) partitions(c *core.Cluster, snap *core.Snapshot, s *scene.Scene, cellsN int, hw map[string]int64) {
	lostAt := e.traceCache().lost
	dups, reord := e.deliveryFlags(c)
	total := 0
	for _, t := range snap.Topics {
		for _, p := range t.Partitions {
			for _, r := range p.Replicas {
				if r.Broker == p.Leader {
					hw[p.Name] = r.HW
				}
			}
			if t.Internal || len(s.Partitions) == scene.MaxPartitions {
				continue
			}
			_, idx, _ := core.SplitPartitionName(p.Name)
			sp := scene.Partition{Name: p.Name, Topic: t.Name, Index: idx, Leader: p.Leader, Epoch: p.LeaderEpoch, Deleting: t.Deleting,
				ISR: append([]int{}, p.ISR...), Assignment: append([]int{}, p.Assignment...), Replicas: []scene.Replica{}}
			var top int64
			for _, r := range p.Replicas {
				top = max(top, r.LEO)
			}
			for _, r := range p.Replicas {
				for _, lc := range lostAt[replicaKey{p.Name, r.Broker}] {
					if lc.Offset >= r.LEO {
						top = max(top, lc.Offset+1)
					}
				}
			}
			sp.From = max(0, top-int64(cellsN))
			for _, r := range p.Replicas {
				sr := scene.Replica{Broker: r.Broker, Role: r.Role, LEO: r.LEO, HW: r.HW, LogStart: r.LogStart, Flushed: r.Flushed, InISR: contains(p.ISR, r.Broker)}
				if rep, err := c.Replica(p.Name + "@" + strconv.Itoa(r.Broker)); err == nil {
					_, sr.Epoch = rep.LeaderView()
				}
				if total+cellsN <= scene.MaxTotalCells {
					recs, _ := c.ReplicaRecords(p.Name, r.Broker, sp.From, sp.From+int64(cellsN))
					for _, rec := range recs {
						cell := scene.Cell{Offset: rec.Offset, Value: clip(rec.ValueText()), Epoch: rec.Epoch, Dup: dups[p.Name+"\x00"+rec.Value]}
						if reord[p.Name+"\x00"+rec.Value] {
							cell.Flags |= scene.FlagOutOfOrder
						}
						sr.Cells = append(sr.Cells, cell)
					}
					for _, lc := range lostAt[replicaKey{p.Name, r.Broker}] {
						if lc.Offset >= r.LEO && lc.Offset >= sp.From && len(sr.Cells) < cellsN {
							sr.Cells = append(sr.Cells, lc)
						}
					}
					total += len(sr.Cells)
				}
				sp.Replicas = append(sp.Replicas, sr)
			}
			s.Partitions = append(s.Partitions, sp)
		}
	}
}

func contains(v []int, x int) bool {
	for _, y := range v {
		if y == x {
			return true
		}
	}
	return false
}

// clip shortens a value to the scene's name limit.
func clip(v string) string {
	if len(v) <= 24 {
		return v
	}
	return v[:21] + "..."
}

type replicaKey struct {
	partition string
	broker    int
}

// lostCells are, per replica, the records its latest truncation or power
// loss removed, as crossed cells (ascending offsets).
func lostCells(trace []core.Event) map[replicaKey][]scene.Cell {
	out := map[replicaKey][]scene.Cell{}
	for i := range trace {
		lostStep(out, &trace[i])
	}
	return out
}

// lostStep updates lostCells' answer with one more event.
func lostStep(out map[replicaKey][]scene.Cell, ev *core.Event) {
	k := replicaKey{ev.Partition, ev.Broker}
	switch ev.Type {
	case core.EvTruncate, core.EvLost:
		var cells []scene.Cell
		first := ev.Offset // for a truncation, the new LEO: the dropped records start here
		for j := range ev.Records {
			if j == scene.MaxCells {
				break
			}
			cells = append(cells, scene.Cell{Offset: first + int64(j), Value: clip(ev.Records[j].ValueText()), Flags: scene.FlagLost})
		}
		out[k] = cells
	case core.EvAppend:
		// records appended again at those offsets replace the crossed cells
		if cs := out[k]; len(cs) > 0 {
			n := 0
			for _, c := range cs {
				if c.Offset > ev.EndOffset {
					cs[n] = c
					n++
				}
			}
			out[k] = cs[:n]
		}
	}
}

func (e *Engine) deliveryFlags(c *core.Cluster) (map[string]int, map[string]bool) {
	f := e.findingsCached()
	return f.dupCount, f.outOfOrder
}

func (e *Engine) consumers(c *core.Cluster, snap *core.Snapshot, s *scene.Scene, hw map[string]int64, cut func(string) (int, bool)) {
	f := e.findingsCached()
	// The last recentGot deliveries of each consumer, from the end of the
	// history. Dup is how many times the consumer had had the record
	// then: its count so far (the cache's) less its later deliveries,
	// all of which are among its recent ones.
	got := e.traceCache().consumedCounts(c)
	recent := map[string][]scene.Got{}
	later := map[string]int{}
	want := len(snap.Consumers)
	hist := c.History().Consumed
	for i := len(hist) - 1; i >= 0 && want > 0; i-- {
		dl := &hist[i]
		r := recent[dl.Consumer]
		if len(r) >= recentGot {
			continue
		}
		g := scene.Got{Partition: dl.Partition, Offset: dl.Offset, Value: clip(dl.Value), OutOfOrder: f.outOfOrder[dl.Partition+"\x00"+dl.Value]}
		k := dl.Consumer + "\x00" + dl.Partition + "\x00" + dl.Value
		if n := got[k] - later[k]; n > 1 {
			g.Dup = n
		}
		later[k]++
		recent[dl.Consumer] = append(r, g)
		if len(r)+1 == recentGot {
			want--
		}
	}
	for _, r := range recent { // oldest first
		for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
			r[i], r[j] = r[j], r[i]
		}
	}
	for _, k := range snap.Consumers {
		if len(s.Consumers) == scene.MaxClients {
			break
		}
		sd, ct := cut(k.Name)
		sc := scene.Consumer{Name: k.Name, Group: k.Group, Alive: k.Alive, Assigned: k.Assigned, Positions: k.Positions,
			Polled: int64(k.Polled), Recent: recent[k.Name], Side: sd, Cut: ct}
		for p, pos := range k.Positions {
			sc.Lag += max(0, hw[p]-pos)
		}
		s.Consumers = append(s.Consumers, sc)
	}
}

// inFlightMargin is how long (virtual ms) after its delivery the cluster
// view's scene keeps an unlabelled message: at least layout.DropLinger,
// the longest the cluster view draws a message past its DeliverAt.
const inFlightMargin = 10

// messages are the wire messages in flight at now or delivered within
// span, newest kept when there are more than scene.MaxMessages. For the
// cluster view alone (cluster), which draws a message only while it is in
// flight, the unlabelled ones delivered more than inFlightMargin before
// now are left out: at 500 records/s they were nine in ten of the
// scene's messages (2,700 of them in a 2 s span), each copied into the
// scene and walked by the layout in every frame, for nothing drawn. The
// labelled ones (real clients' and ZooKeeper clients') stay for the span:
// the layout finds the outside clients' boxes from them.
func messages(wire []core.Event, now, span int64, cluster bool) ([]scene.Message, int) {
	dropped := map[uint64]bool{}
	for i := range wire {
		if wire[i].Type == core.EvMsgDrop {
			dropped[wire[i].MsgID] = true
		}
	}
	keep := func(ev *core.Event) bool {
		if ev.Type != core.EvMsgSend || ev.SentAt > now || ev.DeliverAt < now-span {
			return false
		}
		return !cluster || ev.DeliverAt >= now-inFlightMargin || ev.Label != "" || msgLabelled(ev)
	}
	// The sends in the window: counted first, so out is allocated once
	// (grown by append it was most of messages' cost).
	n := 0
	for i := range wire {
		if keep(&wire[i]) {
			n++
		}
	}
	out := make([]scene.Message, 0, n)
	for i := range wire {
		ev := &wire[i]
		if !keep(ev) {
			continue
		}
		m := scene.Message{ID: ev.MsgID, From: ev.From, To: ev.To, Kind: ev.Msg, SentAt: ev.SentAt, DeliverAt: ev.DeliverAt, Dropped: dropped[ev.MsgID]}
		zkMessage(ev, &m)
		if ev.Label != "" { // a real Kafka client's request or response
			m.Label = ev.Label
		}
		out = append(out, m)
	}
	return newestMessages(out)
}

// newestMessages keeps the newest scene.MaxMessages of msgs (in send
// order) and says how many older ones it left out.
func newestMessages(msgs []scene.Message) ([]scene.Message, int) {
	omitted := max(len(msgs)-scene.MaxMessages, 0)
	return msgs[omitted:], omitted
}

// marks are the notable events of the last markWindow ms.
func marks(trace []core.Event, now int64) []scene.Mark {
	var out []scene.Mark
	lo := sort.Search(len(trace), func(i int) bool { return trace[i].At >= now-markWindow })
	for i := lo; i < len(trace); i++ {
		ev := &trace[i]
		if m, ok := markOf(ev); ok {
			out = append(out, m)
		}
	}
	if len(out) > scene.MaxMarks {
		out = out[len(out)-scene.MaxMarks:]
	}
	return out
}

func markOf(ev *core.Event) (scene.Mark, bool) {
	m := scene.Mark{At: ev.At, Broker: ev.Broker, Partition: ev.Partition}
	switch ev.Type {
	case core.EvLeader:
		if ev.Leader < 0 {
			return m, false
		}
		m.Kind, m.Broker, m.Epoch, m.Unclean = scene.MarkElection, ev.Leader, ev.Epoch, ev.Unclean
	case core.EvISR:
		m.Kind = scene.MarkISRExpand
		if ev.Change == "shrink" || strings.HasPrefix(ev.Detail, "shrink") {
			m.Kind = scene.MarkISRShrink
		}
		m.Text = clipText(ev.Detail)
	case core.EvTruncate, core.EvLost:
		m.Kind, m.Offset = scene.MarkTruncate, ev.Offset
		if ev.Type == core.EvLost {
			m.Kind = scene.MarkLost
		}
		for j := range ev.Records {
			if j == scene.MaxCells {
				break
			}
			m.Cells = append(m.Cells, scene.Cell{Offset: ev.Offset + int64(j), Value: clip(ev.Records[j].ValueText()), Flags: scene.FlagLost})
		}
	case core.EvBrokerState:
		switch {
		case strings.HasPrefix(ev.Detail, "crashed"):
			m.Kind = scene.MarkCrash
		case strings.HasPrefix(ev.Detail, "powered off"), strings.Contains(ev.Detail, "power"):
			m.Kind = scene.MarkPowerOff
		case ev.Detail == "paused":
			m.Kind = scene.MarkPause
		case ev.Detail == "resumed":
			m.Kind = scene.MarkResume
		case ev.Detail == "restarted":
			m.Kind = scene.MarkRestart
		default:
			return m, false
		}
	case core.EvNet:
		switch {
		case ev.Detail == "heal":
			m.Kind = scene.MarkHeal
		case strings.HasPrefix(ev.Detail, "split"):
			m.Kind, m.Text = scene.MarkSplit, clipText(strings.TrimPrefix(ev.Detail, "split "))
		default:
			return m, false
		}
	case core.EvGroup:
		m.Kind, m.Group, m.Generation, m.Broker = scene.MarkRebalance, ev.Group, ev.Generation, 0
		m.Text = clipText(ev.Detail)
	case core.EvController:
		if !strings.Contains(ev.Detail, "is the controller") {
			return m, false
		}
		m.Kind = scene.MarkControl
	default:
		return m, false
	}
	return m, true
}

func clipText(s string) string {
	if len(s) > scene.MaxName {
		return s[:scene.MaxName-3] + "..."
	}
	return s
}

// findings caches what the checker says, recomputed when the trace grew.
