package core

import (
	"fmt"
	"sort"
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
	registered map[int]int   // broker -> its incarnation+1 (ZK: /brokers/ids/N exists; KRaft: registered, fenced or not)
	fenced     map[int]bool  // KRaft: registered brokers whose session lapsed (they still get metadata)
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
	watchSeq  int           // ids of watch events
	balance   deferredCheck // automatic preferred leader elections
	unclean   deferredCheck // KRaft unclean election checks
}

const maxMetadataRecords = 10_000

func newMetadata(c *Cluster) *metadata {
	m := &metadata{c: c, kraft: c.mode == "kraft", registered: map[int]int{}, fenced: map[int]bool{}, lastBeat: map[int]int64{}, known: map[int]int{}}
	if m.kraft {
		m.node = c.net.add("controller", nil)
	} else {
		m.node = c.net.add("zk", nil)
		m.zk = newZKTree(c)
	}
	return m
}

func (m *metadata) start() {
	if !m.kraft {
		// Brokers create their persistent paths at startup (ZkData's
		// PersistentZkPaths; ZkUtils' in 0.8), the old consumers' "/consumers"
		// first: it stays empty unless ZooKeeper-based consumers register.
		m.zk.create("/consumers", "", "")
		m.zk.create("/brokers/ids", "", "")
		m.zk.create("/brokers/topics", "", "")
		m.zk.create("/controller_epoch", "0", "")
	}
}

func (m *metadata) log(rec string) {
	m.recOffset++
	m.records = append(m.records, fmt.Sprintf("%d %s", m.recOffset, rec))
	if len(m.records) > maxMetadataRecords {
		m.records = m.records[len(m.records)-maxMetadataRecords/2:]
	}
}

// live reports whether broker id may lead and be in ISRs: registered (a
// ZooKeeper session) or, in KRaft, registered and unfenced.
func (m *metadata) live(id int) bool {
	_, ok := m.registered[id]
	return ok && !m.fenced[id] && id != m.failing
}

// liveIDs are the live brokers in id order.
func (m *metadata) liveIDs() []int {
	var ids []int
	for _, id := range m.registeredIDs() {
		if m.live(id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// registeredIDs are the registered brokers in id order (KRaft: fenced
// ones too; they fetch the metadata log like the others).
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

// controllerUp reports whether the controller can act: always in KRaft;
// in ZK mode when the controller broker's process runs unpaused.
func (m *metadata) controllerUp() bool {
	if m.kraft {
		return true
	}
	b := m.c.Broker(m.controller)
	return b != nil && b.state == stateUp
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
			m.log(fmt.Sprintf("PartitionRecord %s replicas=%s isr=%s leader=%d leaderEpoch=%d", p.Name, joinInts(p.replicas), joinInts(p.state.isr), p.state.leader, p.state.epoch))
		}
		m.maybeScheduleBalance()
		m.maybeScheduleUnclean()
		return
	}
	var b strings.Builder
	b.WriteString(`{"version":2,"partitions":{`)
	for i, p := range t.parts {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"%d":[%s]`, p.ID, joinInts(p.replicas))
	}
	b.WriteString(`},"adding_replicas":{},"removing_replicas":{}}`)
	m.zk.set("/brokers/topics/"+t.Name, b.String())
	for _, p := range parts {
		m.zk.create(statePath(p), stateZNode(p.state, m.ctrlEpoch), "")
	}
}
