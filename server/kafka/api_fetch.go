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
// consumers. Fetch sessions (KIP-227) are not kept: every response has
// session id 0, which tells the client to send full requests; an
// incremental request for a session we never gave is
// FETCH_SESSION_ID_NOT_FOUND. Follower fetches from outside (replica id
// >= 0) are refused: the simulated brokers replicate among themselves.
// Without transactions the last stable offset is the high watermark and
// no batch is aborted. Each batch goes back as its producer sent it,
// compression included, when its bytes were kept (wirebatch.go: Kafka's
// compression.type=producer), else encoded from the core's records,
// uncompressed.

import (
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
	topErr := int16(0)
	switch {
	case replica >= 0:
		topErr = 42 // INVALID_REQUEST: outside clients do not replicate
	case req.SessionID != 0 || req.SessionEpoch > 0:
		topErr = 70 // FETCH_SESSION_ID_NOT_FOUND
	}
	fr := &core.FetchRequest{MaxWaitMs: req.MaxWaitMillis, MinBytes: req.MinBytes, MaxBytes: req.MaxBytes, ByTopicID: req.Version >= 13}
	var topicOf []int // each partition's index in req.Topics
	if topErr != 0 {
		fr.MaxWaitMs, fr.MinBytes = 0, 0
	} else {
		ids := idResolver{s: cx.s}
		for ti := range req.Topics {
			t := &req.Topics[ti]
			name := t.Topic
			if fr.ByTopicID {
				name = ids.name(t.TopicID)
			}
			for _, p := range t.Partitions {
				epoch := p.CurrentLeaderEpoch
				if req.Version < 9 {
					epoch = -1
				}
				fp := core.FetchPartition{Topic: name, Partition: p.Partition,
					FetchOffset: p.FetchOffset, CurrentLeaderEpoch: epoch, PartitionMaxBytes: p.PartitionMaxBytes}
				if fr.ByTopicID {
					fp.TopicID = t.TopicID
				}
				fr.Partitions = append(fr.Partitions, fp)
				topicOf = append(topicOf, ti)
			}
		}
	}
	return &plan{req: core.BrokerRequest{Fetch: fr}, finish: func(rep *core.Reply) kmsg.Response {
		resp := req.ResponseKind().(*kmsg.FetchResponse)
		resp.ErrorCode = topErr
		if topErr != 0 || rep.Fetch == nil || len(rep.Fetch.Partitions) != len(topicOf) {
			return resp
		}
		respTopic := make([]int, len(req.Topics)) // index in resp.Topics + 1, 0 for none yet
		toClient := cx.s.clock.toClient
		var raws []string       // each batch's kept bytes, "" to encode it
		var recs [][]log.Record // else its records
		for k := range rep.Fetch.Partitions {
			p := &rep.Fetch.Partitions[k]
			ti := topicOf[k]
			if respTopic[ti] == 0 {
				rt := kmsg.NewFetchResponseTopic()
				rt.Topic, rt.TopicID = req.Topics[ti].Topic, req.Topics[ti].TopicID
				resp.Topics = append(resp.Topics, rt)
				respTopic[ti] = len(resp.Topics)
			}
			rp := kmsg.NewFetchResponseTopicPartition()
			rp.Partition, rp.ErrorCode = p.Partition, errCode(p.Error)
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
			rt := &resp.Topics[respTopic[ti]-1]
			rt.Partitions = append(rt.Partitions, rp)
		}
		return resp
	}}, nil
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
