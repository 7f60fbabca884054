package core

import (
	"errors"
	"maps"
	"slices"
)

// extBody is the one request body a BrokerRequest carries: its API name,
// its checks, whether it gets a reply (acks=0 produce does not) and how
// the broker serves it. serve calls done exactly once, with the reply
// (nil: none), possibly later in simulated time (acks=all, a held fetch).
type extBody interface {
	api() string
	check() error
	answered() bool
	serve(x *extConns, cn *extConn, done func(*Reply))
}

// body returns the request's one body.
func (x BrokerRequest) body() (extBody, error) {
	var set []extBody
	add := func(ok bool, b extBody) {
		if ok {
			set = append(set, b)
		}
	}
	add(x.Produce != nil, produceBody{x.Produce})
	add(x.Fetch != nil, fetchBody{x.Fetch})
	add(x.Metadata != nil, metadataBody{x.Metadata})
	add(x.ListOffsets != nil, listOffsetsBody{x.ListOffsets})
	add(x.OffsetForLeaderEpoch != nil, epochBody{x.OffsetForLeaderEpoch})
	add(x.InitProducerID != nil, initPIDBody{x.InitProducerID})
	add(x.FindCoordinator != nil, findCoordinatorBody{x.FindCoordinator})
	add(x.OffsetCommit != nil, offsetCommitBody{x.OffsetCommit})
	add(x.OffsetFetch != nil, offsetFetchBody{x.OffsetFetch})
	add(x.JoinGroup != nil, joinGroupBody{x.JoinGroup})
	add(x.SyncGroup != nil, syncGroupBody{x.SyncGroup})
	add(x.Heartbeat != nil, heartbeatBody{x.Heartbeat})
	add(x.LeaveGroup != nil, leaveGroupBody{x.LeaveGroup})
	add(x.DeleteTopics != nil, deleteTopicsBody{x.DeleteTopics})
	add(x.DeleteGroups != nil, deleteGroupsBody{x.DeleteGroups})
	add(x.DeleteRecords != nil, deleteRecordsBody{x.DeleteRecords})
	add(x.OffsetDelete != nil, offsetDeleteBody{x.OffsetDelete})
	add(x.Other != nil, otherBody{x.Other})
	if len(set) != 1 {
		return nil, errors.New("want exactly one request body (produce, fetch, metadata, ...)")
	}
	return set[0], nil
}

// cloneMore deep-copies the bodies of external_api_more.go.
func (x *BrokerRequest) cloneMore() {
	if m := x.Metadata; m != nil {
		cp := *m
		cp.Topics = slices.Clone(m.Topics)
		x.Metadata = &cp
	}
	if l := x.ListOffsets; l != nil {
		x.ListOffsets = &ListOffsetsRequest{Partitions: slices.Clone(l.Partitions)}
	}
	if e := x.OffsetForLeaderEpoch; e != nil {
		x.OffsetForLeaderEpoch = &OffsetForLeaderEpochRequest{Partitions: slices.Clone(e.Partitions)}
	}
	if p := x.InitProducerID; p != nil {
		cp := *p
		x.InitProducerID = &cp
	}
	if f := x.FindCoordinator; f != nil {
		cp := *f
		cp.Keys = slices.Clone(f.Keys)
		x.FindCoordinator = &cp
	}
	if o := x.OffsetCommit; o != nil {
		cp := *o
		cp.Partitions = slices.Clone(o.Partitions)
		x.OffsetCommit = &cp
	}
	if o := x.OffsetFetch; o != nil {
		cp := *o
		cp.Partitions = slices.Clone(o.Partitions)
		cp.Groups = slices.Clone(o.Groups)
		for i := range cp.Groups {
			cp.Groups[i].Partitions = slices.Clone(o.Groups[i].Partitions)
		}
		x.OffsetFetch = &cp
	}
	if j := x.JoinGroup; j != nil {
		cp := *j
		cp.Protocols, cp.Topics, cp.Owned = slices.Clone(j.Protocols), slices.Clone(j.Topics), slices.Clone(j.Owned)
		x.JoinGroup = &cp
	}
	if s := x.SyncGroup; s != nil {
		cp := *s
		if s.Assignments != nil {
			cp.Assignments = make(map[string][]GroupPartition, len(s.Assignments))
			for k, v := range s.Assignments {
				cp.Assignments[k] = slices.Clone(v)
			}
		}
		cp.Raw = maps.Clone(s.Raw)
		x.SyncGroup = &cp
	}
	if h := x.Heartbeat; h != nil {
		cp := *h
		x.Heartbeat = &cp
	}
	if l := x.LeaveGroup; l != nil {
		cp := *l
		cp.MemberIDs = slices.Clone(l.MemberIDs)
		x.LeaveGroup = &cp
	}
	if d := x.DeleteTopics; d != nil {
		cp := *d
		cp.Topics = slices.Clone(d.Topics)
		x.DeleteTopics = &cp
	}
	if d := x.DeleteGroups; d != nil {
		x.DeleteGroups = &DeleteGroupsRequest{Groups: slices.Clone(d.Groups)}
	}
	if d := x.DeleteRecords; d != nil {
		x.DeleteRecords = &DeleteRecordsRequest{TimeoutMs: d.TimeoutMs, Partitions: slices.Clone(d.Partitions)}
	}
	if o := x.OffsetDelete; o != nil {
		x.OffsetDelete = &OffsetDeleteRequest{Group: o.Group, Partitions: slices.Clone(o.Partitions)}
	}
	if o := x.Other; o != nil {
		cp := *o
		x.Other = &cp
	}
}

type produceBody struct{ r *ProduceRequest }

func (b produceBody) api() string    { return "Produce" }
func (b produceBody) check() error   { return checkProduce(b.r) }
func (b produceBody) answered() bool { return b.r.Acks != 0 }
func (b produceBody) serve(x *extConns, cn *extConn, done func(*Reply)) {
	x.produce(cn, b.r, done)
}

type fetchBody struct{ r *FetchRequest }

func (b fetchBody) api() string    { return "Fetch" }
func (b fetchBody) check() error   { return checkFetch(b.r) }
func (b fetchBody) answered() bool { return true }
func (b fetchBody) serve(x *extConns, cn *extConn, done func(*Reply)) {
	x.fetch(cn, b.r, done)
}

// checkPartitionCount bounds a request's partitions.
func checkPartitionCount(n int) error {
	if n > MaxRequestPartitions {
		return errors.New("too many partitions in one request")
	}
	return nil
}
