package core

import (
	"fmt"
	"strconv"
)

// electController: in ZK mode the first live broker to create /controller
// wins the race; here, the registered broker with the lowest id whose
// process runs (a dead process cannot race).
func (m *metadata) electController() {
	m.controller = 0
	m.watchQ, m.watchBusy = nil, false // a new controller reads everything
	for _, id := range m.registeredIDs() {
		if m.c.Broker(id).processUp() {
			m.controller = id
			break
		}
	}
	if m.controller == 0 {
		return
	}
	m.ctrlEpoch++
	m.zk.create("/controller", fmt.Sprintf(`{"version":1,"brokerid":%d,"timestamp":"%d"}`, m.controller, m.c.now), brokerSession(m.controller))
	m.zk.set("/controller_epoch", strconv.Itoa(m.ctrlEpoch))
	m.c.emit(Event{Type: EvController, Broker: m.controller, Detail: fmt.Sprintf("broker %d is the controller (epoch %d)", m.controller, m.ctrlEpoch)})
	// A new controller reads all state from ZooKeeper, then handles every
	// broker change it finds (KafkaController.onControllerFailover).
	m.notifyController(func() { m.onControllerFailover() })
}

// notifyController delivers a ZooKeeper watch to the controller broker,
// which then acts (fn). In KRaft the quorum acts at once.
func (m *metadata) notifyController(fn func()) {
	if m.kraft {
		fn()
		return
	}
	if m.ctrlNode() == nil {
		return
	}
	m.watchSeq++
	m.watchQ = append(m.watchQ, watchEvent{id: m.watchSeq, ctrl: m.controller, fn: fn})
	if !m.watchBusy {
		m.sendWatch()
	}
}

// watchEvent is a ZooKeeper watch notification on its way to the
// controller that was in office when it fired.
type watchEvent struct {
	id   int
	ctrl int
	fn   func()
}

// sendWatch delivers the queued watch events to the controller one at a
// time, in order, as ZooKeeper does. One lost on the way (the controller
// cut off from ZooKeeper for less than its session timeout) still reaches
// it: on reconnecting, the client re-registers its watches (SetWatches)
// and the server fires those whose znodes changed meanwhile. Without the
// resend, a broker that registered during a short split was never sent its
// partitions; without the order, a broker's old failure could be handled
// after its new registration, and the broker dropped for good.
func (m *metadata) sendWatch() {
	for len(m.watchQ) > 0 && m.watchQ[0].ctrl != m.controller {
		m.watchQ = m.watchQ[1:] // for a deposed controller
	}
	to := m.ctrlNode()
	if len(m.watchQ) == 0 || to == nil {
		m.watchQ, m.watchBusy = nil, false
		return
	}
	m.watchBusy = true
	ev := m.watchQ[0]
	m.c.net.send(m.node, to, "ZkWatch", func() {
		if len(m.watchQ) == 0 || m.watchQ[0].id != ev.id || m.controller != ev.ctrl {
			return // a copy of one delivered already, or for a deposed controller
		}
		m.watchQ, m.watchBusy = m.watchQ[1:], false
		ev.fn()
		if !m.watchBusy {
			m.sendWatch()
		}
	}, nil)
	m.c.after(zkWatchRetryMs, func() {
		if len(m.watchQ) > 0 && m.watchQ[0].id == ev.id {
			m.sendWatch() // not delivered yet: send it again
		}
	})
}

const zkWatchRetryMs = 1_000
