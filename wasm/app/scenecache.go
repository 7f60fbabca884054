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

// producerCounts counts the records each producer sent and got acked,
// by its index in ps.
func producerCounts(sent []core.SentRecord, ps []core.ProducerView) (n, acked []int64) {
	n, acked = make([]int64, len(ps)), make([]int64, len(ps))
	last, li := "", -1
	for i := range sent {
		r := &sent[i]
		if r.Producer != last || li < 0 {
			last, li = r.Producer, -1
			for j := range ps {
				if ps[j].Name == r.Producer {
					li = j
					break
				}
			}
			if li < 0 {
				continue
			}
		}
		n[li]++
		if r.Acked {
			acked[li]++
		}
	}
	return n, acked
}
