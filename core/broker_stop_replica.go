package core

import (
	"fmt"
	"sort"
)

// strayPartitions are the partitions of deleted topics this broker still
// holds a replica of (it was down when they were deleted), in topic
// creation and partition order.
func (b *Broker) strayPartitions() []*Partition {
	var out []*Partition
	for p := range b.replicas {
		if p.Topic.deleted {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Topic.seq != out[j].Topic.seq {
			return out[i].Topic.seq < out[j].Topic.seq
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// forgetPartitions drops deleted partitions from the broker's metadata
// cache (ZkMetadataCache.updateMetadata removes a partition whose leader is
// LeaderDuringDelete; a KRaft broker applies the RemoveTopicRecord): from
// then on its Metadata answers leave them out and name the topic
// UNKNOWN_TOPIC_OR_PARTITION. Its group coordinator removes the offsets
// committed for them (KafkaApis.handleUpdateMetadataRequest and
// BrokerMetadataPublisher call GroupCoordinator.onPartitionsDeleted).
func (b *Broker) forgetPartitions(parts []*Partition) {
	b.metaSeen = true
	var dropped []*Partition
	for _, p := range parts {
		if _, ok := b.cache[p]; ok {
			delete(b.cache, p)
			dropped = append(dropped, p)
		}
	}
	if len(dropped) > 0 && b.groups != nil {
		b.groups.onPartitionsDeleted(dropped)
	}
	if len(dropped) > 0 {
		b.checkDeleteWaits()
	}
}

// deleteReplicas is ReplicaManager.stopReplicas with deletePartition=true:
// each replica stops (a follower leaves its fetch session; acks=all
// requests waiting on a leader fail, UNKNOWN_TOPIC_OR_PARTITION, as
// DelayedProduce finds the partition gone; parked fetches are answered at
// once) and its log is deleted (LogManager.asyncDelete renames the
// directory <topic>-<n>.<id>-delete and removes it file.delete.delay.ms
// later). A partition this broker holds no replica of is already deleted.
func (b *Broker) deleteReplicas(parts []*Partition) {
	any := false
	for _, p := range parts {
		r := b.replicas[p]
		if r == nil {
			continue
		}
		any = true
		r.failWaiting("UNKNOWN_TOPIC_OR_PARTITION")
		delete(b.replicas, p)
		delete(b.hwCheckpoint, p)
		r.resetVolatile()
		b.wakeLost(p)
		b.c.emit(Event{Type: EvTopicDelete, Topic: p.Topic.Name, Partition: p.Name, Broker: b.ID, State: DeleteReplica, Offset: r.log.StartOffset(), EndOffset: r.log.LEO(),
			Detail: fmt.Sprintf("broker %d deleted its replica of %s (offsets %d..%d): log directory renamed %s.<id>-delete and removed after file.delete.delay.ms", b.ID, p.Name, r.log.StartOffset(), r.log.LEO(), p.Name)})
	}
	if any {
		b.shutdownIdleFetchers()
	}
}
