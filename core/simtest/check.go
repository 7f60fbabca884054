package simtest

import (
	"fmt"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/check"
	"github.com/kafkasim/kafkasim/core/log"
)

// fullCheckEvery is how often (in steps) the incremental checker is backed
// up by the whole of check.All; it also runs after the last step.
const fullCheckEvery = 16

// checker runs the invariant checks after each step. check.All rescans
// every record, replica and delivery each time, which costs more than the
// step itself on long runs; checker keeps what it has verified and looks
// only at what changed: new history entries, partitions whose leader or
// log changed, offsets that became committed. TestIncrementalMatchesFull
// holds it to check.All's verdicts, step by step.
type checker struct {
	kinds map[Kind]bool
	steps int
	// explained: the first finding of each kind that Kafka itself
	// explains (check.Violation.Explained), which is no violation
	explained map[Kind]*Violation

	nSent, nCons, nCommits int
	sentCount              map[string]int
	unresolved             []int // sent ids neither acked nor failed yet

	parts map[string]*partState

	// reorder: acked records (acks != 0, known offset) by producer and
	// partition, in send order
	byProducer map[prodPart][]int
	dirtyPP    map[prodPart]bool

	// deliveries
	seenOff   map[groupPart]map[int64]bool
	lastOff   map[consPart]int64
	redeliver map[groupPart]bool

	// offset regressions
	commits   map[groupPart][]core.CommitRecord // in log order
	regressed map[groupPart]bool
}

type prodPart struct{ producer, partition string }
type groupPart struct{ owner, partition string }
type consPart struct {
	consumer, partition string
	session             int
}

// partState is what the checker knows of one partition.
type partState struct {
	p *core.Partition

	// lost: acked records judged for loss (in ack discovery order), how
	// many have been judged, those found lost, and the leader they were
	// judged on
	acked  []int
	judged int
	lostID map[int]bool
	leader leaderMark

	// duplicates: the leader counted, up to which offset, and the counts
	dup       leaderMark
	dupCursor int64
	dups      *check.Copies // the committed log's values below dupCursor

	// divergence: per replica its log as last seen, per pair the offset
	// up to which the two agree
	seen map[*core.Replica]logMark
	done map[[2]*core.Replica]int64
}

// leaderMark is the leader a check last looked at: while it stays the
// leader in the same epoch with the same log start and a log that did not
// shrink, its log has only grown at the end.
type leaderMark struct {
	r     *core.Replica
	epoch int32
	start int64
	leo   int64
}

// same reports whether r (leading in epoch) is still the leader m saw,
// having only appended since.
func (m leaderMark) same(r *core.Replica) bool {
	if r == nil || r != m.r {
		return false
	}
	_, epoch := r.LeaderView()
	l := r.Log()
	return epoch == m.epoch && l.StartOffset() == m.start && l.LEO() >= m.leo
}

func markLeader(r *core.Replica) leaderMark {
	_, epoch := r.LeaderView()
	return leaderMark{r: r, epoch: epoch, start: r.Log().StartOffset(), leo: r.Log().LEO()}
}

// logMark is how a replica's log looked: a later look tells whether it was
// rewritten (truncated, possibly grown again) since.
type logMark struct {
	start, leo int64
	last       *log.Batch // the batch holding offset leo-1
}

func newChecker(safe bool) *checker {
	ck := &checker{kinds: map[Kind]bool{}, explained: map[Kind]*Violation{}, sentCount: map[string]int{}, parts: map[string]*partState{},
		byProducer: map[prodPart][]int{}, dirtyPP: map[prodPart]bool{},
		seenOff: map[groupPart]map[int64]bool{}, lastOff: map[consPart]int64{}, redeliver: map[groupPart]bool{},
		commits: map[groupPart][]core.CommitRecord{}, regressed: map[groupPart]bool{}}
	kinds := UnsafeKinds
	if safe {
		kinds = SafeKinds
	} else {
		kinds = append(append([]Kind(nil), check.Kinds...), Liveness)
	}
	for _, k := range kinds {
		ck.kinds[k] = true
	}
	return ck
}

// check returns the violations (of enabled kinds) the state shows after
// step, the first of each kind, in check.All's order. final says this is
// the last step: the full check runs too.
func (ck *checker) check(c *core.Cluster, step int, final bool) []*Violation {
	ck.steps++
	vs := ck.incremental(c)
	if !unexplained(vs) && (final || ck.steps%fullCheckEvery == 0) {
		vs = check.All(c)
	}
	var out []*Violation
	seen := map[Kind]bool{}
	for _, v := range vs {
		if !ck.kinds[v.Kind] {
			continue
		}
		if v.Explained != "" {
			// Kafka's own behaviour (check.BumpExplains): counted, not a
			// violation.
			if ck.explained[v.Kind] == nil {
				ck.explained[v.Kind] = &Violation{Kind: v.Kind, Step: step, Detail: v.String(), What: string(v.Kind)}
			}
			continue
		}
		if !seen[v.Kind] {
			seen[v.Kind] = true
			out = append(out, &Violation{Kind: v.Kind, Step: step, Detail: v.String(), What: string(v.Kind)})
		}
	}
	return out
}

// unexplained reports whether vs holds a violation Kafka does not explain.
func unexplained(vs []check.Violation) bool {
	for _, v := range vs {
		if v.Explained == "" {
			return true
		}
	}
	return false
}

// incremental returns the violations the state shows now, in check.All's
// order of kinds.
func (ck *checker) incremental(c *core.Cluster) []check.Violation {
	h := c.History()
	ck.readSent(c, h)
	var out []check.Violation
	lost := map[int]bool{}
	lostOut := ck.lost(c, lost)
	out = append(out, lostOut...)
	out = append(out, ck.divergences(c)...)
	out = append(out, ck.reorders(h, lost)...)
	out = append(out, ck.duplicates(c)...)
	out = append(out, ck.deliveries(h)...)
	out = append(out, ck.regressions(h)...)
	return out
}

// part returns the state of partition name, or nil if there is none.
func (ck *checker) part(c *core.Cluster, name string) *partState {
	ps := ck.parts[name]
	if ps == nil {
		p, err := c.Partition(name)
		if err != nil {
			return nil
		}
		ps = &partState{p: p, seen: map[*core.Replica]logMark{}, done: map[[2]*core.Replica]int64{}}
		ck.parts[name] = ps
	}
	return ps
}

// readSent takes in new sends and new acknowledgements.
func (ck *checker) readSent(c *core.Cluster, h *core.History) {
	for ; ck.nSent < len(h.Sent); ck.nSent++ {
		ck.sentCount[h.Sent[ck.nSent].Value]++
		ck.unresolved = append(ck.unresolved, ck.nSent)
	}
	keep := ck.unresolved[:0]
	for _, id := range ck.unresolved {
		s := &h.Sent[id]
		switch {
		case s.Acked:
			if s.Acks != 0 && s.Offset >= 0 {
				if ps := ck.part(c, s.Partition); ps != nil {
					ps.acked = append(ps.acked, id)
				}
			}
			if s.Offset >= 0 {
				k := prodPart{s.Producer, s.Partition}
				ck.byProducer[k] = insertByID(ck.byProducer[k], id)
				ck.dirtyPP[k] = true
			}
		case s.Err == "":
			keep = append(keep, id)
		}
	}
	ck.unresolved = keep
}

func insertByID(ids []int, id int) []int {
	i := len(ids)
	for i > 0 && ids[i-1] > id {
		i--
	}
	ids = append(ids, 0)
	copy(ids[i+1:], ids[i:])
	ids[i] = id
	return ids
}

// lost is check.LostViolations: acknowledged records whose offset on the
// current leader no longer holds them. When the leader is the one last
// looked at and has only appended since (see leaderMark), only new
// acknowledgements and the records already found lost (whose offsets may
// have been filled since) are judged again; else all of them. lost
// collects the ids found lost (the reorder check skips them).
func (ck *checker) lost(c *core.Cluster, lost map[int]bool) []check.Violation {
	h := c.History()
	var out []check.Violation
	for _, t := range c.Topics() {
		for _, p := range t.Partitions() {
			ps := ck.parts[p.Name]
			if ps == nil || len(ps.acked) == 0 {
				continue
			}
			r := c.LeaderReplica(p)
			if r == nil {
				// Not judged without a leader.
				ck.relost(h, ps, nil)
				ps.leader, ps.judged = leaderMark{}, 0
				continue
			}
			l := r.Log()
			judge := func(id int) bool {
				s := &h.Sent[id]
				if s.Offset < l.StartOffset() {
					return false
				}
				rec, _, ok := l.At(s.Offset)
				return !ok && !l.Compacted(s.Offset) || ok && rec.Value != s.Value
			}
			now := map[int]bool{}
			if ps.leader.same(r) {
				for id := range ps.lostID {
					if judge(id) {
						now[id] = true
					}
				}
				for _, id := range ps.acked[ps.judged:] {
					if judge(id) {
						now[id] = true
					}
				}
			} else {
				for _, id := range ps.acked {
					if judge(id) {
						now[id] = true
					}
				}
			}
			ps.judged, ps.leader = len(ps.acked), markLeader(r)
			ck.relost(h, ps, now)
			if len(now) == 0 {
				continue
			}
			var vals []string
			for _, id := range ps.acked { // in ack discovery order; check lists send order
				if now[id] {
					lost[id] = true
				}
			}
			for id := range h.Sent {
				if now[id] {
					vals = append(vals, h.Sent[id].Value)
				}
			}
			out = append(out, check.Violation{Kind: check.Lost, Partition: p.Name, Values: vals, Detail: "acknowledged, no longer in the log"})
		}
	}
	return out
}

// relost replaces a partition's lost set, marking the producer-partitions
// whose lost records changed for the reorder check.
func (ck *checker) relost(h *core.History, ps *partState, now map[int]bool) {
	for id := range ps.lostID {
		if !now[id] {
			ck.dirtyPP[prodPart{h.Sent[id].Producer, ps.p.Name}] = true
		}
	}
	for id := range now {
		if !ps.lostID[id] {
			ck.dirtyPP[prodPart{h.Sent[id].Producer, ps.p.Name}] = true
		}
	}
	ps.lostID = now
}

// divergences is check.Divergences: every pair of replicas agrees below
// the smaller of their high watermarks. Each pair remembers up to where
// it was compared; a replica whose log was rewritten since (its start
// moved, its end went back, or the batch at its old end is not the one
// seen there) has its pairs compared from the start again.
func (ck *checker) divergences(c *core.Cluster) []check.Violation {
	var out []check.Violation
	for _, t := range c.Topics() {
		for _, p := range t.Partitions() {
			ps := ck.part(c, p.Name)
			var reps []*core.Replica
			var ids []int
			for _, id := range p.Replicas() {
				if r := c.Broker(id).Replica(p); r != nil {
					reps = append(reps, r)
					ids = append(ids, id)
				}
			}
			for _, r := range reps {
				l := r.Log()
				m, ok := ps.seen[r]
				if ok && (m.start != l.StartOffset() || l.LEO() < m.leo || m.leo > 0 && batchAt(l, m.leo-1) != m.last) {
					for k := range ps.done {
						if k[0] == r || k[1] == r {
							delete(ps.done, k)
						}
					}
				}
				nm := logMark{start: l.StartOffset(), leo: l.LEO()}
				if nm.leo > 0 {
					nm.last = batchAt(l, nm.leo-1)
				}
				ps.seen[r] = nm
			}
			for i := 0; i < len(reps); i++ {
				for j := i + 1; j < len(reps); j++ {
					if v, ok := ck.comparePair(ps, p, reps[i], reps[j], ids[i], ids[j]); ok {
						out = append(out, v)
					}
				}
			}
		}
	}
	return out
}

func batchAt(l log.View, off int64) *log.Batch {
	_, b, _ := l.At(off)
	return b
}

func (ck *checker) comparePair(ps *partState, p *core.Partition, a, b *core.Replica, ida, idb int) (check.Violation, bool) {
	la, lb := a.Log(), b.Log()
	k := [2]*core.Replica{a, b}
	from := max(la.StartOffset(), lb.StartOffset(), ps.done[k])
	to := min(a.HW(), b.HW(), la.LEO(), lb.LEO())
	if v, ok := check.FirstDivergence(p.Name, la, lb, ida, idb, from, to); ok {
		return v, true
	}
	if to > ps.done[k] {
		ps.done[k] = to
	}
	return check.Violation{}, false
}

// reorders is check.Reorders for the producer-partitions whose acked
// records or lost records changed.
func (ck *checker) reorders(h *core.History, lost map[int]bool) []check.Violation {
	var out []check.Violation
	for k := range ck.dirtyPP {
		delete(ck.dirtyPP, k)
		var last *core.SentRecord
		for _, id := range ck.byProducer[k] {
			s := &h.Sent[id]
			if lost[id] {
				continue
			}
			if last != nil && s.Offset < last.Offset {
				out = append(out, check.Violation{Kind: check.Reorder, Partition: s.Partition, Values: []string{last.Value, s.Value},
					Detail: fmt.Sprintf("%s sent %s before %s, but they are at offsets %d and %d", s.Producer, last.Value, s.Value, last.Offset, s.Offset)})
			}
			if last == nil || s.Offset > last.Offset {
				last = s
			}
		}
	}
	return out
}

// duplicates is check.Duplicates for the topics producers write (the
// internal topics hold no sent value): per partition the leader's
// committed log is counted once, and again from the start only when the
// leader, its epoch or its log start changed, or its log shrank.
func (ck *checker) duplicates(c *core.Cluster) []check.Violation {
	var out []check.Violation
	for _, t := range c.Topics() {
		if t.Internal {
			continue
		}
		for _, p := range t.Partitions() {
			ps := ck.part(c, p.Name)
			r := c.LeaderReplica(p)
			if r == nil {
				ps.dups, ps.dupCursor = nil, 0
				continue
			}
			l := r.Log()
			if ps.dups == nil || !ps.dup.same(r) {
				ps.dups, ps.dupCursor = &check.Copies{}, l.StartOffset()
			}
			ps.dup = markLeader(r)
			hw := r.HW()
			for _, b := range l.Batches(ps.dupCursor) {
				for i := range b.Len() {
					off := b.Offset(i)
					if off < ps.dupCursor {
						continue
					}
					if off >= hw {
						break
					}
					ps.dups.Add(b.Record(i).Value, b)
					ps.dupCursor = off + 1
				}
				if ps.dupCursor >= hw {
					break
				}
			}
			out = append(out, ps.dups.Violations(p.Name, ck.sentCount)...)
		}
	}
	return out
}

// deliveries is check.Deliveries over the new deliveries.
func (ck *checker) deliveries(h *core.History) []check.Violation {
	var order, redeliv []check.Violation
	for ; ck.nCons < len(h.Consumed); ck.nCons++ {
		d := &h.Consumed[ck.nCons]
		owner := d.Group
		if owner == "" {
			owner = "consumer " + d.Consumer
		}
		g := groupPart{owner, d.Partition}
		if ck.seenOff[g] == nil {
			ck.seenOff[g] = map[int64]bool{}
		}
		if ck.seenOff[g][d.Offset] && !ck.redeliver[g] {
			ck.redeliver[g] = true
			redeliv = append(redeliv, check.Violation{Kind: check.Redelivery, Partition: d.Partition, Values: []string{d.Value},
				Detail: owner + " received these offsets more than once"})
		}
		ck.seenOff[g][d.Offset] = true
		k := consPart{d.Consumer, d.Partition, d.Session}
		if prev, ok := ck.lastOff[k]; ok && d.Offset <= prev {
			order = append(order, check.Violation{Kind: check.DeliveryOrder, Partition: d.Partition, Values: []string{d.Value},
				Detail: fmt.Sprintf("%s got offset %d after offset %d", d.Consumer, d.Offset, prev)})
		}
		ck.lastOff[k] = d.Offset
	}
	return append(order, redeliv...)
}

// regressions is check.OffsetRegressions over the new commits: each goes
// into its group partition's list in log order, and is checked against
// its neighbours there (a commit reported late sits before later ones).
// An expiry (Offset -1) is never a regression, nor is the commit after it.
func (ck *checker) regressions(h *core.History) []check.Violation {
	var out []check.Violation
	for ; ck.nCommits < len(h.Commits); ck.nCommits++ {
		cm := h.Commits[ck.nCommits]
		k := groupPart{cm.Group, cm.Partition}
		cs, at := check.InsertInLogOrder(ck.commits[k], cm)
		ck.commits[k] = cs
		if ck.regressed[k] {
			continue
		}
		switch {
		case at > 0 && cm.Offset >= 0 && cm.Offset < cs[at-1].Offset && !check.ResetExplains(h, cs[:at], cm):
			ck.regressed[k] = true
			out = append(out, check.RegressionAt(cs[at-1], cm))
		case at+1 < len(cs) && cs[at+1].Offset >= 0 && cs[at+1].Offset < cm.Offset && !check.ResetExplains(h, cs[:at+1], cs[at+1]):
			ck.regressed[k] = true
			out = append(out, check.RegressionAt(cm, cs[at+1]))
		}
	}
	return out
}
