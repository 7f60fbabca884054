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

// brokerRegistrationReq is a broker process's registration: ZK, the
// ephemeral /brokers/ids/N; KRaft, BrokerRegistration.
type brokerRegistrationReq struct {
	broker      *Broker
	incarnation int // the registering process (Broker.incarnation)
}

// brokerHeartbeatReq renews a broker's session: KRaft's BrokerHeartbeat,
// or the ZooKeeper session ping.
type brokerHeartbeatReq struct {
	broker      int
	incarnation int
}

// brokerHeartbeatResult says whether the broker still has a session;
// without one it must register again.
type brokerHeartbeatResult struct {
	registered bool
}

// handleBrokerRegistration handles a broker's registration (ZK: ephemeral /brokers/ids/N;
// KRaft: BrokerRegistration, then unfenced). A restarted broker cannot
// register while its previous incarnation's session lives on: in ZK mode
// /brokers/ids/N is still held by the old session; in KRaft
// ClusterControlManager.registerBroker refuses a new incarnation with
// DuplicateBrokerRegistrationException while
// BrokerHeartbeatManager.hasValidSession holds (unfenced, heard from
// within broker.session.timeout.ms). Either way the broker retries until
// that session is gone, so a crashed broker is back only about a session
// timeout later.
func (m *metadata) handleBrokerRegistration(req brokerRegistrationReq) {
	b, inc := req.broker, req.incarnation
	if cur, ok := m.registered[b.ID]; ok {
		if cur == inc+1 {
			return
		}
		if !m.kraft {
			m.c.emit(Event{Type: EvZK, Broker: b.ID, Detail: fmt.Sprintf("broker %d cannot register: /brokers/ids/%d still held by its previous session", b.ID, b.ID)})
			b.after(1000, func() { b.register() })
			return
		}
		if m.validSession(b.ID) {
			m.c.emit(Event{Type: EvController, Broker: b.ID, Error: "DUPLICATE_BROKER_REGISTRATION",
				Detail: fmt.Sprintf("broker %d cannot register: DuplicateBrokerRegistrationException (its previous incarnation's session is valid for %d ms more)", b.ID, m.lastBeat[b.ID]+m.sessionTimeout()-m.c.now)})
			return // the broker's next heartbeat finds no registration of its own and registers again
		}
		if !m.fenced[b.ID] {
			m.expire(b.ID)
		}
	}
	m.registered[b.ID] = inc + 1
	delete(m.fenced, b.ID)
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

// validSession is BrokerHeartbeatManager.hasValidSession: unfenced and
// heard from within the session timeout.
func (m *metadata) validSession(id int) bool {
	_, ok := m.registered[id]
	return ok && !m.fenced[id] && m.lastBeat[id]+m.sessionTimeout() >= m.c.now
}

// handleBrokerHeartbeat renews a session; registered false means the
// broker has no registration (it must register again; in KRaft also when
// the registration is its previous incarnation's, so a refused or lost registration is retried
// every broker.heartbeat.interval.ms). A KRaft broker that was fenced stays
// registered and keeps fetching metadata; its next heartbeat unfences it
// (BrokerHeartbeatManager.calculateNextBrokerState: FENCED -> UNFENCED
// once it has caught up with its registration record).
func (m *metadata) handleBrokerHeartbeat(req brokerHeartbeatReq) brokerHeartbeatResult {
	id, inc := req.broker, req.incarnation
	cur, ok := m.registered[id]
	if !ok || m.kraft && cur != inc+1 {
		return brokerHeartbeatResult{}
	}
	if cur == inc+1 {
		m.beat(id)
		if m.fenced[id] {
			delete(m.fenced, id)
			m.log(fmt.Sprintf("BrokerRegistrationChangeRecord broker=%d fenced=false", id))
			m.c.emit(Event{Type: EvController, Broker: id, Detail: fmt.Sprintf("broker %d unfenced (heartbeat)", id)})
			m.onBrokerStartup(id)
		}
	}
	return brokerHeartbeatResult{registered: true}
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
		if _, ok := m.registered[id]; ok && !m.fenced[id] && m.lastBeat[id] == at {
			m.expire(id)
		}
	})
}

// expire ends broker id's session: ZK deletes its ephemeral znodes; KRaft
// fences it. Either way the controller then moves its leaderships.
func (m *metadata) expire(id int) {
	if m.kraft {
		if m.fenced[id] {
			return
		}
		m.fenced[id] = true
		m.log(fmt.Sprintf("BrokerRegistrationChangeRecord broker=%d fenced=true", id))
		m.c.emit(Event{Type: EvController, Broker: id, Detail: fmt.Sprintf("broker %d fenced: no heartbeat for %d ms", id, m.sessionTimeout())})
		m.onBrokerFailure(id)
		return
	}
	delete(m.registered, id)
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
