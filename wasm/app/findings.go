package app

// The findings (lost, duplicated and reordered records) the canvas marks
// and the findings badge counts, kept from one check to the next.

import (
	"maps"
	"strconv"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/check"
	"github.com/kafkasim/kafkasim/wasm/session"
)

// dupScan counts the deliveries of each record within its group (or to
// its lone consumer) over the history of deliveries, brought up to date
// with the deliveries since the last findings instead of counted afresh
// from the first (the history only grows; a new driver or load starts it
// again).
type dupScan struct {
	drv      *session.Driver
	ver      uint64
	seen     int            // deliveries of the history taken in
	per      map[string]int // owner\x00partition\x00offset -> deliveries
	dupCount map[string]int // partition\x00value -> deliveries, when > 1 within a group
}

func (ds *dupScan) update(d *session.Driver, ver uint64, h []core.Delivery) map[string]int {
	if ds.per == nil || ds.drv != d || ds.ver != ver || len(h) < ds.seen {
		*ds = dupScan{drv: d, ver: ver, per: map[string]int{}, dupCount: map[string]int{}}
	}
	for _, dl := range h[ds.seen:] {
		owner := dl.Group
		if owner == "" {
			owner = "c:" + dl.Consumer
		}
		k := owner + "\x00" + dl.Partition + "\x00" + strconv.FormatInt(dl.Offset, 10)
		ds.per[k]++
		if n := ds.per[k]; n > 1 {
			key := dl.Partition + "\x00" + dl.Value
			ds.dupCount[key] = max(ds.dupCount[key], n)
		}
	}
	ds.seen = len(h)
	return ds.dupCount
}

type findings struct {
	drv        *session.Driver
	at         int   // trace count it was computed at
	now        int64 // virtual time it was computed at
	ver        uint64
	count      int // len(check.All): the findings badge (FindingsCount)
	lost       int
	dups       int
	reordered  int
	dupCount   map[string]int  // partition\x00value -> deliveries, when > 1 within a group
	outOfOrder map[string]bool // partition\x00value
}

// findingsCached is the checker's answer for the canvas and the findings
// badge, recomputed at most every findingsEvery virtual ms while playing
// (paused, whenever the trace grew): one check.All serves both, as the
// checker reads the whole history (two passes every 2 s were 2-4% of the
// page's main thread on the reference scene, and grew with the history).
func (e *Engine) findingsCached() *findings {
	d := e.sess.Driver()
	n := d.Events().TraceCount()
	if f := e.fcache; f != nil && f.drv == d && f.ver == e.loadVer && (f.at == n || e.playing && d.Now()-f.now < findingsEvery) {
		return f
	}
	c := d.Cluster()
	f := &findings{drv: d, at: n, now: d.Now(), ver: e.loadVer, dupCount: map[string]int{}, outOfOrder: map[string]bool{}}
	all := check.All(c)
	f.count = len(all)
	for _, v := range all {
		switch v.Kind {
		case check.Lost:
			f.lost += len(v.Values)
		case check.Duplicate:
			f.dups += len(v.Values)
		case check.Reorder:
			f.reordered++
			if len(v.Values) == 2 {
				f.outOfOrder[v.Partition+"\x00"+v.Values[1]] = true
			}
		case check.DeliveryOrder:
			for _, val := range v.Values {
				f.outOfOrder[v.Partition+"\x00"+val] = true
			}
		}
	}
	f.dupCount = maps.Clone(e.dscan.update(d, e.loadVer, c.History().Consumed))
	e.fcache = f
	return f
}
