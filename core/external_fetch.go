package core

import "fmt"

// Fetch from an outside connection: the request checked, translated for
// the broker's handleFetch (broker_fetch.go) and its answer back. By
// topic id (v13+), the partitions resolve in topic_ids.go.

// checkFetch bounds a FetchRequest's partitions and refuses one listed
// twice.
func checkFetch(req *FetchRequest) error {
	if len(req.Partitions) > MaxRequestPartitions {
		return fmt.Errorf("%d partitions (limit %d)", len(req.Partitions), MaxRequestPartitions)
	}
	if req.ByTopicID {
		return checkFetchByID(req)
	}
	if fp, dup := listedTwice(req.Partitions, func(fp FetchPartition) partKey { return partKey{fp.Topic, fp.Partition} }); dup {
		return fmt.Errorf("partition %s-%d listed twice", fp.Topic, fp.Partition)
	}
	return nil
}

// listedTwice is the first partition of ps whose key an earlier one has.
func listedTwice[K comparable](ps []FetchPartition, key func(FetchPartition) K) (FetchPartition, bool) {
	seen := make(map[K]bool, len(ps))
	for _, fp := range ps {
		k := key(fp)
		if seen[k] {
			return fp, true
		}
		seen[k] = true
	}
	return FetchPartition{}, false
}

// fetch translates a FetchRequest for handleFetch and its answer back.
func (x *extConns) fetch(cn *extConn, req *FetchRequest, done func(*Reply)) {
	b := cn.broker
	resp := &FetchResponse{Partitions: make([]FetchPartitionResponse, len(req.Partitions))}
	maxBytes := int(req.MaxBytes)
	if maxBytes <= 0 || maxBytes > brokerFetchMaxBytes {
		maxBytes = brokerFetchMaxBytes
	}
	// The protocol layer sends the leader only to v16+ requests.
	in := fetchReq{replica: -1, maxWait: int64(max(req.MaxWaitMs, 0)), minBytes: int(max(req.MinBytes, 1)), maxBytes: maxBytes, leaderHints: true}
	if req.MinBytes <= 0 {
		in.maxWait = 0 // zero bytes are always readable: answer at once
	}
	in.maxWait = min(in.maxWait, MaxWait)
	var idx []int
	for i, fp := range req.Partitions {
		resp.Partitions[i] = FetchPartitionResponse{Topic: fp.Topic, Partition: fp.Partition, HighWatermark: -1, LastStableOffset: -1, LogStartOffset: -1}
		p, err := x.fetchPartition(req, &fp)
		if err != "" {
			resp.Partitions[i].Error = err
			in.maxWait = 0 // an error is answered at once
			continue
		}
		in.parts = append(in.parts, fetchPart{p: p, offset: fp.FetchOffset, epoch: fp.CurrentLeaderEpoch, maxBytes: int(max(fp.PartitionMaxBytes, 0))})
		idx = append(idx, i)
	}
	if len(in.parts) == 0 {
		done(&Reply{Fetch: resp})
		return
	}
	b.handleFetch(in, func(res []fetchResult) {
		for k, fr := range res {
			out := &resp.Partitions[idx[k]]
			out.Error, out.Leader = fr.err, fr.leader
			if fr.err == "" {
				out.HighWatermark, out.LastStableOffset, out.LogStartOffset = fr.hw, fr.hw, fr.logStart
			}
			for _, bt := range fr.batches {
				x.records.Fetched += int64(bt.Len())
				out.Batches = append(out.Batches, FetchedBatch{BaseOffset: bt.BaseOffset, PartitionLeaderEpoch: bt.Epoch,
					ProducerID: bt.ProducerID, ProducerEpoch: bt.ProducerEpoch, BaseSequence: bt.BaseSequence,
					Timestamp: bt.Timestamp, MaxTimestamp: bt.MaxTimestamp(), LogAppendTime: bt.LogAppendTime,
					Records: bt.Records[:len(bt.Records):len(bt.Records)], Packed: bt.Packed,
					OffsetDeltas: bt.OffsetDeltas, LastOffsetDelta: bt.LastOffsetDelta, DeleteHorizon: bt.HasDeleteHorizon})
			}
		}
		done(&Reply{Fetch: resp})
	})
}
