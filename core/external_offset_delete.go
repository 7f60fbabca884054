package core

// OffsetDeleteRequest is an outside client's OffsetDelete (KIP-496, 2.4+:
// Admin.deleteConsumerGroupOffsets, kafka-consumer-groups.sh
// --delete-offsets): the committed offsets of Partitions to delete for
// Group, at the broker that coordinates it.
type OffsetDeleteRequest struct {
	Group      string           `json:"group"`
	Partitions []GroupPartition `json:"partitions"`
}

// OffsetDeleteResponse answers an OffsetDeleteRequest: a group error
// (INVALID_GROUP_ID, NOT_COORDINATOR, GROUP_ID_NOT_FOUND,
// COORDINATOR_NOT_AVAILABLE, or on 4.0 the failed write's) with no
// partitions, or each partition's, in request order, a partition named
// twice once: "" (deleted), UNKNOWN_TOPIC_OR_PARTITION (not in the
// broker's metadata) or GROUP_SUBSCRIBED_TO_TOPIC (the group has members
// that subscribe to its topic).
type OffsetDeleteResponse struct {
	Error      string                          `json:"error,omitempty"`
	Partitions []OffsetDeletePartitionResponse `json:"partitions"`
}

// OffsetDeletePartitionResponse is one partition's answer.
type OffsetDeletePartitionResponse struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Error     string `json:"error,omitempty"`
}

type offsetDeleteBody struct{ r *OffsetDeleteRequest }

func (b offsetDeleteBody) api() string    { return "OffsetDelete" }
func (b offsetDeleteBody) answered() bool { return true }
func (b offsetDeleteBody) check() error   { return checkPartitionCount(len(b.r.Partitions)) }

// serve is KafkaApis.handleOffsetDeleteRequest: a partition the asked
// broker's metadata does not have is UNKNOWN_TOPIC_OR_PARTITION, the
// others go to its coordinator (coordinator.deleteOffsets), after
// GroupCoordinator.validateGroupStatus: an empty group id is
// INVALID_GROUP_ID. A group error answers the request with it alone
// (OffsetDeleteRequest.getErrorResponse drops every partition).
func (b offsetDeleteBody) serve(x *extConns, cn *extConn, done func(*Reply)) {
	resp := &OffsetDeleteResponse{Partitions: []OffsetDeletePartitionResponse{}}
	fail := func(err string) {
		resp.Error, resp.Partitions = err, []OffsetDeletePartitionResponse{}
		done(&Reply{OffsetDelete: resp})
	}
	switch {
	case b.r.Group == "":
		fail("INVALID_GROUP_ID")
		return
	case x.c.preset.offsetsInZK:
		fail("COORDINATOR_NOT_AVAILABLE") // 0.8: no broker coordinates groups
		return
	}
	seen := map[GroupPartition]bool{}
	var parts []*Partition
	var at []int // parts' answers in resp
	for _, op := range b.r.Partitions {
		if seen[op] {
			continue
		}
		seen[op] = true
		out := OffsetDeletePartitionResponse{Topic: op.Topic, Partition: op.Partition}
		p, err := x.partition(op.Topic, op.Partition)
		if _, known := cn.broker.cache[p]; err == "" && !known {
			err = "UNKNOWN_TOPIC_OR_PARTITION"
		}
		if out.Error = err; err == "" {
			parts, at = append(parts, p), append(at, len(resp.Partitions))
		}
		resp.Partitions = append(resp.Partitions, out)
	}
	cn.broker.groups.deleteOffsets(b.r.Group, parts, func(err string, subscribed map[*Partition]bool) {
		if err != "" {
			fail(err)
			return
		}
		for k, p := range parts {
			if subscribed[p] {
				resp.Partitions[at[k]].Error = "GROUP_SUBSCRIBED_TO_TOPIC"
			}
		}
		done(&Reply{OffsetDelete: resp})
	})
}
