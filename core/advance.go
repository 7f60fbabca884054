package core

import (
	"fmt"
	"math"
)

// Op is a blocking operation in progress: a Wait, Settle, Poll or Commit
// that Apply started and that completes only as virtual time passes. At
// most one is in progress at a time (see Cluster.Pending).
type Op struct {
	Cmd      Command // the Wait, Settle, Poll or Commit that started it
	Since    int64   // virtual time (ms) it started
	Deadline int64   // the latest virtual time at which it completes (its timeout)
}

// Done is how a blocking operation ended: at virtual time At, with Err nil
// when it succeeded. A poll that found no records before its timeout
// succeeds; a settle that timed out, a failed commit or an internal fault
// is an Err.
type Done struct {
	Op
	At  int64
	Err error
}

// op is the operation in progress with what the core needs to finish it.
type op struct {
	Op
	// done reports that the operation can complete before its deadline;
	// nil for Wait, which always runs to its deadline. It reads cluster
	// state only, and is asked after every virtual millisecond with work.
	done func() bool
	// finish runs once, when the operation completes, with the cluster's
	// fault if it has one; its result is Done.Err.
	finish func(fault error) error
}

// Pending returns the blocking operation in progress, or nil.
func (c *Cluster) Pending() *Op {
	if c.pending == nil {
		return nil
	}
	o := c.pending.Op
	return &o
}

// blocking reports whether cmd starts an operation that waits in virtual
// time: only one can be in progress.
func blocking(cmd Command) bool {
	switch cmd.(type) {
	case Wait, Settle, Poll, Commit:
		return true
	}
	return false
}

// start begins a blocking operation for cmd that lasts at most timeout ms.
// An operation whose done already holds completes at once, without running
// anything (KafkaConsumer.poll returns at once with records it already
// has): its error is returned and nothing is left in progress. A Wait
// (done nil) always stays in progress, even for 0 ms, so that the timers
// due now run in Advance, never in Apply.
func (c *Cluster) start(cmd Command, timeout int64, o *op) error {
	o.Op = Op{Cmd: cmd, Since: c.now, Deadline: satAdd(c.now, timeout)}
	c.pending = o
	if o.done != nil && o.done() {
		return c.complete().Err
	}
	return nil
}

// complete ends the pending operation at the current instant.
func (c *Cluster) complete() *Done {
	o := c.pending
	c.pending = nil
	c.completed++
	d := &Done{Op: o.Op, At: c.now}
	if o.finish != nil {
		d.Err = o.finish(c.fault)
	} else {
		d.Err = c.fault
	}
	return d
}

// Advance runs virtual time forward by at most d ms, firing every timer due
// up to now+d in order. With no operation in progress it always reaches
// now+d. While a blocking operation is in progress Advance stops at the
// instant it completes: after the timers of the virtual millisecond at
// which its condition first holds, or at its deadline, whichever is first.
// That is exactly where the blocking call would have returned, so a driver
// may advance in one go, in 1 ms steps or in any increments and the run is
// the same. The completed operation is returned (nil while it is still in
// progress or when there was none); the driver then applies its next
// command at that instant or advances again.
//
// One call advances at most MaxAdvance; a d outside 0..MaxAdvance is an
// error and changes nothing. Otherwise the error is non-nil only when the
// cluster hit an internal limit (too many timers, a zero-delay loop): the
// run is broken from then on, and an operation in progress completes with
// that error.
func (c *Cluster) Advance(d int64) (*Done, error) {
	if d < 0 {
		return nil, fmt.Errorf("cannot go back in time (%d ms)", d)
	}
	if d > MaxAdvance {
		return nil, fmt.Errorf("advance %d ms: at most %d (24 hours) at a time", d, int64(MaxAdvance))
	}
	end := satAdd(c.now, d)
	var stop func() bool
	if o := c.pending; o != nil {
		// Only a command applied since the last check can have made done
		// hold without a timer firing; otherwise this finds it false.
		if o.done != nil && o.done() {
			return c.complete(), c.fault
		}
		end = min(end, o.Deadline)
		stop = o.done
	}
	stopped := c.run(end, stop)
	if c.pending != nil && (c.fault != nil || stopped || c.now >= c.pending.Deadline) {
		return c.complete(), c.fault
	}
	return nil, c.fault
}

// Exec applies cmd and, if it started a blocking operation, advances
// virtual time until that operation completes, returning its error: a
// whole script step at once, as `kafkasim run` executes it. Drivers that
// show time passing use Apply, Pending and Advance instead.
func (c *Cluster) Exec(cmd Command) error {
	before := c.pending
	if err := c.Apply(cmd); err != nil {
		return err
	}
	o := c.pending
	if o == nil || o == before {
		return nil
	}
	for c.pending == o { // an Advance that reaches the deadline completes it
		d, err := c.Advance(min(o.Deadline-c.now, MaxAdvance))
		if d != nil {
			return d.Err
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// run fires timers up to end (inclusive), all timers of one virtual
// millisecond together, and reports true when it stopped early because
// stop held after a millisecond with work. Otherwise it leaves the clock at
// end. It stops at once on a fault.
func (c *Cluster) run(end int64, stop func() bool) bool {
	for {
		at, ok := c.sched.peek()
		if !ok || at > end {
			break
		}
		if at > c.now {
			c.now = at
		}
		for n := 0; ; n++ {
			t, ok := c.sched.peek()
			if !ok || t != c.now {
				break
			}
			if n == maxTimersPerMs {
				c.fault = fmt.Errorf("livelock: more than %d timers at t=%s (a zero-delay loop)", maxTimersPerMs, FormatTime(c.now))
				return false
			}
			c.fired++
			if t := c.sched.pop(); t.msg != nil {
				c.net.arrive(t.msg)
			} else {
				t.fn()
			}
		}
		if c.fault != nil {
			return false
		}
		if stop != nil && stop() {
			return true
		}
	}
	if end > c.now {
		c.now = end
	}
	return false
}

// MaxAdvance bounds one Advance (ms): the longest Wait.
const MaxAdvance = MaxWait

// satAdd is a+b for b >= 0, saturating at the largest time.
func satAdd(a, b int64) int64 {
	if b > math.MaxInt64-a {
		return math.MaxInt64
	}
	return a + b
}
