package core

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kafkasim/kafkasim/core/log"
)

// tombstone is the value an earlier kafkasim wrote for a deleted offset
// or group in __consumer_offsets ("g/t-0=null", "g=null"), which replay
// still reads; it now writes Kafka's own tombstone, a null value under
// the record's key (offsetKey, groupKey), which the log cleaner can drop
// after delete.retention.ms.
const tombstone = "null"

// cleanupGroupMetadata is GroupMetadataManager.cleanupGroupMetadata, run
// every offsets.retention.check.interval.ms on each broker for the groups
// it coordinates: expired offsets are dropped and a tombstone written for
// each; an Empty group left with no offsets becomes Dead and is forgotten
// (with a tombstone for its metadata unless it never had a generation).
// A consumer that later joins the group finds no committed offset and
// starts by auto.offset.reset.
func (co *coordinator) cleanupGroupMetadata() {
	c := co.b.c
	for _, id := range slices.Sorted(maps.Keys(co.groups)) {
		g := co.groups[id]
		if g.state == gsDead || !co.loaded[g.p] {
			continue
		}
		expired := g.expiredOffsets(c.now, c.bc.offsetsRetentionMs)
		if len(expired) > 0 {
			var names []string
			for _, p := range expired {
				names = append(names, fmt.Sprintf("%s (offset %d)", p.Name, g.offsets[p]))
			}
			g.emit(fmt.Sprintf("offsets expired: %s (%s)", strings.Join(names, ", "), g.expiryRule()))
		}
		co.removeOffsets(g, expired)
	}
}

// removeOffsets is GroupMetadata.removeOffsets and what follows it in
// GroupMetadataManager.cleanupGroupMetadata: g forgets its offsets of
// parts (in partition order) and a tombstone goes to __consumer_offsets
// for each; an Empty group left with no offsets (and none being written)
// becomes Dead and is forgotten, with a tombstone for its metadata unless
// it never had a generation. Once the tombstones are appended the history
// records each removal as a commit of -1: a removal is not a commit going
// backwards, and the checker compares later commits with nothing. With
// nothing to remove and the group alive it writes nothing.
func (co *coordinator) removeOffsets(g *group, parts []*Partition) {
	co.dropOffsets(g, parts, "", nil)
}

// dropOffsets is removeOffsets; with kill set the group becomes Dead
// for that reason whatever it has left (DeleteGroups), and then, if set,
// gets the append's error once the tombstones are written ("" at once
// when there are none).
func (co *coordinator) dropOffsets(g *group, parts []*Partition, kill string, then func(string)) {
	c := co.b.c
	var recs []log.Record
	for _, p := range parts {
		delete(g.offsets, p)
		delete(g.committedAt, p)
		delete(g.meta, p)
		recs = append(recs, log.Record{Key: offsetKey(g.id, p), NullValue: true, HasKey: true})
	}
	if kill != "" || g.state == gsEmpty && len(g.offsets) == 0 && len(g.writing) == 0 {
		if kill == "" {
			kill = "Empty with no offsets left"
		}
		g.setState(gsDead, kill)
		g.joinGen++
		delete(co.groups, g.id)
		if g.generation > 0 {
			// A group only ever used for offsets (generation 0) has
			// no metadata record to delete.
			recs = append(recs, log.Record{Key: groupKey(g.id), NullValue: true, HasKey: true})
		}
	}
	if len(recs) == 0 {
		if then != nil {
			then("")
		}
		return
	}
	logName := g.p.Name
	// Up to 3.9 the tombstones go with requiredAcks = 0
	// (GroupMetadataManager.cleanupGroupMetadata@0.11.0.2 and 2.8.2,
	// 3.9.0): "even if the tombstone is lost, it will be appended again
	// in the next purge cycle", so an ISR below min.insync.replicas does
	// not refuse them. 4.0's runtime writes them as any write.
	co.appendInternalAt(g.p, recs, 0, func(e string, base int64) {
		for i, p := range parts {
			at := int64(-1)
			if e == "" {
				at = base + int64(i)
			}
			c.history.commit(CommitRecord{Group: g.id, Partition: p.Name, Offset: -1, At: c.now, Log: logName, LogOffset: at, Gen: p.Topic.gen})
		}
		if then != nil {
			then(e)
		}
	})
}

// expiredOffsets is GroupMetadata.removeExpiredOffsets' choice of offsets
// that have expired at now, in partition order; offsets with a commit
// being written never expire. From 2.1 (KIP-211): in an Empty group that
// has used the group protocol, all of them once the group has been Empty
// for the retention (currentStateTimestamp); in a Stable group, those of
// topics no member subscribes to, the retention after their commit; in a
// group only used to store offsets (standalone consumers, generation 0
// and no members), each the retention after its commit; none otherwise.
// Before 2.1, each offset the retention after its commit, in any state.
func (g *group) expiredOffsets(now, retention int64) []*Partition {
	if len(g.offsets) == 0 {
		return nil
	}
	var base func(*Partition) int64 // the time retention counts from; -1: never
	subscribed := map[string]bool{}
	standalone := g.generation == 0 && len(g.members) == 0
	switch {
	case !g.co.b.c.preset.kip211 || standalone:
		base = func(p *Partition) int64 { return g.committedAt[p] }
	case g.state == gsEmpty:
		base = func(*Partition) int64 { return g.stateSince }
	case g.state == gsStable:
		for _, m := range g.members {
			for _, t := range m.sub.Topics {
				subscribed[t] = true
			}
		}
		base = func(p *Partition) int64 {
			if subscribed[p.Topic.Name] {
				return -1
			}
			return g.committedAt[p]
		}
	default:
		return nil
	}
	// Before 2.1 an offset expires once its expireTimestamp (commit +
	// retention) is in the past; from 2.1 once the retention has passed.
	strict := !g.co.b.c.preset.kip211
	var out []*Partition
	for p := range g.offsets {
		if b := base(p); b >= 0 && g.writing[p] == 0 && (now-b > retention || !strict && now-b == retention) {
			out = append(out, p)
		}
	}
	sortParts(out)
	return out
}

// expiryRule says why the offsets expired, for the event.
func (g *group) expiryRule() string {
	mins := g.co.b.c.bc.offsetsRetentionMs / 60_000
	switch {
	case !g.co.b.c.preset.kip211:
		return fmt.Sprintf("committed more than offsets.retention.minutes=%d ago; before 2.1 in any group state", mins)
	case g.generation == 0 && len(g.members) == 0:
		return fmt.Sprintf("standalone consumer's offsets committed more than offsets.retention.minutes=%d ago", mins)
	case g.state == gsEmpty:
		return fmt.Sprintf("group Empty for offsets.retention.minutes=%d, KIP-211", mins)
	}
	return fmt.Sprintf("topics no member subscribes to, committed more than offsets.retention.minutes=%d ago, KIP-211", mins)
}
