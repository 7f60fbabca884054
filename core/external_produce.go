package core

import (
	"fmt"

	"github.com/kafkasim/kafkasim/core/log"
)

// Produce from an outside connection: the request checked, translated for
// the broker's handleProduce (broker_produce.go) and its answer back.

// checkProduce bounds a ProduceRequest (partitions, socket.request.max
// .bytes) and refuses a partition listed twice, batches of several
// producer ids, or a record whose null value has bytes.
func checkProduce(req *ProduceRequest) error {
	if len(req.Partitions) > MaxRequestPartitions {
		return fmt.Errorf("%d partitions (limit %d)", len(req.Partitions), MaxRequestPartitions)
	}
	seen := map[partKey]bool{}
	bytes := 0
	for _, pp := range req.Partitions {
		k := partKey{pp.Topic, pp.Partition}
		if seen[k] {
			return fmt.Errorf("partition %s-%d listed twice", pp.Topic, pp.Partition)
		}
		seen[k] = true
		if pp.ProducerID != req.Partitions[0].ProducerID {
			return fmt.Errorf("batches of producer ids %d and %d in one request", req.Partitions[0].ProducerID, pp.ProducerID)
		}
		if pp.Packed != nil {
			if pp.Records != nil && pp.Packed.Len() != len(pp.Records) {
				return fmt.Errorf("partition %s-%d: %d packed records for %d records", pp.Topic, pp.Partition, pp.Packed.Len(), len(pp.Records))
			}
			if bytes += int(min(pp.Packed.KeyValueBytes(), MaxRequestBytes+1)); bytes > MaxRequestBytes {
				return fmt.Errorf("more than %d bytes of records (socket.request.max.bytes)", MaxRequestBytes)
			}
			continue
		}
		for _, rec := range pp.Records {
			if rec.NullValue && rec.Value != "" { // log.Record's invariant: a history line could break it
				return fmt.Errorf("partition %s-%d: a null value with %d bytes", pp.Topic, pp.Partition, len(rec.Value))
			}
			bytes += len(rec.Key) + len(rec.Value)
			if bytes > MaxRequestBytes {
				return fmt.Errorf("more than %d bytes of records (socket.request.max.bytes)", MaxRequestBytes)
			}
		}
	}
	return nil
}

// produce translates a ProduceRequest for handleProduce and its answer back.
func (x *extConns) produce(cn *extConn, req *ProduceRequest, done func(*Reply)) {
	b := cn.broker
	resp := &ProduceResponse{Partitions: make([]ProducePartitionResponse, len(req.Partitions))}
	// The protocol layer sends the leader only to v10+ requests.
	in := &produceReq{producer: cn.name, acks: int(req.Acks), timeout: int64(max(req.TimeoutMs, 0)), pid: -1, leaderHints: true}
	var idx []int // resp index of each in.parts entry
	for i, pp := range req.Partitions {
		x.records.Produced += int64(pp.Len())
		resp.Partitions[i] = ProducePartitionResponse{Topic: pp.Topic, Partition: pp.Partition, BaseOffset: -1, LogStartOffset: -1, LogAppendTime: -1}
		p, err := x.partition(pp.Topic, pp.Partition)
		switch {
		case req.Acks != 0 && req.Acks != 1 && req.Acks != -1:
			err = "INVALID_REQUIRED_ACKS"
		case err != "":
		case p.Topic.Internal:
			err = "INVALID_TOPIC_EXCEPTION" // clients may not write internal topics
		case pp.Len() == 0:
			err = "INVALID_RECORD"
		case batchBytes(&pp) > maxMessageBytes:
			err = "MESSAGE_TOO_LARGE"
		}
		if err != "" {
			resp.Partitions[i].Error = err
			continue
		}
		if pp.ProducerID >= 0 {
			in.pid = pp.ProducerID
		}
		part := producePart{p: p, records: pp.Records, baseSeq: pp.BaseSequence, pepoch: pp.ProducerEpoch}
		if pp.Packed != nil {
			part.records, part.packed = nil, pp.Packed
		}
		if pp.Timestamp != nil {
			part.createTime, part.clientTime = *pp.Timestamp, true
		}
		in.parts = append(in.parts, part)
		idx = append(idx, i)
	}
	if in.pid < 0 {
		for i := range in.parts {
			in.parts[i].baseSeq, in.parts[i].pepoch = -1, 0
		}
	}
	fill := func(res []produceResult) {
		for k, pr := range res {
			out := &resp.Partitions[idx[k]]
			out.Error, out.BaseOffset, out.LogAppendTime, out.Leader = pr.err, pr.offset, pr.appendTime, pr.leader
			if pr.err != "" {
				out.BaseOffset = -1
				continue
			}
			x.records.Acked += int64(req.Partitions[idx[k]].Len())
			if lr := b.replicas[pr.p]; lr != nil {
				out.LogStartOffset = lr.log.StartOffset()
			}
		}
	}
	finish := func() {
		if req.Acks != 0 {
			done(&Reply{Produce: resp})
			return
		}
		// acks=0 gets no response; a failed append closes the connection
		// so the producer notices (KafkaApis.handleProduceRequest).
		for _, p := range resp.Partitions {
			if p.Error != "" {
				x.close(cn, ConnClosedByBroker)
				return
			}
		}
		done(nil)
	}
	if len(in.parts) == 0 {
		finish()
		return
	}
	b.handleProduce(in, func(res []produceResult) {
		fill(res)
		finish()
	})
}

// batchBytes is the size of pp's v2 record batch as the client sent it,
// which max.message.bytes bounds (UnifiedLog.analyzeAndValidateRecords:
// batch.sizeInBytes; an in-place append keeps the client's compression,
// so no size is checked again): a compressed batch's wire bytes, not
// its records' inflated size, which refused a 5 MB value gzipped into
// 5 KB as MESSAGE_TOO_LARGE. Records with no wire bytes kept count as
// the uncompressed batch holding them.
func batchBytes(pp *ProducePartition) int {
	if pp.Packed != nil && pp.Packed.Wire() != "" {
		return len(pp.Packed.Wire())
	}
	if pp.Packed != nil {
		return (&log.Batch{Packed: pp.Packed}).Size()
	}
	return (&log.Batch{Records: pp.Records}).Size()
}
