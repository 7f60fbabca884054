package core

import (
	"fmt"
	"strconv"
)

// sessionTimeout is zookeeper.session.timeout.ms or broker.session.timeout.ms.
func (m *metadata) sessionTimeout() int64 {
	if m.kraft {
		return m.c.bc.brokerSessionMs
	}
	return m.c.bc.zkSessionMs
}

// heartbeatInterval is how often a broker renews its session.
func (m *metadata) heartbeatInterval() int64 {
	if m.kraft {
		return m.c.bc.brokerHeartbeatMs
	}
	return max(1, m.c.bc.zkSessionMs/3) // ZooKeeper clients ping at a third of the timeout
}

// register handles a broker's registration (ZK: ephemeral /brokers/ids/N;
// KRaft: BrokerRegistration, then unfenced). In ZK mode a restarted broker
// cannot register while its previous session lives on: it retries until
// that session expires. KRaft fences the old incarnation at once.
func (m *metadata) register(b *Broker, inc int) {
	if cur, ok := m.registered[b.ID]; ok {
		if cur == inc+1 {
			return
		}
		if !m.kraft {
			m.c.emit(Event{Type: EvZK, Broker: b.ID, Detail: fmt.Sprintf("broker %d cannot register: /brokers/ids/%d still held by its previous session", b.ID, b.ID)})
			b.after(1000, func() { b.register() })
			return
		}
		m.expire(b.ID)
	}
	m.registered[b.ID] = inc + 1
	if m.c.now == 0 {
		m.known[b.ID] = inc + 1 // the cluster boots with every broker registered
	}
	m.beat(b.ID)
	if m.kraft {
		m.log(fmt.Sprintf("RegisterBrokerRecord broker=%d", b.ID))
		m.log(fmt.Sprintf("BrokerRegistrationChangeRecord broker=%d fenced=false", b.ID))
		m.c.emit(Event{Type: EvController, Broker: b.ID, Detail: fmt.Sprintf("broker %d registered and unfenced", b.ID)})
		m.onBrokerStartup(b.ID)
		return
	}
	m.zk.create("/brokers/ids/"+strconv.Itoa(b.ID), brokerZNode(b), brokerSession(b.ID))
	if m.controller == 0 {
		m.electController()
		return
	}
	m.notifyController(func() { m.onBrokerStartup(b.ID) })
}

// heartbeat renews a session; false means the broker has no live session
// (it must register again).
func (m *metadata) heartbeat(id, inc int) bool {
	cur, ok := m.registered[id]
	if !ok {
		return false
	}
	if cur == inc+1 {
		m.beat(id)
	}
	return true
}

func brokerZNode(b *Broker) string {
	rack := ""
	if b.Rack != "" {
		rack = fmt.Sprintf(`,"rack":%q`, b.Rack)
	}
	return fmt.Sprintf(`{"version":4,"host":"broker%d","port":9092%s}`, b.ID, rack)
}

// beat renews broker id's session and arms its expiry check.
func (m *metadata) beat(id int) {
	at := m.c.now
	m.lastBeat[id] = at
	m.c.after(m.sessionTimeout(), func() {
		if _, ok := m.registered[id]; ok && m.lastBeat[id] == at {
			m.expire(id)
		}
	})
}

// expire ends broker id's session: ZK deletes its ephemeral znodes; KRaft
// fences it. Either way the controller then moves its leaderships.
func (m *metadata) expire(id int) {
	delete(m.registered, id)
	if m.kraft {
		m.log(fmt.Sprintf("BrokerRegistrationChangeRecord broker=%d fenced=true", id))
		m.c.emit(Event{Type: EvController, Broker: id, Detail: fmt.Sprintf("broker %d fenced: no heartbeat for %d ms", id, m.sessionTimeout())})
		m.onBrokerFailure(id)
		return
	}
	m.c.emit(Event{Type: EvZK, Broker: id, Op: "closeSession", Session: m.zk.sessions[brokerSession(id)], Detail: fmt.Sprintf("session of broker %d expired", id)})
	m.zk.endSession(brokerSession(id)) // deletes /brokers/ids/N and, on the controller, /controller
	if m.controller == id {
		m.controller = 0
		m.electController()
		return
	}
	m.notifyController(func() { m.onBrokerFailure(id) })
}

// brokerSession names broker id's ZooKeeper session (the owner of its
// ephemeral znodes).
func brokerSession(id int) string { return "broker " + strconv.Itoa(id) }
