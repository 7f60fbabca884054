package kafka

// ElectLeaders (key 43), v0-v2 (KIP-460; v0 is KIP-183's preferred
// election only).
//
// kafka-leader-election.sh and Admin.electLeaders: a preferred (0) or,
// from v1, unclean (1) election of the partitions named, or of every
// partition when topics is null. Each partition is answered as the
// controller answers it (core.Cluster.CheckElectLeader:
// ELECTION_NOT_NEEDED, PREFERRED_LEADER_NOT_AVAILABLE,
// ELIGIBLE_LEADERS_NOT_AVAILABLE, UNKNOWN_TOPIC_OR_PARTITION) and those
// it would elect go through the core's ElectLeaders command, so a room's
// history replays the elections. In ZooKeeper mode only the controller
// elects (every partition NOT_CONTROLLER elsewhere:
// KafkaController.processReplicaLeaderElection) and every partition of a
// null request is answered; KRaft's ReplicationControlManager.electLeaders
// leaves the ones not needing an election out of a null request's answer.
// Kafka's ZooKeeper controller answers once the brokers' metadata shows
// the new leaders (DelayedElectLeader); here the answer comes when the
// controller has written them.

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(43, 0, 2, handleElectLeaders) }

func handleElectLeaders(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.ElectLeadersRequest)
	return local(cx, func() kmsg.Response {
		resp := req.ResponseKind().(*kmsg.ElectLeadersResponse)
		election := core.ElectPreferred
		switch {
		case req.Version >= 1 && req.ElectionType == 1:
			election = core.ElectUnclean
		case req.Version >= 1 && req.ElectionType != 0:
			resp.ErrorCode = 42 // INVALID_REQUEST
			return resp
		}
		notCtrl := controllerCheck(cx)
		results := map[string]error{}
		var names []topicPartition
		var elect []string
		cx.s.backend.Do(context.Background(), func(c *core.Cluster) {
			names = requestedPartitions(c, req)
			for _, tp := range names {
				n := tp.name()
				if _, seen := results[n]; seen {
					continue
				}
				var err error
				if notCtrl != 0 {
					err = fmt.Errorf("NOT_CONTROLLER: this broker is not the controller")
				} else {
					err = c.CheckElectLeader(election, n)
				}
				results[n] = err
				if err == nil {
					elect = append(elect, n)
				}
			}
			if req.Topics == nil && c.Mode() != "zk" {
				names = slices.DeleteFunc(names, func(tp topicPartition) bool {
					err := results[tp.name()]
					return err != nil && strings.HasPrefix(err.Error(), "ELECTION_NOT_NEEDED:")
				})
			}
		})
		if len(elect) > 0 {
			if err := cx.s.backend.Apply(context.Background(), core.ElectLeaders{Election: election, Partitions: elect}); err != nil {
				for _, n := range elect {
					results[n] = err
				}
			}
		}
		resp.Topics = electResults(names, results)
		return resp
	}), nil
}

// topicPartition is one partition a request names.
type topicPartition struct {
	topic     string
	partition int32
}

// name is the partition's core name, TOPIC-N.
func (tp topicPartition) name() string { return tp.topic + "-" + strconv.Itoa(int(tp.partition)) }

// requestedPartitions is the request's partitions, every partition of
// every topic when its topics are null.
func requestedPartitions(c *core.Cluster, req *kmsg.ElectLeadersRequest) []topicPartition {
	var out []topicPartition
	if req.Topics == nil {
		for _, t := range c.Topics() {
			if t.Deleted() {
				continue
			}
			for _, p := range t.Partitions() {
				out = append(out, topicPartition{t.Name, int32(p.ID)})
			}
		}
		return out
	}
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			out = append(out, topicPartition{t.Topic, p})
		}
	}
	return out
}

// electResults groups the per-partition answers by topic, in request
// order, each partition once.
func electResults(names []topicPartition, results map[string]error) []kmsg.ElectLeadersResponseTopic {
	var out []kmsg.ElectLeadersResponseTopic
	index := map[string]int{}
	done := map[topicPartition]bool{}
	for _, tp := range names {
		if done[tp] {
			continue
		}
		done[tp] = true
		k, ok := index[tp.topic]
		if !ok {
			k = len(out)
			index[tp.topic] = k
			rt := kmsg.NewElectLeadersResponseTopic()
			rt.Topic = tp.topic
			out = append(out, rt)
		}
		rp := kmsg.NewElectLeadersResponseTopicPartition()
		rp.Partition = tp.partition
		rp.ErrorCode, rp.ErrorMessage = coreError(results[tp.name()])
		out[k].Partitions = append(out[k].Partitions, rp)
	}
	return out
}
