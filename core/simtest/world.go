package simtest

import "github.com/kafkasim/kafkasim/core"

// brokerState is a broker as a script's steps leave it.
type brokerState uint8

const (
	up brokerState = iota
	paused
	crashed
	off
)

// faultState follows, statically, what a script's commands do to the
// brokers and the network, with the core's rules on which commands apply
// (restart only a crashed or powered-off broker, resume only a paused one).
type faultState struct {
	broker map[int]brokerState // absent: up
	dirty  bool                // a split, delay or drop in force
}

// apply updates the state for cmd and reports whether cmd took a broker
// down or disturbed the network.
func (f *faultState) apply(cmd core.Command) (fault bool) {
	if f.broker == nil {
		f.broker = map[int]brokerState{}
	}
	st := func(b int) brokerState { return f.broker[b] }
	switch x := cmd.(type) {
	case core.CrashBroker:
		if s := st(x.Broker); s == up || s == paused {
			f.broker[x.Broker] = crashed
			return true
		}
	case core.PowerOff:
		if s := st(x.Broker); s == up || s == paused {
			f.broker[x.Broker] = off
			return true
		}
	case core.Pause:
		if st(x.Broker) == up {
			f.broker[x.Broker] = paused
			return true
		}
	case core.Restart:
		if s := st(x.Broker); s == crashed || s == off {
			delete(f.broker, x.Broker)
		}
	case core.Resume:
		if st(x.Broker) == paused {
			delete(f.broker, x.Broker)
		}
	case core.NetSplit, core.NetDelay, core.NetDrop:
		f.dirty = true
		return true
	case core.NetHeal:
		f.dirty = false
	}
	return false
}

// whole reports whether every broker is up and the network has no fault.
func (f *faultState) whole() bool { return len(f.broker) == 0 && !f.dirty }

// state returns broker b's state.
func (f *faultState) state(b int) brokerState { return f.broker[b] }
