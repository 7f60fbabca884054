// Package check finds broken guarantees in a simulated cluster: acknowledged
// records that are gone, replicas whose committed prefixes differ, records
// stored out of send order or twice, and consumers that saw records twice or
// out of order. It reads the cluster and its client history; it changes
// nothing.
package check

import (
	"fmt"
	"strings"

	"github.com/kafkasim/kafkasim/core"
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
)

// Kinds lists every kind, in report order.
var Kinds = []Kind{Lost, Divergence, Reorder, Duplicate, Redelivery, DeliveryOrder}

// Violation is one broken guarantee.
type Violation struct {
	Kind      Kind
	Partition string
	Values    []string
	Detail    string
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
	return out
}

// LostRecords returns acknowledged records (acks=1 or all) whose offset on
// the partition's current leader no longer holds them, in send order.
// Records of partitions without an active leader are not judged, nor are
// records deleted by retention.
func LostRecords(c *core.Cluster) []core.SentRecord {
	var out []core.SentRecord
	h := c.History()
	for _, s := range h.Sent {
		if !s.Acked || s.Acks == 0 || s.Offset < 0 {
			continue
		}
		p, err := c.Partition(s.Partition)
		if err != nil {
			continue
		}
		r := c.LeaderReplica(p)
		if r == nil || s.Offset < r.Log().StartOffset() {
			continue
		}
		rec, _, ok := r.Log().At(s.Offset)
		if !ok || rec.Value != s.Value {
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
		for _, p := range t.Partitions {
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
	for _, id := range p.Replicas {
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
	for o := from; o < to; o++ {
		ra, ba, okA := la.At(o)
		rb, bb, okB := lb.At(o)
		if !okA || !okB {
			continue
		}
		if ra.Value != rb.Value || ra.Key != rb.Key || ba.Epoch != bb.Epoch {
			return Violation{Kind: Divergence, Partition: p.Name, Values: []string{ra.Value, rb.Value},
				Detail: fmt.Sprintf("offset %d is %q (epoch %d) on broker %d but %q (epoch %d) on broker %d, below both HWs",
					o, ra.Value, ba.Epoch, a.broker, rb.Value, bb.Epoch, b.broker)}, true
		}
	}
	return Violation{}, false
}

// Reorders finds records a producer sent to a partition in one order and
// that were acked at offsets in the other order. Lost records are left out:
// their acked offsets no longer say where they are.
func Reorders(c *core.Cluster) []Violation {
	type key struct{ producer, partition string }
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
		k := key{s.Producer, s.Partition}
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
// partition's committed log (a retry written twice).
func Duplicates(c *core.Cluster) []Violation {
	sent := map[string]int{}
	for _, s := range c.History().Sent {
		sent[s.Value]++
	}
	var out []Violation
	for _, t := range c.Topics() {
		for _, p := range t.Partitions {
			vals, err := c.CommittedLog(p)
			if err != nil {
				continue
			}
			seen := map[string]int{}
			var dups []string
			for _, v := range vals {
				seen[v]++
				if seen[v] == 2 && sent[v] == 1 {
					dups = append(dups, v)
				}
			}
			if len(dups) > 0 {
				out = append(out, Violation{Kind: Duplicate, Partition: p.Name, Values: dups, Detail: "sent once, stored more than once"})
			}
		}
	}
	return out
}

// Deliveries checks what consumers saw: per group (or ungrouped consumer)
// and partition no offset twice; per consumer, partition and session
// offsets strictly increasing.
func Deliveries(c *core.Cluster) []Violation {
	type gk struct{ owner, partition string }
	type ck struct {
		consumer, partition string
		session             int
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
		g := gk{owner, d.Partition}
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
		k := ck{d.Consumer, d.Partition, d.Session}
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
