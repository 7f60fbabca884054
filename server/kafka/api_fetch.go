package kafka

// Fetch (key 1), v4-v12 (record batch v2; topics by name: v13+ names
// topics by id and is not advertised).
//
// A consumer's fetch: the leader answers at once when min bytes are
// readable below the high watermark, else holds the request up to max
// wait in simulated time (DelayedFetch). KIP-320 leader epochs are
// checked (FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH). Fetch sessions
// (KIP-227) are not kept: every response has session id 0, which tells
// the client to send full requests; an incremental request for a session
// we never gave is FETCH_SESSION_ID_NOT_FOUND. Follower fetches from
// outside (replica id >= 0) are refused: the simulated brokers replicate
// among themselves. Without transactions the last stable offset is the
// high watermark and no batch is aborted. Each batch goes back as its
// producer sent it, compression included, when its bytes were kept
// (wirebatch.go: Kafka's compression.type=producer), else encoded from
// the core's records, uncompressed.

import (
	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/log"
	"github.com/kafkasim/kafkasim/internal/recordbatch"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(1, 4, 12, handleFetch) }

func handleFetch(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.FetchRequest)
	topErr := int16(0)
	switch {
	case req.ReplicaID >= 0:
		topErr = 42 // INVALID_REQUEST: outside clients do not replicate
	case req.SessionID != 0 || req.SessionEpoch > 0:
		topErr = 70 // FETCH_SESSION_ID_NOT_FOUND
	}
	fr := &core.FetchRequest{MaxWaitMs: req.MaxWaitMillis, MinBytes: req.MinBytes, MaxBytes: req.MaxBytes}
	if topErr != 0 {
		fr.MaxWaitMs, fr.MinBytes = 0, 0
	} else {
		for _, t := range req.Topics {
			for _, p := range t.Partitions {
				epoch := p.CurrentLeaderEpoch
				if req.Version < 9 {
					epoch = -1
				}
				fr.Partitions = append(fr.Partitions, core.FetchPartition{Topic: t.Topic, Partition: p.Partition,
					FetchOffset: p.FetchOffset, CurrentLeaderEpoch: epoch, PartitionMaxBytes: p.PartitionMaxBytes})
			}
		}
	}
	return &plan{req: core.BrokerRequest{Fetch: fr}, finish: func(rep *core.Reply) kmsg.Response {
		resp := req.ResponseKind().(*kmsg.FetchResponse)
		resp.ErrorCode = topErr
		if topErr != 0 || rep.Fetch == nil {
			return resp
		}
		byTopic := map[string]int{}
		toClient := cx.s.clock.toClient
		var raws []string       // each batch's kept bytes, "" to encode it
		var recs [][]log.Record // else its records
		for _, p := range rep.Fetch.Partitions {
			i, ok := byTopic[p.Topic]
			if !ok {
				i = len(resp.Topics)
				byTopic[p.Topic] = i
				rt := kmsg.NewFetchResponseTopic()
				rt.Topic = p.Topic
				resp.Topics = append(resp.Topics, rt)
			}
			rp := kmsg.NewFetchResponseTopicPartition()
			rp.Partition, rp.ErrorCode = p.Partition, errCode(p.Error)
			rp.HighWatermark, rp.LastStableOffset, rp.LogStartOffset = p.HighWatermark, p.LastStableOffset, p.LogStartOffset
			rp.PreferredReadReplica = -1
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
			resp.Topics[i].Partitions = append(resp.Topics[i].Partitions, rp)
		}
		return resp
	}}, nil
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
