package core

import (
	"maps"
	"slices"
)

// Snapshot is the cluster's visible state at one virtual time, JSON-
// encodable: what a renderer draws between events, what a client that
// starts watching receives before the event stream, what `print` shows
// in structured form. It is a copy; changing it changes nothing.
type Snapshot struct {
	At         int64          `json:"at"`
	Version    string         `json:"version"`
	Metadata   string         `json:"metadata"`   // "zk" or "kraft"
	Controller int            `json:"controller"` // ZK: the broker holding /controller, 0: none; KRaft: 0 (the quorum is not a broker)
	Brokers    []BrokerView   `json:"brokers"`
	Topics     []TopicView    `json:"topics"`
	Producers  []ProducerView `json:"producers"`
	Consumers  []ConsumerView `json:"consumers"`
	Groups     []GroupView    `json:"groups"`
	Conns      []ConnView     `json:"conns"` // outside clients' connections
}

// BrokerView is one broker: State is up, crashed, poweredoff or paused.
type BrokerView struct {
	ID    int    `json:"id"`
	Rack  string `json:"rack,omitempty"`
	State string `json:"state"`
}

// TopicView is one topic and its partitions.
type TopicView struct {
	Name       string          `json:"name"`
	Internal   bool            `json:"internal,omitempty"`
	Partitions []PartitionView `json:"partitions"`
	// Deleting: marked for deletion, not yet deleted (ZooKeeper mode;
	// /admin/delete_topics/<name> exists). A deleted topic is not listed.
	Deleting bool `json:"deleting,omitempty"`
}

// PartitionView is a partition as the metadata (controller) has it, and
// each replica as its broker has it. Leader is -1 while offline.
type PartitionView struct {
	Name        string        `json:"name"`
	Assignment  []int         `json:"assignment"` // preferred leader first
	Leader      int           `json:"leader"`
	LeaderEpoch int32         `json:"leaderEpoch"`
	ISR         []int         `json:"isr"`
	Replicas    []ReplicaView `json:"replicas"` // in assignment order, created ones only
}

// ReplicaView is one replica's log: Role is leader, follower or none (as
// the broker itself believes, which can lag the metadata); Flushed is
// the offset below which the log is on disk (the rest only in the page
// cache).
type ReplicaView struct {
	Broker   int    `json:"broker"`
	Role     string `json:"role"`
	LEO      int64  `json:"leo"`
	HW       int64  `json:"hw"`
	LogStart int64  `json:"logStart"`
	Flushed  int64  `json:"flushed"`
	Segments int    `json:"segments"`
}

// ProducerView is one simulated producer. Pending counts records sent
// and not yet acknowledged or failed; InFlight the requests in flight.
type ProducerView struct {
	Name          string `json:"name"`
	Acks          string `json:"acks"` // "0", "1" or "all"
	Idempotent    bool   `json:"idempotent"`
	ProducerID    int64  `json:"producerId"`
	ProducerEpoch int16  `json:"producerEpoch"`
	Pending       int    `json:"pending"`
	InFlight      int    `json:"inFlight"`
}

// ConsumerView is one simulated consumer: its assignment and, per
// assigned partition, the application's position (the next offset poll
// returns, what a commit stores), where known.
type ConsumerView struct {
	Name      string           `json:"name"`
	Group     string           `json:"group,omitempty"`
	Alive     bool             `json:"alive"`
	Assigned  []string         `json:"assigned"`
	Positions map[string]int64 `json:"positions"`
	Polled    int              `json:"polled"` // records returned by polls so far
}

// GroupView is a consumer group as its coordinator holds it (the broker
// leading its __consumer_offsets partition), or, in the 0.8 preset, as
// ZooKeeper holds it (State "zookeeper", Coordinator -1).
type GroupView struct {
	Name        string           `json:"name"`
	State       string           `json:"state"`
	Generation  int              `json:"generation"`
	Coordinator int              `json:"coordinator"`
	Protocol    string           `json:"protocol,omitempty"`
	Leader      string           `json:"leader,omitempty"` // the leader member's client
	Members     []MemberView     `json:"members"`
	Committed   map[string]int64 `json:"committed"`
}

// MemberView is one group member and the partitions it was assigned.
type MemberView struct {
	ID         string   `json:"id"`
	Client     string   `json:"client"`
	InstanceID string   `json:"instanceId,omitempty"`
	Assignment []string `json:"assignment"`
}

// Snapshot returns the cluster's visible state now.
func (c *Cluster) Snapshot() *Snapshot {
	s := &Snapshot{At: c.now, Version: c.preset.name, Metadata: c.mode, Controller: c.md.controller,
		Brokers: []BrokerView{}, Topics: []TopicView{}, Producers: []ProducerView{}, Consumers: []ConsumerView{}, Groups: []GroupView{}}
	for _, b := range c.brokers {
		s.Brokers = append(s.Brokers, BrokerView{ID: b.ID, Rack: b.Rack, State: b.State()})
	}
	for _, t := range c.order {
		tv := TopicView{Name: t.Name, Internal: t.Internal, Partitions: []PartitionView{}, Deleting: t.del != nil}
		for _, p := range t.parts {
			tv.Partitions = append(tv.Partitions, c.partitionView(p))
		}
		s.Topics = append(s.Topics, tv)
	}
	for _, name := range slices.Sorted(maps.Keys(c.producers)) {
		s.Producers = append(s.Producers, c.producers[name].view())
	}
	groups := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(c.consumers)) {
		k := c.consumers[name]
		s.Consumers = append(s.Consumers, k.view())
		if k.Group != "" {
			groups[k.Group] = true
		}
	}
	for _, b := range c.brokers {
		if b.groups != nil {
			for name := range b.groups.groups {
				groups[name] = true
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(groups)) {
		if g, ok := c.groupView(name); ok {
			s.Groups = append(s.Groups, g)
		}
	}
	s.Conns = c.ext.views()
	return s
}

func (c *Cluster) partitionView(p *Partition) PartitionView {
	pv := PartitionView{Name: p.Name, Assignment: append([]int{}, p.replicas...), Leader: p.Leader(),
		LeaderEpoch: p.LeaderEpoch(), ISR: append([]int{}, p.state.isr...), Replicas: []ReplicaView{}}
	for _, id := range p.replicas {
		r := c.brokers[id-1].replicas[p]
		if r == nil {
			continue
		}
		pv.Replicas = append(pv.Replicas, ReplicaView{Broker: id, Role: roleNames[r.role], LEO: r.log.LEO(), HW: r.hw,
			LogStart: r.log.StartOffset(), Flushed: r.log.DurableOffset(), Segments: r.log.SegmentCount()})
	}
	return pv
}

func (p *Producer) view() ProducerView {
	acks := map[int]string{0: "0", 1: "1", -1: "all"}[p.conf.acks]
	inflight := 0
	for _, n := range p.inflt {
		inflight += n
	}
	return ProducerView{Name: p.Name, Acks: acks, Idempotent: p.conf.idempotent, ProducerID: p.pid,
		ProducerEpoch: p.pepoch, Pending: p.pending, InFlight: inflight}
}

func (k *Consumer) view() ConsumerView {
	v := ConsumerView{Name: k.Name, Group: k.Group, Alive: k.alive, Assigned: []string{}, Positions: map[string]int64{}, Polled: k.polled}
	for _, p := range k.assigned {
		v.Assigned = append(v.Assigned, p.Name)
		if off, ok := k.next[p]; ok {
			v.Positions[p.Name] = off
		}
	}
	return v
}

// groupView describes a group; false if no live coordinator holds it
// (and, in the 0.8 preset, ZooKeeper knows nothing of it).
func (c *Cluster) groupView(name string) (GroupView, bool) {
	gv := GroupView{Name: name, Coordinator: -1, Members: []MemberView{}, Committed: map[string]int64{}}
	if c.preset.offsetsInZK {
		asg, ok := c.zkGroupAssignment(name)
		if !ok {
			return gv, false
		}
		gv.State = "zookeeper"
		for _, client := range slices.Sorted(maps.Keys(asg)) {
			gv.Members = append(gv.Members, MemberView{ID: client, Client: client, Assignment: append([]string{}, asg[client]...)})
		}
		for _, t := range c.order {
			for _, p := range t.parts {
				if off, ok, _ := c.GroupCommitted(name, p); ok {
					gv.Committed[p.Name] = off
				}
			}
		}
		return gv, true
	}
	g := c.group(name)
	if g == nil {
		return gv, false
	}
	gv.State, gv.Generation, gv.Coordinator, gv.Protocol = g.state.String(), g.generation, g.co.b.ID, g.protocol
	for _, m := range g.sortedMembers() {
		mv := MemberView{ID: m.id, Client: m.client, InstanceID: m.instance, Assignment: []string{}}
		for _, p := range m.assignment {
			mv.Assignment = append(mv.Assignment, p.Name)
		}
		if m.id == g.leader {
			gv.Leader = m.client
		}
		gv.Members = append(gv.Members, mv)
	}
	for p, off := range g.offsets {
		gv.Committed[p.Name] = off
	}
	return gv, true
}
