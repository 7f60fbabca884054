package app

import (
	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/wasm/scene"
	"github.com/kafkasim/kafkasim/wasm/session"
)

// sceneCache keeps what Scene derives from the whole trace (the split in
// force, each replica's lost records), brought up to date with the events
// added since the previous scene instead of rescanning the trace on every
// frame. It is the answer of a full scan (currentSplit's, lostCells') of
// the same driver's trace; a new driver (load, seek, switch, fork) or a
// new load version starts it afresh.
type sceneCache struct {
	drv   *session.Driver
	ver   uint64
	seen  int // trace events ever added that it has taken in
	split map[string]int
	lost  map[replicaKey][]scene.Cell

	consumed int            // deliveries of the history taken in
	got      map[string]int // consumer\x00partition\x00value -> deliveries

	sentSeen int                   // History.Sent records taken in
	unacked  []int                 // of those, the ones not acked yet (indices in History.Sent; a failed one may still be acked late)
	perProd  map[string]*prodCount // producer -> its records' counts
}

// prodCount is what one producer sent and got acked.
type prodCount struct{ sent, acked int64 }

// producerCounts counts the records each producer sent and got acked, by
// its index in ps: producerCounts' answer for the history, brought up to
// date with the records sent since the last call and with those still
// waiting then, instead of walking every record ever sent in every scene
// (the history only grows, and a record's Acked only turns true).
func (sc *sceneCache) producerCounts(sent []core.SentRecord, ps []core.ProducerView) (n, acked []int64) {
	if sc.perProd == nil || len(sent) < sc.sentSeen {
		sc.perProd, sc.unacked, sc.sentSeen = map[string]*prodCount{}, nil, 0
	}
	count := func(name string) *prodCount {
		pc := sc.perProd[name]
		if pc == nil {
			pc = &prodCount{}
			sc.perProd[name] = pc
		}
		return pc
	}
	keep := sc.unacked[:0]
	for _, i := range sc.unacked {
		if r := &sent[i]; r.Acked {
			count(r.Producer).acked++
		} else {
			keep = append(keep, i)
		}
	}
	sc.unacked = keep
	var last string
	var pc *prodCount
	for i := sc.sentSeen; i < len(sent); i++ {
		r := &sent[i]
		if pc == nil || r.Producer != last {
			last, pc = r.Producer, count(r.Producer)
		}
		pc.sent++
		if r.Acked {
			pc.acked++
		} else {
			sc.unacked = append(sc.unacked, i)
		}
	}
	sc.sentSeen = len(sent)
	n, acked = make([]int64, len(ps)), make([]int64, len(ps))
	for j := range ps {
		if pc := sc.perProd[ps[j].Name]; pc != nil && !seenBefore(ps[:j], ps[j].Name) {
			n[j], acked[j] = pc.sent, pc.acked
		}
	}
	return n, acked
}

// seenBefore reports whether a producer in ps is named name.
func seenBefore(ps []core.ProducerView, name string) bool {
	for i := range ps {
		if ps[i].Name == name {
			return true
		}
	}
	return false
}

// consumedCounts brings the delivery counts up to date with c's history
// (append-only) and returns them.
func (sc *sceneCache) consumedCounts(c *core.Cluster) map[string]int {
	if sc.got == nil {
		sc.got = map[string]int{}
	}
	h := c.History().Consumed
	if len(h) < sc.consumed {
		sc.got, sc.consumed = map[string]int{}, 0
	}
	for _, dl := range h[sc.consumed:] {
		sc.got[dl.Consumer+"\x00"+dl.Partition+"\x00"+dl.Value]++
	}
	sc.consumed = len(h)
	return sc.got
}

// traceCache returns the cache, up to date with the driver's trace.
func (e *Engine) traceCache() *sceneCache {
	d := e.sess.Driver()
	st := d.Events()
	n := st.TraceCount()
	c := e.scache
	if c == nil || c.drv != d || c.ver != e.loadVer || n < c.seen {
		c = &sceneCache{drv: d, ver: e.loadVer, lost: map[replicaKey][]scene.Cell{}}
		e.scache = c
	}
	trace := st.Trace()
	i := max(0, c.seen-(n-len(trace))) // events forgotten before it saw them are gone
	for ; i < len(trace); i++ {
		c.add(&trace[i])
	}
	c.seen = n
	return c
}

func (c *sceneCache) add(ev *core.Event) {
	c.split = splitStep(c.split, ev)
	lostStep(c.lost, ev)
}

// currentSplit is the network split in force at the end of trace (the
// whole-trace form of splitStep).
func currentSplit(trace []core.Event) map[string]int {
	var cur map[string]int
	for i := range trace {
		cur = splitStep(cur, &trace[i])
	}
	return cur
}
