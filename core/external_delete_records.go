package core

import "slices"

// DeleteRecordsRequest is an outside client's DeleteRecords (KIP-107,
// 0.11+: Admin.deleteRecords, kafka-delete-records.sh): for each
// partition the offset below which its records go (-1: the high
// watermark), at the partition's leader. TimeoutMs is how long the
// answer may wait for every replica's log start offset to reach it
// (simulated time).
type DeleteRecordsRequest struct {
	TimeoutMs  int32                    `json:"timeoutMs"`
	Partitions []DeleteRecordsPartition `json:"partitions"`
}

// DeleteRecordsPartition is one partition's new log start offset.
type DeleteRecordsPartition struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Offset    int64  `json:"offset"`
}

// DeleteRecordsResponse answers a DeleteRecordsRequest: one result per
// partition named, in request order, a partition named twice once with
// its last offset (KafkaApis takes them into a map).
type DeleteRecordsResponse struct {
	Partitions []DeleteRecordsPartitionResponse `json:"partitions"`
}

// DeleteRecordsPartitionResponse is one partition's answer: the low
// watermark (the smallest log start offset over the leader and its
// followers on live brokers, Partition.lowWatermarkIfLeader), -1 on
// error. Error is "", UNKNOWN_TOPIC_OR_PARTITION, INVALID_TOPIC_EXCEPTION
// (__consumer_offsets), NOT_LEADER_OR_FOLLOWER, POLICY_VIOLATION
// (cleanup.policy without delete), OFFSET_OUT_OF_RANGE (above the high
// watermark) or REQUEST_TIMED_OUT (the leader's log start moved, a
// replica's had not reached it at the timeout; LowWatermark is then the
// one when the request came).
type DeleteRecordsPartitionResponse struct {
	Topic        string `json:"topic"`
	Partition    int32  `json:"partition"`
	Error        string `json:"error,omitempty"`
	LowWatermark int64  `json:"lowWatermark"`
}

type deleteRecordsBody struct{ r *DeleteRecordsRequest }

func (b deleteRecordsBody) api() string    { return "DeleteRecords" }
func (b deleteRecordsBody) answered() bool { return true }
func (b deleteRecordsBody) check() error   { return checkPartitionCount(len(b.r.Partitions)) }

// serve is KafkaApis.handleDeleteRecordsRequest: a partition the asked
// broker's metadata cache does not have is UNKNOWN_TOPIC_OR_PARTITION,
// the others go to its ReplicaManager.deleteRecords
// (Broker.deleteRecords).
func (b deleteRecordsBody) serve(x *extConns, cn *extConn, done func(*Reply)) {
	br := cn.broker
	resp := &DeleteRecordsResponse{Partitions: []DeleteRecordsPartitionResponse{}}
	at := map[GroupPartition]int{}
	var asked []recordsDelete
	var askedAt []int
	for _, dp := range b.r.Partitions {
		key := GroupPartition{Topic: dp.Topic, Partition: dp.Partition}
		i, dup := at[key]
		if !dup {
			i = len(resp.Partitions)
			at[key] = i
			resp.Partitions = append(resp.Partitions, DeleteRecordsPartitionResponse{Topic: dp.Topic, Partition: dp.Partition, LowWatermark: -1})
		}
		p, err := x.partition(dp.Topic, dp.Partition)
		if _, known := br.cache[p]; err == "" && !known {
			err = "UNKNOWN_TOPIC_OR_PARTITION"
		}
		resp.Partitions[i].Error = err
		if k := slices.Index(askedAt, i); k >= 0 { // the last offset wins
			asked, askedAt = slices.Delete(asked, k, k+1), slices.Delete(askedAt, k, k+1)
		}
		if err == "" {
			asked = append(asked, recordsDelete{p: p, offset: dp.Offset})
			askedAt = append(askedAt, i)
		}
	}
	if len(asked) == 0 {
		done(&Reply{DeleteRecords: resp})
		return
	}
	br.deleteRecords(int64(b.r.TimeoutMs), asked, func(res []recordsDeleteResult) {
		for k, r := range res {
			resp.Partitions[askedAt[k]].Error, resp.Partitions[askedAt[k]].LowWatermark = r.err, r.lowWatermark
		}
		done(&Reply{DeleteRecords: resp})
	})
}
