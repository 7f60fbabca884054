package kafka

// CreateTopics (key 19), v0-v7.
//
// Creates topics on the simulated cluster with Kafka's placement and
// errors (TOPIC_ALREADY_EXISTS, INVALID_PARTITIONS,
// INVALID_REPLICATION_FACTOR, INVALID_CONFIG...). From 2.4 (KIP-464) -1
// partitions or replication factor take the cluster's num.partitions and
// default.replication.factor, as the controller's own settings
// (ReplicationControlManager.createTopic: defaultNumPartitions,
// defaultReplicationFactor); before, -1 is refused as any count below 1
// (AdminUtils.assignReplicasToBrokers). An explicit replica assignment is
// used as given, and only with -1 for both (INVALID_REQUEST otherwise). validate_only (v1+) runs every check of a creation, placement
// included, and creates nothing (core.ValidateCreateTopic). A topic
// created is answered with its partitions and replication factor (v5+,
// KIP-525), its configs as DescribeConfigs has them (v5+) and its topic
// id (v7+, KIP-516); a topic refused with -1 for both, the schema's
// default (CreatableTopicResult), no configs and no id. In ZooKeeper
// mode the request must reach the controller (NOT_CONTROLLER otherwise);
// in KRaft mode any broker forwards it. A topic named twice is
// INVALID_REQUEST (create_topics_dup.go).

import (
	"context"
	"sort"
	"strconv"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(19, 0, 7, handleCreateTopics) }

func handleCreateTopics(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.CreateTopicsRequest)
	return local(cx, func() kmsg.Response {
		resp := req.ResponseKind().(*kmsg.CreateTopicsResponse)
		notCtrl := controllerCheck(cx)
		create := func(t kmsg.CreateTopicsRequestTopic) kmsg.CreateTopicsResponseTopic {
			return createTopic(cx, req, t, notCtrl)
		}
		if dups := duplicateNames(req.Topics); len(dups) > 0 && notCtrl == 0 {
			if style := createDupStyle(cx); style != dupNone {
				resp.Topics = createTopicsWithDuplicates(cx, req.Topics, dups, style, create)
				return resp
			}
		}
		for _, t := range req.Topics {
			resp.Topics = append(resp.Topics, create(t))
		}
		return resp
	}), nil
}

// createTopic creates (or, validate_only, checks) one topic and answers it.
func createTopic(cx *reqCtx, req *kmsg.CreateTopicsRequest, t kmsg.CreateTopicsRequestTopic, notCtrl int16) kmsg.CreateTopicsResponseTopic {
	rt := kmsg.NewCreateTopicsResponseTopic()
	rt.Topic = t.Topic
	ct := createCommand(cx, t)
	var err error
	switch {
	case notCtrl != 0:
		rt.ErrorCode = notCtrl
		return rt
	case len(t.ReplicaAssignment) > 0 && (t.NumPartitions != -1 || t.ReplicationFactor != -1):
		rt.ErrorCode, rt.ErrorMessage = 42, assignmentAndCounts(cx, t)
		return rt
	case !consecutive(t.ReplicaAssignment):
		msg := "partitions should be a consecutive 0-based integer sequence" // ReplicationControlManager.createTopic
		rt.ErrorCode, rt.ErrorMessage = 39, &msg                             // INVALID_REPLICA_ASSIGNMENT
		return rt
	case req.ValidateOnly:
		cx.s.backend.Do(context.Background(), func(c *core.Cluster) { err = c.ValidateCreateTopic(ct) })
	default:
		err = cx.s.backend.Apply(context.Background(), ct)
	}
	if rt.ErrorCode, rt.ErrorMessage = coreError(err); rt.ErrorCode != 0 {
		return rt
	}
	rt.NumPartitions, rt.ReplicationFactor = int32(ct.Partitions), int16(ct.RF)
	if req.ValidateOnly {
		return rt
	}
	cx.s.backend.Do(context.Background(), func(c *core.Cluster) {
		if req.Version >= 7 {
			rt.TopicID, _ = c.TopicID(ct.Topic)
		}
		if req.Version >= 5 {
			es, _ := c.TopicConfigs(ct.Topic)
			for _, e := range es {
				rc := kmsg.NewCreateTopicsResponseTopicConfig()
				v := e.Value
				rc.Name, rc.Value, rc.ReadOnly = e.Name, &v, e.ReadOnly
				rc.Source = configSources[e.Source]
				rt.Configs = append(rt.Configs, rc)
			}
		}
	})
	return rt
}

// consecutive reports whether an explicit assignment's partition indexes
// are 0, 1, 2... in some order (an empty assignment is). Kafka refuses
// any other set; createCommand sorts them and used to renumber a set
// such as {0, 2} as partitions 0 and 1.
func consecutive(as []kmsg.CreateTopicsRequestTopicReplicaAssignment) bool {
	seen := make([]bool, len(as))
	for _, a := range as {
		if a.Partition < 0 || int(a.Partition) >= len(as) || seen[a.Partition] {
			return false
		}
		seen[a.Partition] = true
	}
	return true
}

// assignmentAndCounts is the INVALID_REQUEST message for an explicit
// assignment sent with partitions or a replication factor other than -1:
// ZooKeeper mode's (AdminManager.createTopics@0.11.0.2,
// ZkAdminManager.createTopics@2.8.2) or KRaft's, which checks the
// replication factor first (ReplicationControlManager.createTopic).
func assignmentAndCounts(cx *reqCtx, t kmsg.CreateTopicsRequestTopic) *string {
	var mode string
	cx.s.backend.Do(context.Background(), func(c *core.Cluster) { mode = c.Mode() })
	msg := "Both numPartitions or replicationFactor and replicasAssignments were set. Both cannot be used at the same time."
	switch {
	case mode != "kraft":
	case t.ReplicationFactor != -1:
		msg = "A manual partition assignment was specified, but replication factor was not set to -1."
	default:
		msg = "A manual partition assignment was specified, but numPartitions was not set to -1."
	}
	return &msg
}

// createCommand is the core command for request topic t, -1 partitions
// or replication factor taken from the cluster's defaults from 2.4
// (KIP-464) and left for the core to refuse before.
func createCommand(cx *reqCtx, t kmsg.CreateTopicsRequestTopic) core.CreateTopic {
	ct := core.CreateTopic{Topic: t.Topic, Partitions: int(t.NumPartitions), RF: int(t.ReplicationFactor), Configs: map[string]string{}}
	defaults := false
	cx.s.backend.Do(context.Background(), func(c *core.Cluster) { defaults = c.CreateTopicDefaults() })
	if ct.Partitions == -1 && defaults { // -2 and below stay, for the core to refuse
		ct.Partitions = clusterDefault(cx, "num.partitions")
	}
	if ct.RF == -1 && defaults {
		ct.RF = clusterDefault(cx, "default.replication.factor")
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
	return ct
}

// clusterDefault is broker config name as the asked broker has it (what
// a `set` gave it, else the preset's default), or the catalog's default.
func clusterDefault(cx *reqCtx, name string) int {
	n := brokerDefault(name, 1)
	cx.s.backend.Do(context.Background(), func(c *core.Cluster) {
		es, _ := c.BrokerConfigs(cx.broker)
		for _, e := range es {
			if v, err := strconv.Atoi(e.Value); err == nil && e.Name == name {
				n = v
			}
		}
	})
	return n
}
