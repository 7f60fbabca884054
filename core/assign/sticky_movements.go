package assign

import "slices"

// movePair is ConsumerPair: a net move of a partition from src to dst.
type movePair struct{ src, dst string }

// movements is PartitionMovements: the net source and destination of every
// partition moved so far in one general assignment, indexed by topic.
type movements struct {
	byPartition map[TopicPartition]movePair
	byTopic     map[string]map[movePair][]TopicPartition
}

func newMovements() *movements {
	return &movements{byPartition: map[TopicPartition]movePair{}, byTopic: map[string]map[movePair][]TopicPartition{}}
}

// actual returns the partition to move when tp should go from old to to: if
// some partition of tp's topic earlier moved (net) from to to old's origin,
// moving it back keeps more partitions with their original owners. Kafka
// takes an arbitrary one (HashSet order); we take the smallest.
func (m *movements) actual(tp TopicPartition, old, to string) TopicPartition {
	pairs, ok := m.byTopic[tp.Topic]
	if !ok {
		return tp
	}
	if p, moved := m.byPartition[tp]; moved {
		old = p.src
	}
	set := pairs[movePair{to, old}]
	if len(set) == 0 {
		return tp
	}
	return slices.MinFunc(set, compareTP)
}

// move records tp moving from old to to, collapsing a move back to its
// original owner into no move at all.
func (m *movements) move(tp TopicPartition, old, to string) {
	if p, moved := m.byPartition[tp]; moved {
		m.remove(tp, p)
		if p.src != to {
			m.add(tp, movePair{p.src, to})
		}
		return
	}
	m.add(tp, movePair{old, to})
}

func (m *movements) add(tp TopicPartition, p movePair) {
	m.byPartition[tp] = p
	if m.byTopic[tp.Topic] == nil {
		m.byTopic[tp.Topic] = map[movePair][]TopicPartition{}
	}
	m.byTopic[tp.Topic][p] = append(m.byTopic[tp.Topic][p], tp)
}

func (m *movements) remove(tp TopicPartition, p movePair) {
	delete(m.byPartition, tp)
	pairs := m.byTopic[tp.Topic]
	pairs[p] = removeTP(pairs[p], tp)
	if len(pairs[p]) == 0 {
		delete(pairs, p)
	}
	if len(pairs) == 0 {
		delete(m.byTopic, tp.Topic)
	}
}
