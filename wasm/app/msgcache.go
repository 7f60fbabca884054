package app

import (
	"sort"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/wasm/scene"
	"github.com/kafkasim/kafkasim/wasm/session"
)

// msgLookback is how far back (virtual ms) a scene looks for the sends of
// the messages it shows: a message sent earlier is not shown even if it
// is still in flight (messages' window, from scene.go).
const msgLookback = 5000

// msgCache is messages' answer kept from scene to scene: the sends that
// a scene at a later moment may still show (in its window, not yet
// delivered longer ago than the span, or than inFlightMargin in the
// cluster view for an unlabelled one), each already a scene.Message,
// brought up to date with the wire events added since the last scene,
// instead of walking the last five seconds of the wire (7,500 events of
// 632 bytes at 500 records/s) for every scene. Every test of the window
// only turns false as time runs, so what it drops never comes back; a
// new driver or load, a change of span or view, time running back, or
// the wire forgetting events it had not seen starts it afresh.
type msgCache struct {
	drv     *session.Driver
	ver     uint64
	span    int64
	cluster bool
	now     int64
	seen    int // wire events ever added that it has taken in
	cand    []msgCand
	dropped map[uint64]bool // ids of candidates a drop event named
	valid   bool
}

type msgCand struct {
	m        scene.Message
	at       int64 // the send event's time (the window's test)
	labelled bool
}

// keeps reports whether a scene at now with this span (the cluster view
// alone: cluster) may show the send c, by messages' rule.
func (c *msgCand) keeps(now, span int64, cluster bool) bool {
	if c.at < now-max(span, msgLookback) || c.m.DeliverAt < now-span {
		return false
	}
	return !cluster || c.m.DeliverAt >= now-inFlightMargin || c.labelled
}

func candOf(ev *core.Event) msgCand {
	m := scene.Message{ID: ev.MsgID, From: ev.From, To: ev.To, Kind: ev.Msg, SentAt: ev.SentAt, DeliverAt: ev.DeliverAt}
	zkMessage(ev, &m)
	if ev.Label != "" { // a real Kafka client's request or response
		m.Label = ev.Label
	}
	return msgCand{m: m, at: ev.At, labelled: m.Label != ""}
}

// messagesCached is messages(wire since now-max(span, msgLookback), now,
// span, cluster) for the driver's store st, kept from the last call.
// Outside events (a followed room's) are merged by messages itself.
func (e *Engine) messagesCached(st *session.Store, now, span int64, cluster bool) ([]scene.Message, int) {
	d := e.sess.Driver()
	mc := &e.mcache
	wire := st.Wire()
	fresh := st.WireCount() - mc.seen
	if !mc.valid || mc.drv != d || mc.ver != e.loadVer || mc.span != span || mc.cluster != cluster || now < mc.now || fresh < 0 || fresh > len(wire) {
		*mc = msgCache{drv: d, ver: e.loadVer, span: span, cluster: cluster, valid: true, dropped: map[uint64]bool{}}
		wire = st.WireSince(now - max(span, msgLookback))
		fresh = len(wire)
	}
	mc.now = now
	for i := len(wire) - fresh; i < len(wire); i++ {
		ev := &wire[i]
		switch ev.Type {
		case core.EvMsgSend:
			c := candOf(ev)
			if c.keeps(now, span, cluster) || c.m.SentAt > now {
				mc.cand = append(mc.cand, c)
			}
		case core.EvMsgDrop:
			mc.dropped[ev.MsgID] = true
		}
	}
	mc.seen = st.WireCount()
	n := 0
	for i := range mc.cand {
		c := &mc.cand[i]
		if c.keeps(now, span, cluster) || c.m.SentAt > now {
			mc.cand[n] = *c
			n++
		} else {
			delete(mc.dropped, c.m.ID)
		}
	}
	clear(mc.cand[n:])
	mc.cand = mc.cand[:n]
	if len(mc.dropped) > 2*len(mc.cand)+64 { // drops of messages never kept
		keep := map[uint64]bool{}
		for i := range mc.cand {
			if id := mc.cand[i].m.ID; mc.dropped[id] {
				keep[id] = true
			}
		}
		mc.dropped = keep
	}
	out := make([]scene.Message, 0, len(mc.cand))
	for i := range mc.cand {
		c := &mc.cand[i]
		if c.m.SentAt > now {
			continue
		}
		m := c.m
		m.Dropped = mc.dropped[m.ID]
		out = append(out, m)
	}
	return newestMessages(out)
}

// markCache is marks' answer kept from scene to scene: the marks of the
// trace events of the last markWindow, brought up to date with the events
// added since the last scene (each event is looked at once, not once per
// scene for three seconds: about 4,000 events a scene at 500 records/s).
// It starts afresh as msgCache does.
type markCache struct {
	drv   *session.Driver
	ver   uint64
	now   int64
	seen  int // trace events ever added that it has taken in
	list  []scene.Mark
	valid bool
}

// marksCached is marks(trace, now) for the driver's store st.
func (e *Engine) marksCached(st *session.Store, now int64) []scene.Mark {
	d := e.sess.Driver()
	mc := &e.kcache
	trace := st.Trace()
	fresh := st.TraceCount() - mc.seen
	if !mc.valid || mc.drv != d || mc.ver != e.loadVer || now < mc.now || fresh < 0 || fresh > len(trace) {
		*mc = markCache{drv: d, ver: e.loadVer, valid: true}
		lo := sort.Search(len(trace), func(i int) bool { return trace[i].At >= now-markWindow })
		fresh = len(trace) - lo
	}
	mc.now, mc.seen = now, st.TraceCount()
	for i := len(trace) - fresh; i < len(trace); i++ {
		if m, ok := markOf(&trace[i]); ok {
			mc.list = append(mc.list, m)
		}
	}
	n := 0
	for n < len(mc.list) && mc.list[n].At < now-markWindow {
		n++
	}
	if n > 0 {
		mc.list = append(mc.list[:0], mc.list[n:]...)
	}
	if len(mc.list) == 0 {
		return nil
	}
	return append([]scene.Mark(nil), mc.list[max(0, len(mc.list)-scene.MaxMarks):]...)
}
