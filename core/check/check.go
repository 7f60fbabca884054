// Package check finds broken guarantees in a simulated cluster: acknowledged
// records that are gone, replicas whose committed prefixes differ, records
// stored out of send order or twice, consumers that saw records twice or
// out of order, and group offsets committed backwards. It reads the
// cluster and its client history; it changes nothing.
package check

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/log"
)

// Kind names a guarantee.
type Kind string

// Kinds of violation.
const (
	Lost          Kind = "lost"           // acked, then gone from the leader's log
	Divergence    Kind = "divergence"     // two replicas' committed prefixes differ
	Reorder       Kind = "reorder"        // a producer's records stored out of send order
	Duplicate     Kind = "duplicate"      // one send stored twice in a partition's log
	Redelivery    Kind = "redelivery"     // a group saw the same offset twice
	DeliveryOrder Kind = "delivery-order" // a consumer saw a partition out of offset order
	// OffsetRegression: a group's committed offset for a partition moved
	// backwards (a later commit stored a smaller offset than an earlier one).
	OffsetRegression Kind = "offset-regression"
)

// Kinds lists every kind, in report order.
var Kinds = []Kind{Lost, Divergence, Reorder, Duplicate, Redelivery, DeliveryOrder, OffsetRegression}

// Violation is one broken guarantee.
type Violation struct {
	Kind      Kind     `json:"kind"`
	Partition string   `json:"partition,omitempty"`
	Values    []string `json:"values,omitempty"`
	Detail    string   `json:"detail,omitempty"`
	// Explained, when set, says why Kafka itself breaks the guarantee
	// here, so the simulation tester's safe configuration does not count
	// it (see BumpExplains).
	Explained string `json:"explained,omitempty"`
}

func (v Violation) String() string {
	s := string(v.Kind)
	if v.Partition != "" {
		s += " " + v.Partition
	}
	if len(v.Values) > 0 {
		s += " " + strings.Join(v.Values, ",")
	}
	if v.Detail != "" {
		s += ": " + v.Detail
	}
	if v.Explained != "" {
		s += " (" + v.Explained + ")"
	}
	return s
}

// All runs every check.
func All(c *core.Cluster) []Violation {
	var out []Violation
	out = append(out, LostViolations(c)...)
	out = append(out, Divergences(c)...)
	out = append(out, Reorders(c)...)
	out = append(out, Duplicates(c)...)
	out = append(out, Deliveries(c)...)
	out = append(out, OffsetRegressions(c)...)
	return out
}

// LostRecords returns acknowledged records (acks=1 or all) whose offset on
// the partition's current leader no longer holds them, in send order.
// Records of partitions without an active leader are not judged, nor are
// records deleted by retention or compaction, nor records of a topic the user deleted
// (see Deleted).
func LostRecords(c *core.Cluster) []core.SentRecord {
	var out []core.SentRecord
	h := c.History()
	for _, s := range h.Sent {
		if !s.Acked || s.Acks == 0 || s.Offset < 0 {
			continue
		}
		p, err := c.Partition(s.Partition)
		if err != nil || p.Topic.Generation() != s.Gen {
			continue // deleted with its topic (by the user, not by Kafka)
		}
		r := c.LeaderReplica(p)
		if r == nil || s.Offset < r.Log().StartOffset() {
			continue
		}
		rec, _, ok := r.Log().At(s.Offset)
		if !ok && r.Log().Compacted(s.Offset) {
			continue // the log cleaner replaced it by a later record of its key
		}
		if !ok || rec.Value != s.Value {
			out = append(out, s)
		}
	}
	return out
}

// Deleted returns the acknowledged records that went with a topic the user
// deleted (topic delete, DeleteTopics): their topic is gone, marked for
// deletion, or was created again since they were written. They are not
// lost: Kafka deleted them because it was asked to.
func Deleted(c *core.Cluster) []core.SentRecord {
	var out []core.SentRecord
	for _, s := range c.History().Sent {
		if !s.Acked || s.Partition == "" {
			continue
		}
		// A topic never loses partitions but by deletion: judge the topic.
		topic, _, _ := core.SplitPartitionName(s.Partition)
		if t := c.Topic(topic); t == nil || t.Generation() != s.Gen || t.Deleting() {
			out = append(out, s)
		}
	}
	return out
}

// LostViolations reports LostRecords grouped by partition.
func LostViolations(c *core.Cluster) []Violation {
	byPart := map[string][]string{}
	var order []string
	for _, s := range LostRecords(c) {
		if byPart[s.Partition] == nil {
			order = append(order, s.Partition)
		}
		byPart[s.Partition] = append(byPart[s.Partition], s.Value)
	}
	var out []Violation
	for _, p := range order {
		out = append(out, Violation{Kind: Lost, Partition: p, Values: byPart[p], Detail: "acknowledged, no longer in the log"})
	}
	return out
}

// Divergences compares every pair of replicas of every partition below the
// smaller of their high watermarks: what both consider committed must be
// the same records.
func Divergences(c *core.Cluster) []Violation {
	var out []Violation
	for _, t := range c.Topics() {
		for _, p := range t.Partitions() {
			reps := replicas(c, p)
			for i := 0; i < len(reps); i++ {
				for j := i + 1; j < len(reps); j++ {
					if v, ok := diverge(p, reps[i], reps[j]); ok {
						out = append(out, v)
					}
				}
			}
		}
	}
	return out
}

type replica struct {
	broker int
	r      *core.Replica
}

func replicas(c *core.Cluster, p *core.Partition) []replica {
	var out []replica
	for _, id := range p.Replicas() {
		if r := c.Broker(id).Replica(p); r != nil {
			out = append(out, replica{id, r})
		}
	}
	return out
}

func diverge(p *core.Partition, a, b replica) (Violation, bool) {
	la, lb := a.r.Log(), b.r.Log()
	from := max(la.StartOffset(), lb.StartOffset())
	to := min(a.r.HW(), b.r.HW(), la.LEO(), lb.LEO())
	return FirstDivergence(p.Name, la, lb, a.broker, b.broker, from, to)
}

// FirstDivergence compares the logs la (on broker ida) and lb (on broker
// idb) of partition part over offsets [from, to), which must lie below
// both replicas' high watermarks, and reports the first offset where they
// hold a different record or one appended under a different leader epoch.
// Long values (group metadata records) are clipped in the report.
func FirstDivergence(part string, la, lb log.View, ida, idb int, from, to int64) (Violation, bool) {
	for o := from; o < to; o++ {
		ra, ba, okA := la.At(o)
		rb, bb, okB := lb.At(o)
		if !okA || !okB {
			continue
		}
		if ra.Value != rb.Value || ra.Key != rb.Key || ba.Epoch != bb.Epoch {
			va, vb := clipPair(ra.Value, rb.Value)
			return Violation{Kind: Divergence, Partition: part, Values: []string{va, vb},
				Detail: fmt.Sprintf("offset %d is %q (epoch %d) on broker %d but %q (epoch %d) on broker %d, below both HWs",
					o, va, ba.Epoch, ida, vb, bb.Epoch, idb)}, true
		}
	}
	return Violation{}, false
}

// clipLen is the longest value a divergence report quotes whole.
const clipLen = 40

// clipPair shortens two differing values (group metadata records run to
// hundreds of bytes) to a clipLen window around where they first differ,
// marking cut ends with "...".
func clipPair(a, b string) (string, string) {
	d := 0
	for d < len(a) && d < len(b) && a[d] == b[d] {
		d++
	}
	from := max(0, d-clipLen/2)
	return clip(a, from), clip(b, from)
}

func clip(v string, from int) string {
	if len(v) <= clipLen {
		return v
	}
	from = min(from, len(v))
	for from > 0 && from < len(v) && !utf8.RuneStart(v[from]) {
		from--
	}
	to := min(len(v), from+clipLen)
	for to < len(v) && !utf8.RuneStart(v[to]) {
		to--
	}
	out := v[from:to]
	if from > 0 {
		out = "..." + out
	}
	if to < len(v) {
		out += "..."
	}
	return out
}

// Reorders finds records a producer sent to a partition in one order and
// that were acked at offsets in the other order. Lost records are left out:
// their acked offsets no longer say where they are.
func Reorders(c *core.Cluster) []Violation {
	type key struct {
		producer, partition string
		gen                 int // a topic created again starts at offset 0
	}
	last := map[key]core.SentRecord{}
	lost := map[int]bool{}
	for _, s := range LostRecords(c) {
		lost[s.ID] = true // its acked offset now holds something else
	}
	var out []Violation
	for _, s := range c.History().Sent {
		if !s.Acked || s.Offset < 0 || lost[s.ID] {
			continue
		}
		k := key{s.Producer, s.Partition, s.Gen}
		if prev, ok := last[k]; ok && s.Offset < prev.Offset {
			out = append(out, Violation{Kind: Reorder, Partition: s.Partition, Values: []string{prev.Value, s.Value},
				Detail: fmt.Sprintf("%s sent %s before %s, but they are at offsets %d and %d", s.Producer, prev.Value, s.Value, prev.Offset, s.Offset)})
		}
		if prev, ok := last[k]; !ok || s.Offset > prev.Offset {
			last[k] = s
		}
	}
	return out
}

// Duplicates finds values sent once that appear more than once in a
// partition's committed log (a retry written twice). A duplicate whose
// copies an idempotent producer wrote in different producer epochs is
// reported apart, with Explained set (see BumpExplains): Kafka's own
// client writes it, even in the safe configuration.
func Duplicates(c *core.Cluster) []Violation {
	sent := map[string]int{}
	for _, s := range c.History().Sent {
		sent[s.Value]++
	}
	var out []Violation
	for _, t := range c.Topics() {
		for _, p := range t.Partitions() {
			r := c.LeaderReplica(p)
			if r == nil {
				continue
			}
			var d Copies
			l, hw := r.Log(), r.HW()
		scan:
			for _, b := range l.Batches(l.StartOffset()) {
				for i := range b.Len() {
					if b.Offset(i) >= hw {
						break scan
					}
					d.Add(b.Record(i).Value, b)
				}
			}
			out = append(out, d.Violations(p.Name, sent)...)
		}
	}
	return out
}

// BumpExplains is why a duplicate whose copies one idempotent producer
// wrote in different producer epochs is Kafka's behaviour, not a model
// bug: the Java client answers OUT_OF_ORDER_SEQUENCE_NUMBER for the batch
// after its last acknowledged one (a deposed leader that never had the
// batches before it, say) by bumping its epoch and renumbering that
// partition's batches from sequence 0 (KIP-360,
// TransactionManager.canRetry and bumpIdempotentProducerEpoch, 2.5+). A
// broker deduplicates only within one epoch (ProducerStateEntry
// .findDuplicateBatch), so a renumbered batch that another replica already
// holds under the old epoch is written again when that replica leads.
const BumpExplains = "written in two producer epochs: the idempotent producer bumped its epoch after OUT_OF_ORDER_SEQUENCE_NUMBER and renumbered the batch (KIP-360), and brokers deduplicate only within an epoch"

// Copies counts the copies of each value in a committed log and the
// producer ids and epochs of the batches holding them.
type Copies struct {
	n     map[string]int
	first map[string]idEpoch   // the first copy's batch
	more  map[string][]idEpoch // every copy's, once there are two
	order []string             // values stored twice, in the order found
}

type idEpoch struct {
	id    int64
	epoch int16
}

// Add counts one copy of value, held by batch b.
func (d *Copies) Add(value string, b *log.Batch) {
	if d.n == nil {
		d.n, d.first, d.more = map[string]int{}, map[string]idEpoch{}, map[string][]idEpoch{}
	}
	d.n[value]++
	ie := idEpoch{b.ProducerID, b.ProducerEpoch}
	switch d.n[value] {
	case 1:
		d.first[value] = ie
		return
	case 2:
		d.more[value] = []idEpoch{d.first[value]}
		d.order = append(d.order, value)
	}
	d.more[value] = append(d.more[value], ie)
}

// Violations returns the duplicates among the values counted that were
// sent once (sent counts the sends of each value): those BumpExplains
// explains in a violation of their own, with Explained set.
func (d *Copies) Violations(partition string, sent map[string]int) []Violation {
	var dups, bumped []string
	for _, v := range d.order {
		if sent[v] != 1 {
			continue
		}
		if inEpochs(d.more[v]) {
			bumped = append(bumped, v)
		} else {
			dups = append(dups, v)
		}
	}
	var out []Violation
	if len(dups) > 0 {
		out = append(out, Violation{Kind: Duplicate, Partition: partition, Values: dups, Detail: "sent once, stored more than once"})
	}
	if len(bumped) > 0 {
		out = append(out, Violation{Kind: Duplicate, Partition: partition, Values: bumped, Detail: "sent once, stored more than once", Explained: BumpExplains})
	}
	return out
}

// inEpochs reports whether the copies are one idempotent producer's, each
// in a producer epoch of its own.
func inEpochs(cs []idEpoch) bool {
	for i, a := range cs {
		if a.id < 0 || a.id != cs[0].id {
			return false
		}
		for _, b := range cs[:i] {
			if a.epoch == b.epoch {
				return false
			}
		}
	}
	return true
}

// Deliveries checks what consumers saw: per group (or ungrouped consumer)
// and partition no offset twice; per consumer, partition and session
// offsets strictly increasing.
func Deliveries(c *core.Cluster) []Violation {
	type gk struct {
		owner, partition string
		gen              int // a topic created again starts at offset 0
	}
	type ck struct {
		consumer, partition string
		session, gen        int
	}
	seen := map[gk]map[int64]bool{}
	last := map[ck]int64{}
	redelivered := map[gk][]string{}
	var order []gk
	var out []Violation
	for _, d := range c.History().Consumed {
		owner := d.Group
		if owner == "" {
			owner = "consumer " + d.Consumer
		}
		g := gk{owner, d.Partition, d.Gen}
		if seen[g] == nil {
			seen[g] = map[int64]bool{}
		}
		if seen[g][d.Offset] {
			if redelivered[g] == nil {
				order = append(order, g)
			}
			redelivered[g] = append(redelivered[g], d.Value)
		}
		seen[g][d.Offset] = true
		k := ck{d.Consumer, d.Partition, d.Session, d.Gen}
		if prev, ok := last[k]; ok && d.Offset <= prev {
			out = append(out, Violation{Kind: DeliveryOrder, Partition: d.Partition, Values: []string{d.Value},
				Detail: fmt.Sprintf("%s got offset %d after offset %d", d.Consumer, d.Offset, prev)})
		}
		last[k] = d.Offset
	}
	for _, g := range order {
		out = append(out, Violation{Kind: Redelivery, Partition: g.partition, Values: redelivered[g], Detail: g.owner + " received these offsets more than once"})
	}
	return out
}

// OffsetRegressions finds group partitions whose committed offset moved
// backwards: per group and partition, the commits in log order (see
// LogBefore), a commit smaller than the one before it that no
// auto.offset.reset explains (see ResetExplains). An expired offset
// (Offset -1: the coordinator deleted it, KIP-211) is no commit: the next
// commit starts afresh. One violation per group partition.
func OffsetRegressions(c *core.Cluster) []Violation {
	h := c.History()
	type key struct {
		group, partition string
		gen              int // a topic created again starts at offset 0
	}
	byKey := map[key][]core.CommitRecord{}
	var order []key
	for _, cm := range h.Commits {
		k := key{cm.Group, cm.Partition, cm.Gen}
		cs, ok := byKey[k]
		if !ok {
			order = append(order, k)
		}
		byKey[k], _ = InsertInLogOrder(cs, cm)
	}
	var out []Violation
	for _, k := range order {
		cs := byKey[k]
		for i := 1; i < len(cs); i++ {
			if cs[i].Offset >= 0 && cs[i].Offset < cs[i-1].Offset && !ResetExplains(h, cs[:i], cs[i]) {
				out = append(out, RegressionAt(cs[i-1], cs[i]))
				break
			}
		}
	}
	return out
}

// InsertInLogOrder inserts cm into cs, a group partition's commits in log
// order (see LogBefore), and returns the new list and cm's index in it.
func InsertInLogOrder(cs []core.CommitRecord, cm core.CommitRecord) ([]core.CommitRecord, int) {
	at := len(cs)
	for at > 0 && LogBefore(cm, cs[at-1]) {
		at--
	}
	return slices.Insert(cs, at, cm), at
}

// LogBefore reports whether commit a sits before commit b in their
// group's __consumer_offsets partition. Commits are recorded in the order
// coordinators reported them stored, which is not always the log's: a
// deposed coordinator that was paused can answer an old commit late
// (scenario group-commit-reported-late). Commits kept in ZooKeeper
// (LogOffset -1) or in different logs keep their report order.
func LogBefore(a, b core.CommitRecord) bool {
	return a.Log == b.Log && a.LogOffset >= 0 && b.LogOffset >= 0 && a.LogOffset < b.LogOffset
}

// ResetExplains reports whether a consumer of cm's group reset its
// position in cm's partition by auto.offset.reset, from a position above
// cm.Offset, after the group last committed at or below cm.Offset (in
// prior, the commits before cm in log order) and before cm. Kafka's
// consumer does this by design when a leader answers OFFSET_OUT_OF_RANGE
// (Fetcher.handleOffsetOutOfRange; scenario
// consumer-reset-from-deposed-leader), so the committed offset may go
// back without a broken guarantee.
func ResetExplains(h *core.History, prior []core.CommitRecord, cm core.CommitRecord) bool {
	since := int64(-1)
	for i := len(prior) - 1; i >= 0; i-- {
		if prior[i].Offset <= cm.Offset {
			since = prior[i].At
			break
		}
	}
	for _, r := range h.Resets {
		if r.Group == cm.Group && r.Partition == cm.Partition && r.From > cm.Offset && r.At >= since && r.At <= cm.At {
			return true
		}
	}
	return false
}

// RegressionAt is the violation for commit cm stored after prev with a
// smaller offset.
func RegressionAt(prev, cm core.CommitRecord) Violation {
	return Violation{Kind: OffsetRegression, Partition: cm.Partition,
		Detail: fmt.Sprintf("group %s committed offset %d after %d", cm.Group, cm.Offset, prev.Offset)}
}
