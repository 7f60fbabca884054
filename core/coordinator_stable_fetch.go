package core

import "slices"

// 4.0's group coordinator answers a require_stable OffsetFetch (KIP-447)
// differently from the classic one. GroupCoordinatorService.fetchOffsets
// runs it as a write operation that writes nothing
// (runtime.scheduleWriteOperation, coordinator.fetchOffsets(request,
// Long.MAX_VALUE)); CoordinatorRuntime.append defers the answer of such an
// operation to the partition's last written offset
// (deferredEventQueue.add(lastWrittenOffset)) and sends it once that is
// committed. So the fetch waits for every write to the group's
// __consumer_offsets partition before it, and never answers
// UNSTABLE_OFFSET_COMMIT. A write that fails fails the fetch with it, and
// the operation times out after offsets.commit.timeout.ms;
// handleOffsetFetchException answers NOT_COORDINATOR for a timeout,
// NOT_ENOUGH_REPLICAS or UNKNOWN_TOPIC_OR_PARTITION, and the consumer looks
// the coordinator up again. (preset.stableFetchWaits; 2.5 to 3.9's
// GroupMetadataManager.getOffsets answers UNSTABLE_OFFSET_COMMIT instead,
// coordinator_offsets.go.)

// maxStableWaits bounds the fetches one coordinator holds; one more is
// answered NOT_COORDINATOR at once (the client asks again).
const maxStableWaits = 10_000

// writeLog is the coordinator's writes in flight to one __consumer_offsets
// partition, numbered in the order they were appended; committed is the
// last one known committed, and with it every one before that was
// appended (the high watermark passed them).
type writeLog struct {
	next      int64
	inflight  map[int64]bool
	committed int64
}

// stableWait is a require_stable fetch waiting for the writes numbered up
// to upto. failed: one of them failed to append; unsure: the last of them
// whose acks=all wait timed out (appended, maybe committed later: the
// fetch waits until a later write is known committed, or its own
// timeout).
type stableWait struct {
	p       *Partition
	upto    int64
	unsure  int64
	failed  bool
	done    bool
	respond func(failed bool)
}

// appendedOnly reports whether a write that ended with err is in the log
// though not known committed (the produce purgatory's timeout).
func appendedOnly(err string) bool {
	return err == "REQUEST_TIMED_OUT" || err == "NOT_ENOUGH_REPLICAS_AFTER_APPEND"
}

// writeStarted numbers a write to p.
func (co *coordinator) writeStarted(p *Partition) int64 {
	if co.writes == nil {
		co.writes = map[*Partition]*writeLog{}
	}
	w := co.writes[p]
	if w == nil {
		w = &writeLog{inflight: map[int64]bool{}}
		co.writes[p] = w
	}
	w.next++
	w.inflight[w.next] = true
	return w.next
}

// writeEnded records that write seq to p is written or failed, and answers
// the fetches that waited for it and for nothing older.
func (co *coordinator) writeEnded(p *Partition, seq int64, err string) {
	w := co.writes[p]
	if w == nil {
		return
	}
	delete(w.inflight, seq)
	if err == "" {
		w.committed = max(w.committed, seq)
	}
	kept := co.stableWaits[:0]
	for _, sw := range co.stableWaits {
		if sw.p == p && seq <= sw.upto {
			switch {
			case appendedOnly(err):
				sw.unsure = max(sw.unsure, seq)
			case err != "":
				sw.failed = true
			}
		}
		if sw.p == p && !sw.done && !w.pendingUpTo(sw.upto) && (sw.failed || sw.unsure <= w.committed) {
			sw.done = true
			sw.respond(sw.failed)
		}
		if !sw.done {
			kept = append(kept, sw)
		}
	}
	clear(co.stableWaits[len(kept):])
	co.stableWaits = kept
}

// pendingUpTo reports whether a write numbered up to n is in flight.
func (w *writeLog) pendingUpTo(n int64) bool {
	for s := range w.inflight {
		if s <= n {
			return true
		}
	}
	return false
}

// awaitWrites calls respond once every write to p in flight now has ended
// (failed: one of them failed, or offsets.commit.timeout.ms passed).
func (co *coordinator) awaitWrites(p *Partition, respond func(failed bool)) {
	w := co.writes[p]
	if w == nil || len(w.inflight) == 0 {
		respond(false)
		return
	}
	co.stableWaits = slices.DeleteFunc(co.stableWaits, func(sw *stableWait) bool { return sw.done })
	if len(co.stableWaits) >= maxStableWaits {
		respond(true)
		return
	}
	sw := &stableWait{p: p, upto: w.next, respond: respond}
	co.stableWaits = append(co.stableWaits, sw)
	co.after(co.b.c.bc.offsetsCommitMs, func() {
		if !sw.done {
			sw.done = true
			respond(true)
		}
	})
}

// dropWrites forgets p's writes when the coordinator unloads it: the
// fetches waiting for them fail (the runtime fails its deferred events with
// NOT_COORDINATOR); the numbering goes on, so a write of the old load that
// ends late touches nothing of a new one.
func (co *coordinator) dropWrites(p *Partition) {
	if w := co.writes[p]; w != nil {
		clear(w.inflight)
	}
	for _, sw := range co.stableWaits {
		if sw.p == p && !sw.done {
			sw.done = true
			sw.respond(true)
		}
	}
	co.stableWaits = slices.DeleteFunc(co.stableWaits, func(sw *stableWait) bool { return sw.done })
}
