package kafka

// CreateTopics (key 19), v0-v7.
//
// Creates topics on the simulated cluster with Kafka's placement and
// errors (TOPIC_ALREADY_EXISTS, INVALID_PARTITIONS,
// INVALID_REPLICATION_FACTOR, INVALID_CONFIG...). -1 partitions or
// replication factor take the broker defaults; an explicit replica
// assignment is used as given; validate_only (v1+) checks without
// creating (here: answers as if created when the name is free). In
// ZooKeeper mode the request must reach the controller (NOT_CONTROLLER
// otherwise); in KRaft mode any broker forwards it.

import (
	"context"
	"sort"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(19, 0, 7, handleCreateTopics) }

func handleCreateTopics(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.CreateTopicsRequest)
	return local(cx, func() kmsg.Response {
		resp := req.ResponseKind().(*kmsg.CreateTopicsResponse)
		notCtrl := controllerCheck(cx)
		for _, t := range req.Topics {
			rt := kmsg.NewCreateTopicsResponseTopic()
			rt.Topic, rt.NumPartitions, rt.ReplicationFactor = t.Topic, t.NumPartitions, t.ReplicationFactor
			ct := core.CreateTopic{Topic: t.Topic, Partitions: int(t.NumPartitions), RF: int(t.ReplicationFactor), Configs: map[string]string{}}
			if ct.Partitions < 0 {
				ct.Partitions = brokerDefault("num.partitions", 1)
			}
			if ct.RF < 0 {
				ct.RF = brokerDefault("default.replication.factor", 1)
			}
			if len(t.ReplicaAssignment) > 0 {
				sort.Slice(t.ReplicaAssignment, func(i, j int) bool { return t.ReplicaAssignment[i].Partition < t.ReplicaAssignment[j].Partition })
				for _, a := range t.ReplicaAssignment {
					ids := make([]int, len(a.Replicas))
					for i, id := range a.Replicas {
						ids[i] = int(id)
					}
					ct.Assign = append(ct.Assign, ids)
				}
				ct.Partitions, ct.RF = len(ct.Assign), len(ct.Assign[0])
			}
			for _, c := range t.Configs {
				if c.Value != nil {
					ct.Configs[c.Name] = *c.Value
				}
			}
			switch {
			case notCtrl != 0:
				rt.ErrorCode = notCtrl
			case req.ValidateOnly:
				var exists bool
				cx.s.backend.Do(context.Background(), func(c *core.Cluster) {
					for _, tv := range c.Snapshot().Topics {
						exists = exists || tv.Name == t.Topic
					}
				})
				if exists {
					rt.ErrorCode = 36 // TOPIC_ALREADY_EXISTS
				}
			default:
				rt.ErrorCode, rt.ErrorMessage = coreError(cx.s.backend.Apply(context.Background(), ct))
			}
			if rt.ErrorCode == 0 {
				rt.NumPartitions, rt.ReplicationFactor = int32(ct.Partitions), int16(ct.RF)
			}
			resp.Topics = append(resp.Topics, rt)
		}
		return resp
	}), nil
}
