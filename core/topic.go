package core

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Topic is a topic's definition: its partitions and resolved configuration.
// Its exported fields are its identity, fixed at creation: read them, never
// set them (the cluster changes only through commands; Snapshot is the
// copy to keep).
type Topic struct {
	Name      string
	parts     []*Partition
	Internal  bool // __consumer_offsets
	conf      topicConf
	overrides map[string]string
	// seq is the topic's place in creation order over the cluster's life
	// (its topic id is derived from it); gen counts the topics of this
	// name deleted before it was created.
	seq, gen int
	idv      [16]byte // topicID(Name, seq), made once: Fetch v13+ checks it per partition
	// del is the ZooKeeper controller's deletion of the topic while
	// /admin/delete_topics/<name> exists (nil otherwise); deleted is set
	// once the topic is gone (ZK: its znodes removed; KRaft: its
	// RemoveTopicRecord written). A deleted topic is in no map of the
	// cluster's; what still points at it (a replica on a broker that was
	// down, a producer's batch) finds it deleted.
	del     *topicDeletion
	deleted bool
}

// Deleting reports whether the topic is marked for deletion and not yet
// deleted (ZooKeeper mode: /admin/delete_topics/<name> exists).
func (t *Topic) Deleting() bool { return t.del != nil }

// Deleted reports whether the topic was deleted.
func (t *Topic) Deleted() bool { return t.deleted }

// Generation is how many topics of this name were deleted before this
// one was created (History records carry it: SentRecord.Gen).
func (t *Topic) Generation() int { return t.gen }

// gone reports whether the topic is deleted or being deleted: its
// partitions take no elections, ISR changes or new replicas.
func (t *Topic) gone() bool { return t.deleted || t.del != nil }

// Partition is one partition's identity, assignment and the authoritative
// state the metadata service holds for it (the partition state znode in ZK
// mode, the PartitionRecord in KRaft). Brokers act on their own, possibly
// stale, copies. Its exported fields are its identity, fixed at creation:
// read-only, like Topic's.
type Partition struct {
	Topic    *Topic
	ID       int
	Name     string // "topic-N"
	replicas []int  // assignment, preferred leader first
	state    pstate
	// legacyKeys: a __consumer_offsets partition restored from a data
	// dir an older kafkasim wrote, whose records are all keyed "offset"
	// or "group" (hasLegacyOffsetKeys). Compacting by those keys would
	// keep one offset and one group of them all, so the log cleaner
	// leaves such a partition alone (it grows as it did then).
	legacyKeys bool
}

// pstate is a partition's leader, leader epoch, ISR and version (zkVersion
// or partition epoch): what elections and ISR changes write.
type pstate struct {
	leader  int // -1: offline
	epoch   int32
	isr     []int
	version int32
}

func (s pstate) clone() pstate {
	s.isr = append([]int(nil), s.isr...)
	return s
}

// Leader returns the partition's current leader per the metadata service, or -1.
func (p *Partition) Leader() int { return p.state.leader }

// LeaderEpoch returns the partition's leader epoch per the metadata service.
func (p *Partition) LeaderEpoch() int32 { return p.state.epoch }

// ISR returns the partition's ISR per the metadata service.
func (p *Partition) ISR() []int { return append([]int(nil), p.state.isr...) }

func validTopicName(name string) error {
	if name == "" || name == "." || name == ".." || len(name) > 249 {
		return fmt.Errorf("invalid topic name %q", name)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return fmt.Errorf("invalid topic name %q: legal characters are ASCII alphanumerics, '.', '_' and '-'", name)
		}
	}
	return nil
}

// placeReplicas is Kafka's ZooKeeper-era AdminUtils.assignReplicasToBrokers:
// replica 0 of partition p on brokers[(p+start)%n], follower j on
// (first + 1 + (shift+j)%(n-1)) % n, shift bumped every n partitions; with
// racks, the broker list alternates racks and followers skip racks already
// used. start and shift are random unless fixed (>= 0). KRaft's
// StripedReplicaPlacer shuffles differently but spreads the same way.
func placeReplicas(brokers []int, racks map[int]string, nParts, rf, fixedStart, firstPart int, r *rng) [][]int {
	list := brokers
	numRacks := 1
	if len(racks) > 0 {
		list, numRacks = rackAlternated(brokers, racks)
	}
	n := len(list)
	start, shift := fixedStart, fixedStart
	if fixedStart < 0 {
		start, shift = r.Intn(n), r.Intn(n)
	}
	var out [][]int
	for p := firstPart; p < firstPart+nParts; p++ {
		if p > 0 && p%n == 0 {
			shift++
		}
		first := (p + start) % n
		reps := []int{list[first]}
		if len(racks) == 0 {
			for j := 0; j < rf-1; j++ {
				reps = append(reps, list[replicaIndex(first, shift, j, n)])
			}
		} else {
			reps = rackAwareFollowers(list, racks, numRacks, reps, first, shift, rf)
		}
		out = append(out, reps)
	}
	return out
}

func replicaIndex(first, shift, j, n int) int {
	if n == 1 {
		return first
	}
	return (first + 1 + (shift+j)%(n-1)) % n
}

func rackAwareFollowers(list []int, racks map[int]string, numRacks int, reps []int, first, shift, rf int) []int {
	n := len(list)
	usedRacks := map[string]bool{racks[reps[0]]: true}
	used := map[int]bool{reps[0]: true}
	k := 0
	for len(reps) < rf {
		b := list[replicaIndex(first, shift*numRacks, k, n)]
		k++
		rk := racks[b]
		if (!usedRacks[rk] || len(usedRacks) == numRacks) && (!used[b] || len(used) == n) {
			reps = append(reps, b)
			usedRacks[rk] = true
			used[b] = true
		}
	}
	return reps
}

// rackAlternated is AdminUtils.getRackAlternatedBrokerList: racks sorted,
// brokers of each rack sorted, taken one rack at a time in turn.
func rackAlternated(brokers []int, racks map[int]string) ([]int, int) {
	byRack := map[string][]int{}
	for _, b := range brokers {
		byRack[racks[b]] = append(byRack[racks[b]], b)
	}
	names := slices.Sorted(maps.Keys(byRack))
	for _, rk := range names {
		sort.Ints(byRack[rk])
	}
	var out []int
	for i := 0; len(out) < len(brokers); i = (i + 1) % len(names) {
		q := byRack[names[i]]
		if len(q) > 0 {
			out = append(out, q[0])
			byRack[names[i]] = q[1:]
		}
	}
	return out, len(names)
}

// partitionName is partition id's name in topic: "topic-id", the name
// Kafka gives its directory and kafkasim its Partition.Name.
func partitionName(topic string, id int) string { return topic + "-" + strconv.Itoa(id) }

// SplitPartitionName is partitionName's inverse: "orders-12" is topic
// "orders" and id 12. A topic name may hold dashes, so the id is what
// follows the last one; ok is false unless name is exactly
// partitionName(topic, id) for a non-empty topic and an id >= 0 (no sign,
// no leading zero), so a name that round-trips is the only one accepted.
func SplitPartitionName(name string) (topic string, id int, ok bool) {
	i := strings.LastIndexByte(name, '-')
	if i <= 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(name[i+1:])
	if err != nil || n < 0 || strconv.Itoa(n) != name[i+1:] {
		return "", 0, false
	}
	return name[:i], n, true
}

// Partitions returns the topic's partitions in id order, in a slice of
// its own.
func (t *Topic) Partitions() []*Partition { return slices.Clone(t.parts) }

// Replicas returns the partition's assignment, preferred leader first, in
// a slice of its own.
func (p *Partition) Replicas() []int { return slices.Clone(p.replicas) }
