package core

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kafkasim/kafkasim/core/log"
)

// load takes over the groups of an offsets partition this broker now
// leads, replaying its log: offset commits and group metadata records.
func (co *coordinator) load(r *Replica) {
	p := r.p
	co.loaded[p] = true
	for _, bt := range r.log.Batches(r.log.StartOffset()) {
		for i, rec := range bt.RecordList() {
			co.replay(p, rec, bt.RecordTimestamp(i))
		}
	}
	for _, id := range slices.Sorted(maps.Keys(co.groups)) {
		g := co.groups[id]
		if g.p != p {
			continue
		}
		g.emit(fmt.Sprintf("coordinator is now broker %d (loaded from %s: generation %d, %s)", co.b.ID, p.Name, g.generation, g.state))
		if g.generation > 0 {
			g.subscribed = g.computeSubscribedTopics() // GroupCoordinator.loadGroup
		}
		for _, m := range g.sortedMembers() {
			m.lastBeat = co.b.c.now
			g.armSession(m)
		}
	}
}

// unload drops the groups of an offsets partition this broker no longer leads.
func (co *coordinator) unload(p *Partition) {
	if !co.loaded[p] {
		return
	}
	delete(co.loaded, p)
	co.dropWrites(p)
	for _, id := range slices.Sorted(maps.Keys(co.groups)) {
		if g := co.groups[id]; g.p == p {
			g.state = gsDead
			g.joinGen++
			for _, m := range g.sortedMembers() {
				g.failPending(m, "NOT_COORDINATOR")
			}
			delete(co.groups, id)
		}
	}
}

// offsetRecord and groupRecord are what the coordinator writes to
// __consumer_offsets: readable, and enough to rebuild the group.
type groupRecord struct {
	Group      string         `json:"group"`
	Generation int            `json:"generation"`
	Protocol   string         `json:"protocol,omitempty"`
	Leader     string         `json:"leader,omitempty"`
	StateTs    int64          `json:"stateTimestamp,omitempty"` // currentStateTimestamp
	Members    []memberRecord `json:"members,omitempty"`
}

type memberRecord struct {
	ID         string   `json:"id"`
	Client     string   `json:"client"`
	Instance   string   `json:"instance,omitempty"`
	SessionMs  int64    `json:"session"`
	RebalMs    int64    `json:"rebalance"`
	Protocols  []string `json:"protocols"`
	Topics     []string `json:"topics"`
	Assignment []string `json:"assignment"`
	Raw        []byte   `json:"raw,omitempty"` // the leader client's bytes of it, when an outside leader sent them
	// Metadata: the member's bytes for the group's protocol, when kept
	// (GroupMetadataManager.groupMetadataValue writes the subscription)
	Metadata []byte `json:"metadata,omitempty"`
}

// replay applies one __consumer_offsets record, written at ts, to the
// in-memory groups; a value ending in "=null" is a tombstone (expired
// offsets, a dead group). A JSON form ends in "}" and a short form
// ("g/t-0=5", "g/t-0=null", "g=null") in a digit or "null", whatever
// the group id (Kafka allows any, "{weird" too), so the last byte tells
// them apart where the first cannot.
func (co *coordinator) replay(p *Partition, rec log.Record, ts int64) {
	kind, id, _ := strings.Cut(rec.Key, ":")
	if rec.NullValue {
		co.replayTombstone(kind, id)
		return
	}
	switch kind {
	case "offset":
		if isJSONForm(rec.Value) {
			co.replayOffsetRecord(p, rec.Value, ts)
			return
		}
		eq := strings.LastIndexByte(rec.Value, '=')
		sl := strings.LastIndexByte(rec.Value[:max(eq, 0)], '/')
		if eq < 0 || sl < 0 {
			return
		}
		tp, perr := co.b.c.Partition(rec.Value[sl+1 : eq])
		if perr != nil {
			return
		}
		if rec.Value[eq+1:] == tombstone {
			if g := co.groups[rec.Value[:sl]]; g != nil {
				delete(g.offsets, tp)
				delete(g.committedAt, tp)
				delete(g.meta, tp)
			}
			return
		}
		off, err := strconv.ParseInt(rec.Value[eq+1:], 10, 64)
		if err != nil {
			return
		}
		g := co.replayGroup(p, rec.Value[:sl])
		g.offsets[tp] = off
		g.committedAt[tp] = ts
		delete(g.meta, tp)
	case "group":
		if id, ok := strings.CutSuffix(rec.Value, "="+tombstone); ok {
			delete(co.groups, id)
			return
		}
		var gr groupRecord
		if json.Unmarshal([]byte(rec.Value), &gr) != nil {
			return
		}
		co.replayMetadata(p, gr)
	}
}

// Record keys in __consumer_offsets, what the log cleaner compacts by:
// GroupMetadataManager writes an OffsetKey (group, topic, partition) for
// a commit and a GroupMetadataKey (group) for a group's metadata, so each
// key's latest record is that offset's or group's state. kafkasim writes
// them readable: "offset:GROUP/TOPIC-P" and "group:GROUP" (a partition
// name has no "/", so the last one splits an offset key).
func offsetKey(group string, p *Partition) string { return "offset:" + group + "/" + p.Name }

func groupKey(group string) string { return "group:" + group }

// replayTombstone applies a null value under an offset or group key: the
// offset, or the whole group, is gone (GroupMetadataManager.loadGroupsAndOffsets).
func (co *coordinator) replayTombstone(kind, id string) {
	switch kind {
	case "offset":
		sl := strings.LastIndexByte(id, '/')
		if sl < 0 {
			return
		}
		tp, err := co.b.c.Partition(id[sl+1:])
		if g := co.groups[id[:sl]]; g != nil && err == nil {
			delete(g.offsets, tp)
			delete(g.committedAt, tp)
			delete(g.meta, tp)
		}
	case "group":
		delete(co.groups, id)
	}
}

// isJSONForm reports whether an offset or group record's value is the
// JSON form: a short form never ends in "}".
func isJSONForm(value string) bool { return strings.HasSuffix(value, "}") }

func (co *coordinator) replayGroup(p *Partition, id string) *group {
	g := co.groups[id]
	if g == nil {
		g = newGroup(co, id, p)
		co.groups[id] = g
	}
	return g
}

func (co *coordinator) replayMetadata(p *Partition, gr groupRecord) {
	g := co.replayGroup(p, gr.Group)
	g.generation, g.protocol, g.leader = gr.Generation, gr.Protocol, gr.Leader
	g.members, g.order, g.static, g.rawMetaBytes = map[string]*gmember{}, nil, map[string]string{}, 0
	for _, mr := range gr.Members {
		m := &gmember{id: mr.ID, client: mr.Client, instance: mr.Instance, sessionMs: mr.SessionMs, rebalanceMs: mr.RebalMs, protocols: mr.Protocols, raw: string(mr.Raw)}
		if i := slices.Index(m.protocols, g.protocol); i >= 0 && len(mr.Metadata) > 0 {
			raw := make([]string, len(m.protocols))
			raw[i] = string(mr.Metadata)
			g.setRawMeta(m, raw)
		}
		m.sub.ID, m.sub.Topics, m.sub.InstanceID = mr.ID, mr.Topics, mr.Instance
		for _, name := range mr.Assignment {
			if tp, err := co.b.c.Partition(name); err == nil {
				m.assignment = append(m.assignment, tp)
			}
		}
		g.members[m.id] = m
		g.order = append(g.order, m.id)
		if m.instance != "" {
			g.static[m.instance] = m.id
		}
	}
	g.state = gsEmpty
	if len(g.members) > 0 {
		g.state = gsStable
	}
	if gr.StateTs > 0 {
		g.stateSince = gr.StateTs
	}
}

// persist writes the group's metadata (GroupMetadataManager.storeGroup)
// with acks=all; done gets "" or the error storeGroup answers
// (storeGroupError).
func (co *coordinator) persist(g *group, done func(string)) {
	gr := groupRecord{Group: g.id, Generation: g.generation, Protocol: g.protocol, Leader: g.leader, StateTs: g.stateSince}
	for _, m := range g.sortedMembers() {
		mr := memberRecord{ID: m.id, Client: m.client, Instance: m.instance, SessionMs: m.sessionMs, RebalMs: m.rebalanceMs,
			Protocols: m.protocols, Topics: m.sub.Topics, Raw: []byte(m.raw), Metadata: []byte(m.metadataFor(g.protocol))}
		for _, p := range m.assignment {
			mr.Assignment = append(mr.Assignment, p.Name)
		}
		gr.Members = append(gr.Members, mr)
	}
	data, _ := json.Marshal(gr)
	var stored func(string, int64)
	if done != nil {
		stored = func(e string, _ int64) {
			if e != "" {
				e = co.storeGroupError(e)
			}
			done(e)
		}
	}
	co.appendInternalAt(g.p, []log.Record{{Key: groupKey(g.id), Value: string(data), HasKey: true}}, -1, stored)
}

// appendInternalAt appends records to an offsets partition this broker
// leads with acks, and tells done the produce path's error ("" or, for
// the caller to map, coordinator_store_errors.go) and the records' base
// offset in p. With acks -1 (offsets.commit.required.acks, storeGroup and
// storeOffsets) it waits like acks=all up to offsets.commit.timeout.ms
// and an ISR below min.insync.replicas refuses it; with acks 0
// (cleanupGroupMetadata's tombstones: Partition.appendRecordsToLeader
// with requiredAcks = 0, which checks min.insync.replicas only for -1)
// done hears the leader's append at once. A broker without a replica of
// p answers NOT_COORDINATOR without appending, as storeGroup and
// storeOffsets do when ReplicaManager.getMagic finds no local log (4.0's
// runtime: the partition is not loaded, NotCoordinatorException). 4.0
// appends as appendRuntime does, whatever acks.
func (co *coordinator) appendInternalAt(p *Partition, recs []log.Record, acks int, done func(string, int64)) {
	co.appendAcks(p, recs, acks, done, nil)
}

// appendInternal is appendInternalAt with acks -1; with 4.0's runtime,
// late hears how a write whose done was told REQUEST_TIMED_OUT ended
// after all.
func (co *coordinator) appendInternal(p *Partition, recs []log.Record, done, late func(string, int64)) {
	co.appendAcks(p, recs, -1, done, late)
}

// appendAcks is appendInternalAt and appendInternal.
func (co *coordinator) appendAcks(p *Partition, recs []log.Record, acks int, done, late func(string, int64)) {
	b := co.b
	if b.replicas[p] == nil {
		if done != nil {
			done("NOT_COORDINATOR", -1)
		}
		return
	}
	if b.c.preset.runtimeAppend {
		co.appendRuntime(p, recs, done, late)
		return
	}
	req := &produceReq{producer: "coordinator", acks: acks, timeout: b.c.bc.offsetsCommitMs, pid: -1,
		parts: []producePart{{p: p, records: recs, baseSeq: -1}}}
	seq := co.writeStarted(p)
	b.handleProduce(req, func(res []produceResult) {
		defer co.writeEnded(p, seq, res[0].err) // after done: the fetches it held read what done stored
		if done != nil {
			done(res[0].err, res[0].offset)
		}
	})
}

// appendRuntime is 4.0's write (CoordinatorRuntime.CoordinatorWriteEvent):
// CoordinatorPartitionWriter.append writes with acks=1, so an ISR below
// min.insync.replicas does not refuse it, and the runtime answers once the
// high watermark passes the records (the deferred event queue). An answer
// still missing after offsets.commit.timeout.ms is a TimeoutException
// (OperationTimeout): done hears REQUEST_TIMED_OUT, but the records stay
// in the log and in the runtime's state (only a failed append reverts it,
// failCurrentBatch), so late hears "" once the high watermark passes
// them, or the error that ended the wait (leadership lost). With
// KAFKA-15583 the high watermark holds while the ISR is below
// min.insync.replicas: such a write answers COORDINATOR_NOT_AVAILABLE
// after the timeout, and takes effect when the ISR is back.
func (co *coordinator) appendRuntime(p *Partition, recs []log.Record, done, late func(string, int64)) {
	b := co.b
	req := &produceReq{producer: "coordinator", acks: -1, hwOnly: true, pid: -1,
		parts: []producePart{{p: p, records: recs, baseSeq: -1}}}
	seq := co.writeStarted(p)
	answered := false
	b.handleProduce(req, func(res []produceResult) {
		defer co.writeEnded(p, seq, res[0].err) // the require_stable fetches wait for the high watermark too
		switch {
		case !answered:
			answered = true
			if done != nil {
				done(res[0].err, res[0].offset)
			}
		case late != nil:
			late(res[0].err, res[0].offset)
		}
	})
	if answered {
		return
	}
	co.after(b.c.bc.offsetsCommitMs, func() {
		if !answered {
			answered = true
			if done != nil {
				done("REQUEST_TIMED_OUT", -1)
			}
		}
	})
}
