package core

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// metadata is the cluster's metadata service: ZooKeeper (with the
// controller role held by one broker) or the KRaft controller quorum
// (modelled as one always-available host, "controller"). It holds broker
// registrations and sessions and the authoritative partition states, and
// runs the controller's decisions: elections, ISR changes, and their
// propagation to brokers.
type metadata struct {
	c          *Cluster
	node       *node
	kraft      bool
	registered map[int]int   // live broker -> its incarnation+1 (ZK: /brokers/ids/N exists; KRaft: unfenced)
	lastBeat   map[int]int64 // last session heartbeat per broker
	controller int           // ZK: the broker holding /controller (0: none)
	ctrlEpoch  int
	zk         *zkTree
	records    []string // KRaft metadata log (newest last, bounded)
	recOffset  int64
	nextPID    int64
	zkSessions map[string]*zkSession // 0.8 consumers' ZooKeeper sessions
	failing    int                   // broker whose failure is being handled (see onBrokerFailure)
	// known: the registrations (incarnation+1) the ZooKeeper controller has
	// taken in (its liveOrShuttingDownBrokerIds). A broker that registered
	// gets state updates only once the controller has handled its startup,
	// and then the state of every partition first.
	known map[int]int
	// ZooKeeper watch events queued for the controller (see sendWatch)
	watchQ    []watchEvent
	watchBusy bool
	watchSeq  int // ids of watch events
}

const maxMetadataRecords = 10_000

func newMetadata(c *Cluster) *metadata {
	m := &metadata{c: c, kraft: c.mode == "kraft", registered: map[int]int{}, lastBeat: map[int]int64{}, known: map[int]int{}}
	if m.kraft {
		m.node = c.net.add("controller", nil)
	} else {
		m.node = c.net.add("zk", nil)
		m.zk = newZKTree(c)
	}
	return m
}

func (m *metadata) start() {
	m.startLeaderRebalance()
	if !m.kraft {
		m.zk.create("/brokers/ids", "", "")
		m.zk.create("/brokers/topics", "", "")
		m.zk.create("/controller_epoch", "0", "")
	}
}

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

func (m *metadata) log(rec string) {
	m.recOffset++
	m.records = append(m.records, fmt.Sprintf("%d %s", m.recOffset, rec))
	if len(m.records) > maxMetadataRecords {
		m.records = m.records[len(m.records)-maxMetadataRecords/2:]
	}
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
	m.c.emit(Event{Type: EvZK, Broker: id, Detail: fmt.Sprintf("session of broker %d expired", id)})
	m.zk.delete("/brokers/ids/" + strconv.Itoa(id))
	m.zk.deleteEphemerals(brokerSession(id))
	if m.controller == id {
		m.controller = 0
		m.electController()
		return
	}
	m.notifyController(func() { m.onBrokerFailure(id) })
}

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

func (m *metadata) live(id int) bool {
	_, ok := m.registered[id]
	return ok && id != m.failing
}

func (m *metadata) registeredIDs() []int {
	var ids []int
	for id := range m.registered {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	return ids
}

// ctrlNode is the host the controller runs on.
func (m *metadata) ctrlNode() *node {
	if m.kraft {
		return m.node
	}
	if b := m.c.Broker(m.controller); b != nil {
		return b.node
	}
	return nil
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

func (m *metadata) onControllerFailover() {
	for id, reg := range m.registered { // order-free
		m.known[id] = reg
	}
	var all []*Partition
	for _, t := range m.c.order {
		all = append(all, t.Partitions...)
	}
	// Dead replicas leave the ISR; offline partitions get a leader if possible.
	m.handleOffline(all)
	m.propagate(all, nil) // a new controller sends everyone the full state
}

// onBrokerStartup sends the returning broker its partitions (it becomes a
// follower, or leader of partitions nobody could lead) and tells everyone.
//
// The returning broker gets the state of every partition, not only its
// own (KafkaController.onBrokerStartup sends it UpdateMetadata for all
// partitions; a KRaft broker replays the whole metadata log): its metadata
// cache answers clients, and one that knew only its own partitions would
// tell a consumer group leader that a topic has fewer partitions than it
// has, leaving the others unassigned.
func (m *metadata) onBrokerStartup(id int) {
	if reg, ok := m.registered[id]; ok {
		m.known[id] = reg
	}
	var mine, all []*Partition
	for _, t := range m.c.order {
		for _, p := range t.Partitions {
			all = append(all, p)
			if contains(p.Replicas, id) {
				mine = append(mine, p)
			}
		}
	}
	m.electOffline(mine)
	var others []int
	for _, b := range m.registeredIDs() {
		if b != id {
			others = append(others, b)
		}
	}
	m.propagate(all, []int{id})
	if len(others) > 0 {
		m.propagate(mine, others)
	}
}

// onBrokerFailure moves leaderships away from a dead broker and removes it
// from every ISR.
//
// With broker epochs (KIP-380, 2.2+) the controller handles the failure
// even if the broker has registered again by the time the watch arrives
// (a fast bounce: its old session expired and the restarted process took
// /brokers/ids/N in the same instant): the new process must not keep its
// old leaderships and ISR places, whatever its log lost. Before 2.2 the
// controller only compared sets of live ids and missed such a bounce
// (KAFKA-1120).
func (m *metadata) onBrokerFailure(id int) {
	if m.c.preset.brokerEpochs {
		m.failing = id
		defer func() { m.failing = 0 }()
	}
	delete(m.known, id)
	var affected []*Partition
	for _, t := range m.c.order {
		for _, p := range t.Partitions {
			if p.state.leader == id || contains(p.state.isr, id) {
				affected = append(affected, p)
			}
		}
	}
	m.propagate(m.handleOffline(affected), nil)
}

// handleOffline removes dead brokers from ISRs and elects new leaders where
// the leader is dead, returning the partitions whose state changed.
func (m *metadata) handleOffline(parts []*Partition) []*Partition {
	var changed []*Partition
	for _, p := range parts {
		st := p.state
		leaderDead := st.leader != -1 && !m.live(st.leader)
		isr := m.liveISR(st.isr)
		switch {
		case leaderDead || st.leader == -1:
			if m.elect(p, "leader offline") {
				changed = append(changed, p)
			}
		case len(isr) != len(st.isr):
			m.writeState(p, pstate{leader: st.leader, epoch: m.isrRemovalEpoch(st.epoch), isr: isr, version: st.version + 1}, "dead replica removed from ISR")
			changed = append(changed, p)
		}
	}
	return changed
}

// electOffline elects leaders for offline partitions among parts.
func (m *metadata) electOffline(parts []*Partition) {
	for _, p := range parts {
		if p.state.leader == -1 {
			m.elect(p, "broker returned")
		}
	}
}

// isrRemovalEpoch: the ZK controller's removeReplicasFromIsr writes
// LeaderAndIsr.newLeaderAndIsr, which bumps the leader epoch; KRaft bumps
// only the partition epoch when the ISR shrinks.
func (m *metadata) isrRemovalEpoch(e int32) int32 {
	if m.kraft {
		return e
	}
	return e + 1
}

func (m *metadata) liveISR(isr []int) []int {
	var out []int
	for _, id := range isr {
		if m.live(id) {
			out = append(out, id)
		}
	}
	return out
}

// elect runs Kafka's offline-partition election
// (PartitionLeaderElectionAlgorithms.offlinePartitionLeaderElection): the
// first replica in assignment order that is live and in the ISR; else, if
// unclean election is enabled, the first live replica; else no leader.
// Kafka keeps the last ISR member when nobody can lead.
func (m *metadata) elect(p *Partition, why string) bool {
	st := p.state
	live := m.liveISR(st.isr)
	leader, unclean := -1, false
	for _, r := range p.Replicas {
		if m.live(r) && contains(live, r) {
			leader = r
			break
		}
	}
	if leader == -1 && p.Topic.conf.unclean {
		for _, r := range p.Replicas {
			if m.live(r) {
				leader, unclean = r, true
				break
			}
		}
	}
	if leader == -1 {
		if st.leader == -1 {
			return false
		}
		isr := live
		if len(isr) == 0 {
			isr = st.isr[len(st.isr)-1:]
			if len(st.isr) == 0 {
				isr = nil
			}
		}
		m.writeState(p, pstate{leader: -1, epoch: st.epoch + 1, isr: isr, version: st.version + 1}, why+": no eligible leader, partition offline")
		m.c.emit(Event{Type: EvLeader, Partition: p.Name, Topic: p.Topic.Name, Leader: -1, Epoch: p.state.epoch, ISR: p.ISR(), Detail: "offline: no live replica in the ISR"})
		return true
	}
	isr := live
	if unclean {
		isr = []int{leader}
	}
	m.writeState(p, pstate{leader: leader, epoch: st.epoch + 1, isr: isr, version: st.version + 1}, why)
	detail := "clean election (" + why + ")"
	if unclean {
		detail = "UNCLEAN election: leader was not in the ISR (" + why + ")"
	}
	m.c.emit(Event{Type: EvLeader, Partition: p.Name, Topic: p.Topic.Name, Leader: leader, Epoch: p.state.epoch, ISR: p.ISR(), Unclean: unclean, Detail: detail})
	return true
}

// writeState stores a partition's new state (the state znode, or a
// PartitionChangeRecord).
func (m *metadata) writeState(p *Partition, st pstate, why string) {
	p.state = st
	if m.kraft {
		m.log(fmt.Sprintf("PartitionChangeRecord %s leader=%d leaderEpoch=%d isr=%s partitionEpoch=%d (%s)", p.Name, st.leader, st.epoch, joinInts(st.isr), st.version, why))
		return
	}
	path := statePath(p)
	data := stateZNode(st, m.ctrlEpoch)
	if m.zk.exists(path) {
		m.zk.set(path, data)
	} else {
		m.zk.create(path, data, "")
	}
}

// brokerSession names broker id's ZooKeeper session (the owner of its
// ephemeral znodes).
func brokerSession(id int) string { return "broker " + strconv.Itoa(id) }

func statePath(p *Partition) string {
	return fmt.Sprintf("/brokers/topics/%s/partitions/%d/state", p.Topic.Name, p.ID)
}

// stateZNode is the partition state znode as Kafka writes it.
func stateZNode(st pstate, ctrlEpoch int) string {
	return fmt.Sprintf(`{"controller_epoch":%d,"leader":%d,"version":1,"leader_epoch":%d,"isr":[%s]}`, ctrlEpoch, st.leader, st.epoch, joinInts(st.isr))
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

func contains(v []int, x int) bool {
	for _, y := range v {
		if y == x {
			return true
		}
	}
	return false
}

// propagate sends the current state of parts: each live broker gets one
// message listing them all (LeaderAndIsr for the partitions it hosts,
// UpdateMetadata for the rest; in KRaft, the metadata records it fetches).
func (m *metadata) propagate(parts []*Partition, only []int) {
	from := m.ctrlNode()
	if from == nil || len(parts) == 0 {
		return
	}
	ups := make([]partUpdate, 0, len(parts))
	seen := map[*Partition]bool{}
	for _, p := range parts {
		if !seen[p] {
			seen[p] = true
			ups = append(ups, partUpdate{p: p, st: p.state.clone()})
		}
	}
	kind := "LeaderAndIsr"
	if m.kraft {
		kind = "MetadataUpdate"
	}
	for _, id := range m.registeredIDs() {
		if only != nil && !contains(only, id) || !m.kraft && m.known[id] != m.registered[id] {
			continue
		}
		// To the registered process: one that restarted and has not
		// registered again takes no controller requests yet (a broker
		// serves requests once its startup, registration included, is done).
		m.sendState(m.c.Broker(id), m.registered[id]-1, kind, ups)
	}
}

// Resend intervals of a state update that did not arrive: a ZK-mode
// controller's RequestSendThread waits controller.socket.timeout.ms for
// the response, then reconnects and sends the request again, for as long
// as the broker is live; a KRaft broker fetches the metadata log
// continuously, so it has what it missed soon after the network heals.
const (
	zkStateResendMs    = 30_000
	kraftStateResendMs = 1_000
)

// sendState sends ups to broker b and sends them again until they arrive,
// while b's session (this incarnation) and this controller last. Without
// the resend, an update dropped by a network split is never delivered and
// a deposed leader keeps leading its old epoch after the split heals. A
// resend carries the partitions' state as it is then (what a KRaft broker
// would read from the log): the old state would roll back an ISR change
// the leader has made since, and its next change would be refused
// (INVALID_UPDATE_VERSION) forever.
//
// inc is the broker process the update is for (the controller sends to
// itself over the network too): a process that died meanwhile gets
// nothing, and its successor gets its state when it registers.
func (m *metadata) sendState(b *Broker, inc int, kind string, ups []partUpdate) {
	ctrl, epoch := m.controller, m.ctrlEpoch
	arrived := false
	m.c.net.send(m.ctrlNode(), b.node, kind, func() {
		arrived = true
		if b.incarnation == inc {
			b.onLeaderAndIsr(ups, epoch)
		}
	}, nil)
	again := func() {
		if !arrived && b.incarnation == inc && m.registered[b.ID] == inc+1 && m.controller == ctrl && m.ctrlEpoch == epoch && m.ctrlNode() != nil {
			now := make([]partUpdate, len(ups))
			for i, u := range ups {
				now[i] = partUpdate{p: u.p, st: u.p.state.clone()}
			}
			m.sendState(b, inc, kind, now)
		}
	}
	if m.kraft {
		m.c.after(kraftStateResendMs, again)
	} else {
		m.c.Broker(ctrl).after(zkStateResendMs, again) // the controller broker's own thread
	}
}

// partUpdate is one partition's state as sent to brokers.
type partUpdate struct {
	p  *Partition
	st pstate
}

// alterISR applies a leader's ISR change if it is based on the current
// state (same leader epoch and version), as AlterPartition (2.7+) or the ZK
// conditional write (before) does. It returns the new version or an error name.
func (m *metadata) alterISR(p *Partition, leader int, epoch, version int32, isr []int) (int32, string) {
	st := p.state
	switch {
	case st.leader != leader || st.epoch != epoch:
		return 0, "FENCED_LEADER_EPOCH"
	case sameSet(st.isr, isr):
		// Already so (the answer to an earlier request was lost): answer
		// with the current version (KafkaController.processAlterIsr: "If a
		// partition is already in the desired state, just return it"). A
		// leader refused here would retry with its old version forever.
		return st.version, ""
	case st.version != version:
		return 0, "INVALID_UPDATE_VERSION"
	}
	for _, id := range isr {
		if id != leader && !m.live(id) && m.kraft {
			return 0, "INELIGIBLE_REPLICA"
		}
	}
	m.writeState(p, pstate{leader: leader, epoch: epoch, isr: append([]int(nil), isr...), version: version + 1}, "ISR change by leader")
	return p.state.version, ""
}

// allocatePID hands out a producer id (ZK: a block from
// /latest_producer_id_block; KRaft: AllocateProducerIds).
func (m *metadata) allocatePID() int64 {
	id := m.nextPID
	m.nextPID++
	return id
}

// topicCreated records a new topic's assignment and partition states: the
// topic znode and state znodes, or TopicRecord and PartitionRecords.
func (m *metadata) topicCreated(t *Topic, parts []*Partition) {
	if m.kraft {
		if parts[0].ID == 0 {
			m.log(fmt.Sprintf("TopicRecord name=%s", t.Name))
		}
		for _, p := range parts {
			m.log(fmt.Sprintf("PartitionRecord %s replicas=%s isr=%s leader=%d leaderEpoch=%d", p.Name, joinInts(p.Replicas), joinInts(p.state.isr), p.state.leader, p.state.epoch))
		}
		return
	}
	var b strings.Builder
	b.WriteString(`{"version":2,"partitions":{`)
	for i, p := range t.Partitions {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"%d":[%s]`, p.ID, joinInts(p.Replicas))
	}
	b.WriteString(`},"adding_replicas":{},"removing_replicas":{}}`)
	m.zk.set("/brokers/topics/"+t.Name, b.String())
	for _, p := range parts {
		m.zk.create(statePath(p), stateZNode(p.state, m.ctrlEpoch), "")
	}
}

// afterISRChange tells the other brokers about a leader's ISR change
// (UpdateMetadata after the ISR change notification; KRaft: the record).
func (m *metadata) afterISRChange(p *Partition, leader int) {
	var others []int
	for _, id := range m.registeredIDs() {
		if id != leader {
			others = append(others, id)
		}
	}
	m.propagate([]*Partition{p}, others)
}

// sameSet reports whether two lists of broker ids hold the same ids.
func sameSet(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !contains(b, x) {
			return false
		}
	}
	return true
}
