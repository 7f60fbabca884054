package core

// deferredCheck is the KRaft controller's scheduling state for one of its
// periodic write events, the preferred leader balance and the unclean
// election check (QuorumController's ImbalanceSchedule: DEFERRED,
// SCHEDULED, IMMEDIATELY). Invariant: at most one run is scheduled (the
// one whose generation is gen), and none is scheduled while a run writes.
// The ZooKeeper controller's balance ticks use gen alone.
type deferredCheck struct {
	gen     int  // identifies the scheduled run; bumping it cancels it
	armed   bool // a run is scheduled (SCHEDULED)
	soon    bool // the last run hit maxElectionsPerImbalance (IMMEDIATELY)
	running bool // a run is writing its elections
}

// schedule arms a run interval ms from now, or balanceAgainMs when the
// last run hit its limit, unless one is armed or running.
func (d *deferredCheck) schedule(c *Cluster, interval int64, run func()) {
	if d.armed || d.running {
		return
	}
	if d.soon {
		interval = balanceAgainMs
	}
	d.armed = true
	gen := d.gen
	c.after(interval, func() {
		if d.gen != gen || !d.armed {
			return
		}
		d.armed = false
		run()
	})
}

// reset cancels the scheduled run (its interval was `set` anew).
func (d *deferredCheck) reset() {
	d.gen++
	d.armed, d.soon = false, false
}

// write runs elect as the check's write, which returns the elections it
// made; the next run is then IMMEDIATELY if they reached
// maxElectionsPerImbalance.
func (d *deferredCheck) write(elect func() int) {
	d.running = true
	n := elect()
	d.running = false
	d.soon = n >= maxElectionsPerImbalance
}
