package kafka

// Fetch (key 1), v4-v17 (record batch v2).
//
// A consumer's fetch: the leader answers at once when min bytes are
// readable below the high watermark, else holds the request up to max
// wait in simulated time (DelayedFetch). KIP-320 leader epochs are
// checked (FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH). v13+ names topics
// by id (KIP-516), in the request and the response: the ids Metadata
// advertises, resolved to names here (topic_ids.go) and checked by the
// core when the broker reads the request, so an id no topic has now (one
// of a topic deleted, maybe created again under the same name with a new
// id) is UNKNOWN_TOPIC_ID, as from Kafka's broker, whose metadata knows
// only the current ids. v15 moves the replica id into ReplicaState
// (KIP-903). v16 (KIP-951) adds the leader the broker knows of to a
// partition answered NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH, with
// that broker's endpoint, so the client moves without a Metadata round
// trip. v17 adds a follower's directory id (KIP-853), nothing for
// consumers. v7+ has fetch sessions (KIP-227, fetch_session.go): a full
// fetch with epoch 0 opens one when the broker's cache has room (the
// response carries its id), epoch -1 asks for none and closes the one it
// names; an incremental fetch (its id, the next epoch) lists only the
// partitions that changed and forgets some, the broker fetches all the
// session's, and the response carries only those with records, an error,
// or a new high watermark or log start offset. An unknown id is
// FETCH_SESSION_ID_NOT_FOUND, a wrong epoch INVALID_FETCH_SESSION_EPOCH,
// a by-name session asked by id (or the other way)
// FETCH_SESSION_TOPIC_ID_ERROR, all top-level with no partitions. A
// broker's sessions die with its process. Follower fetches from outside
// (replica id >= 0) are refused (INVALID_REQUEST): the simulated brokers
// replicate among themselves. Without transactions the last stable
// offset is the high watermark and no batch is aborted. Each batch goes back as its producer sent it,
// compression included, when its bytes were kept (wirebatch.go: Kafka's
// compression.type=producer), else encoded from the core's records,
// uncompressed.

import (
	"fmt"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/log"
	"github.com/kafkasim/kafkasim/internal/recordbatch"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(1, 4, 17, handleFetch) }

func handleFetch(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.FetchRequest)
	replica := req.ReplicaID
	if req.Version >= 15 {
		replica = req.ReplicaState.ID // KIP-903: ReplicaID is -1 from v15
	}
	sessionID, sessionEpoch := req.SessionID, req.SessionEpoch
	if req.Version < 7 {
		sessionID, sessionEpoch = 0, -1 // FetchMetadata.LEGACY: sessionless before KIP-227
	}
	byID := req.Version >= 13
	var fc *fetchContext
	if replica >= 0 {
		fc = &fetchContext{kind: ctxError, err: errInvalidRequest} // outside clients do not replicate
	} else {
		n, forget := 0, 0
		for _, t := range req.Topics {
			n += len(t.Partitions)
		}
		for _, t := range req.ForgottenTopics {
			forget += len(t.Partitions)
		}
		if n > core.MaxRequestPartitions || forget > core.MaxRequestPartitions {
			// The core refuses as many partitions; Kafka has no bound
			// but memory.
			return nil, fmt.Errorf("Fetch of %d partitions forgetting %d (limit %d each)", n, forget, core.MaxRequestPartitions)
		}
		ids := idResolver{s: cx.s}
		parts := make([]fetchPart, 0, n)
		for ti := range req.Topics {
			t := &req.Topics[ti]
			key := sessKey{topic: t.Topic}
			name := t.Topic
			if byID {
				key = sessKey{id: t.TopicID}
				name = ids.name(t.TopicID)
			}
			for _, p := range t.Partitions {
				epoch := p.CurrentLeaderEpoch
				if req.Version < 9 {
					epoch = -1
				}
				key.partition = p.Partition
				parts = append(parts, fetchPart{key: key, name: name, fetchOffset: p.FetchOffset, leaderEpoch: epoch, maxBytes: p.PartitionMaxBytes})
			}
		}
		var forgotten []sessKey
		for _, t := range req.ForgottenTopics { // v7+
			key := sessKey{topic: t.Topic}
			if byID {
				key = sessKey{id: t.TopicID}
			}
			for _, p := range t.Partitions {
				key.partition = p
				forgotten = append(forgotten, key)
			}
		}
		lookup := func(id [16]byte) string {
			if m := cx.s.topicIDs.names.Load(); m != nil {
				return (*m)[id]
			}
			return ""
		}
		var err error
		if fc, err = cx.s.sessions.newContext(cx.broker, req.Version, sessionID, sessionEpoch, parts, forgotten, lookup); err != nil {
			return nil, err
		}
	}
	fr := &core.FetchRequest{MaxWaitMs: req.MaxWaitMillis, MinBytes: req.MinBytes, MaxBytes: req.MaxBytes, ByTopicID: byID}
	if fc.kind == ctxError {
		fr.MaxWaitMs, fr.MinBytes = 0, 0 // answered at once, with no partitions
	}
	for _, p := range fc.parts {
		fp := core.FetchPartition{Topic: p.name, Partition: p.key.partition,
			FetchOffset: p.fetchOffset, CurrentLeaderEpoch: p.leaderEpoch, PartitionMaxBytes: p.maxBytes}
		if byID {
			fp.TopicID = p.key.id
		}
		fr.Partitions = append(fr.Partitions, fp)
	}
	var note string
	if req.Version >= 7 && (sessionID != 0 || sessionEpoch != -1) {
		note = fmt.Sprintf("session=%d epoch=%d", sessionID, sessionEpoch)
	}
	return &plan{req: core.BrokerRequest{Fetch: fr}, labelNote: note, finish: func(rep *core.Reply) kmsg.Response {
		return fetchResponse(cx, req, fc, rep)
	}}, nil
}

// fetchResponse is the wire response for the core's answer rep to req,
// whose fetch context is fc: the partitions its session says to send.
func fetchResponse(cx *reqCtx, req *kmsg.FetchRequest, fc *fetchContext, rep *core.Reply) kmsg.Response {
	resp := req.ResponseKind().(*kmsg.FetchResponse)
	if fc.kind == ctxError {
		resp.ErrorCode = fc.err
		if fc.err == errUnknownServer && req.Version < 13 {
			// FetchRequest.getErrorResponse: below v13 every partition
			// carries the error too.
			for _, t := range req.Topics {
				rt := kmsg.NewFetchResponseTopic()
				rt.Topic, rt.TopicID = t.Topic, t.TopicID
				for _, p := range t.Partitions {
					rp := kmsg.NewFetchResponseTopicPartition()
					rp.Partition, rp.ErrorCode, rp.HighWatermark, rp.LastStableOffset, rp.LogStartOffset = p.Partition, fc.err, -1, -1, -1
					rp.RecordBatches = []byte{}
					rt.Partitions = append(rt.Partitions, rp)
				}
				resp.Topics = append(resp.Topics, rt)
			}
		}
		return resp
	}
	if rep.Fetch == nil || len(rep.Fetch.Partitions) != len(fc.parts) {
		return resp
	}
	res := make([]partResult, len(fc.parts))
	var known map[string]bool // topic names that exist now, when needed
	for k := range rep.Fetch.Partitions {
		p := &rep.Fetch.Partitions[k]
		res[k] = partResult{err: p.Error, hw: p.HighWatermark, logStart: p.LogStartOffset, records: len(p.Batches) > 0}
		if fc.parts[k].sticky && p.Error == "UNKNOWN_TOPIC_ID" {
			// A session keeps the name it resolved (CachedPartition
			// .maybeResolveUnknownName), so Kafka reads the partition
			// by that name: gone from its metadata is
			// UNKNOWN_TOPIC_OR_PARTITION (KafkaApis), a topic of that
			// name with another id INCONSISTENT_TOPIC_ID (ReplicaManager
			// .readFromLog).
			if known == nil {
				known = map[string]bool{}
				for _, name := range cx.s.refreshTopicIDs() {
					known[name] = true
				}
			}
			res[k].err = "UNKNOWN_TOPIC_OR_PARTITION"
			if known[fc.parts[k].name] {
				res[k].err = "INCONSISTENT_TOPIC_ID"
			}
		}
	}
	include, id, topErr := cx.s.sessions.respond(fc, res)
	resp.SessionID, resp.ErrorCode = id, topErr
	if topErr != 0 {
		return resp
	}
	toClient := cx.s.clock.toClient
	var raws []string       // each batch's kept bytes, "" to encode it
	var recs [][]log.Record // else its records
	for k := range rep.Fetch.Partitions {
		if !include[k] {
			continue
		}
		p := &rep.Fetch.Partitions[k]
		key := fc.parts[k].key
		// FetchResponse.toMessage: consecutive partitions of one topic
		// share its entry.
		if n := len(resp.Topics); n == 0 || resp.Topics[n-1].Topic != key.topic || resp.Topics[n-1].TopicID != key.id {
			rt := kmsg.NewFetchResponseTopic()
			rt.Topic, rt.TopicID = key.topic, key.id
			resp.Topics = append(resp.Topics, rt)
		}
		rp := kmsg.NewFetchResponseTopicPartition()
		rp.Partition, rp.ErrorCode = p.Partition, errCode(res[k].err)
		rp.HighWatermark, rp.LastStableOffset, rp.LogStartOffset = p.HighWatermark, p.LastStableOffset, p.LogStartOffset
		rp.PreferredReadReplica = -1
		if p.Leader != nil && req.Version >= 16 {
			rp.CurrentLeader.LeaderID, rp.CurrentLeader.LeaderEpoch = int32(p.Leader.LeaderID), p.Leader.LeaderEpoch
			resp.Brokers = appendLeaderEndpoint(cx.s, resp.Brokers, p.Leader)
		}
		raws, recs = raws[:0], recs[:0]
		n := 0
		for j := range p.Batches {
			raw, _ := servable(&p.Batches[j], req.Version)
			var rs []log.Record
			if raw != "" {
				n += len(raw)
			} else {
				rs = p.Batches[j].RecordList()
				n += batchBytes(rs)
			}
			raws, recs = append(raws, raw), append(recs, rs)
		}
		out := make([]byte, 0, n) // never null: librdkafka rejects a null record set
		for j := range p.Batches {
			out = appendFetched(out, &p.Batches[j], raws[j], recs[j], toClient)
		}
		rp.RecordBatches = out
		rt := &resp.Topics[len(resp.Topics)-1]
		rt.Partitions = append(rt.Partitions, rp)
	}
	return resp
}

// leaderNode is an element of a KIP-951 response's node endpoints: Fetch
// v16+'s and Produce v10+'s have the same fields, so one converts to the
// other.
type leaderNode interface {
	kmsg.FetchResponseBroker | kmsg.ProduceResponseBroker
}

// appendLeaderEndpoint adds the endpoint of h's leader to a KIP-951
// response's node endpoints (Fetch v16+, Produce v10+), once per broker
// and only for a live one (KafkaApis adds only metadataCache
// .getAliveBrokerNode's).
func appendLeaderEndpoint[N leaderNode](s *Server, ns []N, h *core.LeaderHint) []N {
	if !h.Live {
		return ns
	}
	for _, n := range ns {
		if kmsg.FetchResponseBroker(n).NodeID == int32(h.LeaderID) {
			return ns
		}
	}
	b := kmsg.NewFetchResponseBroker()
	host, port := s.Addr(h.LeaderID)
	b.NodeID, b.Host, b.Port = int32(h.LeaderID), host, int32(port)
	if h.Rack != "" {
		r := h.Rack
		b.Rack = &r
	}
	return append(ns, N(b))
}

// batchBytes is about what recordbatch.Append writes for recs (exact for
// keys and values, a bound for the varints), so the response's records
// are written into one buffer that does not grow.
func batchBytes(recs []log.Record) int {
	n := recordbatch.Overhead
	for j := range recs {
		r := &recs[j]
		n += len(r.Key) + len(r.Value) + 3*5 + 1 + 10 + 5
		for _, h := range r.Headers {
			n += len(h.Key) + len(h.Value) + 10
		}
	}
	return n
}
