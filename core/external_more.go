package core

import (
	"fmt"
	"sort"
)

// Serving the APIs of external_api_more.go on the broker an outside
// connection reaches: each translates to the broker's named handler
// (broker_*.go) and its answer back.

type metadataBody struct{ r *MetadataRequest }

func (b metadataBody) api() string    { return "Metadata" }
func (b metadataBody) check() error   { return checkPartitionCount(len(b.r.Topics)) }
func (b metadataBody) answered() bool { return true }

// serve answers from the broker's metadata cache (handleMetadata), which
// lags the controller: a client asking a broker that has not heard of a
// change yet sees the old leader, as in Kafka.
func (b metadataBody) serve(x *extConns, cn *extConn, done func(*Reply)) {
	c, br := x.c, cn.broker
	resp := &MetadataResponse{ClusterID: c.clusterID(), Controller: c.md.controller, Brokers: []MetadataBroker{}, Topics: []MetadataTopic{}}
	if c.mode == "kraft" {
		resp.Controller = -1
	}
	live := c.md.liveIDs()
	for _, id := range live {
		resp.Brokers = append(resp.Brokers, MetadataBroker{ID: id, Rack: c.brokers[id-1].Rack})
	}
	if c.mode == "kraft" && len(live) > 0 {
		resp.Controller = live[0]
	}
	names := b.r.Topics
	if names == nil {
		for _, t := range c.order {
			if _, known := br.cache[t.parts[0]]; known {
				names = append(names, t.Name)
			}
		}
	}
	var ask []string
	for _, n := range names {
		if c.topics[n] != nil || b.r.AllowAutoCreate {
			ask = append(ask, n)
		} else {
			resp.Topics = append(resp.Topics, MetadataTopic{Name: n, Error: "UNKNOWN_TOPIC_OR_PARTITION", Partitions: []MetadataPartition{}})
		}
	}
	isLive := map[int]bool{}
	for _, id := range live {
		isLive[id] = true
	}
	var res metadataResult
	if len(ask) > 0 {
		res = br.handleMetadata(metadataReq{topics: ask})
	}
	if res.empty {
		// A broker just restarted knows no brokers yet: clients ignore
		// such an answer and ask again (NetworkClient).
		resp.Brokers = []MetadataBroker{}
	}
	{
		for _, tm := range res.topics {
			mt := MetadataTopic{Name: tm.name, Error: tm.err, Partitions: []MetadataPartition{}}
			if t := c.topics[tm.name]; t != nil {
				mt.Internal = t.Internal
				mt.TopicID = t.id()
			}
			if mt.Error == "LEADER_NOT_AVAILABLE" && len(tm.parts) > 0 {
				mt.Error = ""
			}
			for _, pm := range tm.parts {
				st := br.cache[pm.p]
				mp := MetadataPartition{Partition: int32(pm.p.ID), Leader: pm.leader, LeaderEpoch: pm.epoch,
					Replicas: append([]int{}, pm.p.replicas...), ISR: append([]int{}, st.isr...), Offline: []int{}}
				for _, id := range pm.p.replicas {
					if !isLive[id] {
						mp.Offline = append(mp.Offline, id)
					}
				}
				if mp.Leader < 0 {
					mp.Error = "LEADER_NOT_AVAILABLE"
				}
				mt.Partitions = append(mt.Partitions, mp)
			}
			resp.Topics = append(resp.Topics, mt)
		}
	}
	sort.Slice(resp.Topics, func(i, j int) bool { return resp.Topics[i].Name < resp.Topics[j].Name })
	done(&Reply{Metadata: resp})
}

// clusterID is the cluster's id, fixed by its seed (Kafka's is a random
// base64 UUID made when the cluster is first formatted).
func (c *Cluster) clusterID() string {
	id := topicID(fmt.Sprint("cluster-", c.opts.Seed), 0)
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	out := make([]byte, 22)
	for i := range out {
		out[i] = alphabet[id[i%16]>>2^byte(i)&63]
	}
	return string(out)
}

type listOffsetsBody struct{ r *ListOffsetsRequest }

func (b listOffsetsBody) api() string    { return "ListOffsets" }
func (b listOffsetsBody) check() error   { return checkPartitionCount(len(b.r.Partitions)) }
func (b listOffsetsBody) answered() bool { return true }
func (b listOffsetsBody) serve(x *extConns, cn *extConn, done func(*Reply)) {
	resp := &ListOffsetsResponse{Partitions: make([]ListOffsetsPartitionResponse, len(b.r.Partitions))}
	// KafkaApis.handleListOffsetRequest: a partition asked twice in one
	// request (ListOffsetsRequest.duplicatePartitions) is answered
	// INVALID_REQUEST wherever it appears; the others are answered.
	seen := make(map[GroupPartition]int, len(b.r.Partitions))
	for _, lp := range b.r.Partitions {
		seen[GroupPartition{Topic: lp.Topic, Partition: lp.Partition}]++
	}
	for i, lp := range b.r.Partitions {
		out := ListOffsetsPartitionResponse{Topic: lp.Topic, Partition: lp.Partition, Offset: -1, LeaderEpoch: -1, Timestamp: -1}
		p, err := x.partition(lp.Topic, lp.Partition)
		if seen[GroupPartition{Topic: lp.Topic, Partition: lp.Partition}] > 1 {
			err = "INVALID_REQUEST"
		}
		if err == "" {
			r, e := cn.broker.leaderFor(p)
			switch {
			case e != "":
				err = e
			case lp.CurrentLeaderEpoch >= 0 && lp.CurrentLeaderEpoch < r.epoch:
				err = "FENCED_LEADER_EPOCH"
			case lp.CurrentLeaderEpoch > r.epoch:
				err = "UNKNOWN_LEADER_EPOCH"
			default:
				out.Offset, out.LeaderEpoch, out.Timestamp = r.offsetForTimestamp(lp.Timestamp)
			}
		}
		out.Error = err
		if err != "" {
			out.Offset, out.LeaderEpoch = -1, -1
		}
		resp.Partitions[i] = out
	}
	done(&Reply{ListOffsets: resp})
}

// offsetForTimestamp is UnifiedLog.fetchOffsetByTimestamp for a
// read_uncommitted client: -2 the log start, -1 the HW, -3 the first
// record with the largest timestamp, else the first record whose
// timestamp is at or after ts below the HW (LogSegment.findOffsetByTimestamp
// skips batches whose max timestamp is earlier, then scans records; -1
// offset: none).
func (r *Replica) offsetForTimestamp(ts int64) (offset int64, epoch int32, found int64) {
	switch ts {
	case listEarliest:
		return r.log.StartOffset(), r.epoch, -1
	case listLatest:
		return r.hw, r.epoch, -1
	}
	best, bestTS, bestEpoch := int64(-1), int64(-1), int32(-1)
	for _, bt := range r.log.Batches(r.log.StartOffset()) {
		if bt.BaseOffset >= r.hw {
			break
		}
		if mx := bt.MaxTimestamp(); (ts == -3 && mx <= bestTS) || (ts != -3 && mx < ts) {
			continue
		}
		for i := range bt.Len() {
			off, rts := bt.Offset(i), bt.RecordTimestamp(i)
			if off >= r.hw || off < r.log.StartOffset() {
				continue
			}
			if ts == -3 {
				if rts > bestTS {
					best, bestTS, bestEpoch = off, rts, bt.Epoch
				}
				continue
			}
			if rts >= ts {
				return off, bt.Epoch, rts
			}
		}
	}
	return best, bestEpoch, bestTS
}

type epochBody struct{ r *OffsetForLeaderEpochRequest }

func (b epochBody) api() string    { return "OffsetForLeaderEpoch" }
func (b epochBody) check() error   { return checkPartitionCount(len(b.r.Partitions)) }
func (b epochBody) answered() bool { return true }
func (b epochBody) serve(x *extConns, cn *extConn, done func(*Reply)) {
	resp := &OffsetForLeaderEpochResponse{Partitions: make([]OffsetForLeaderEpochPartitionResponse, len(b.r.Partitions))}
	for i, q := range b.r.Partitions {
		out := OffsetForLeaderEpochPartitionResponse{Topic: q.Topic, Partition: q.Partition, LeaderEpoch: -1, EndOffset: -1}
		p, err := x.partition(q.Topic, q.Partition)
		if err == "" {
			cur := q.CurrentLeaderEpoch
			if cur < 0 { // no fencing asked for: take the leader's own
				if lr := cn.broker.replicas[p]; lr != nil {
					cur = lr.epoch
				}
			}
			res := cn.broker.handleOffsetsForLeaderEpoch(offsetsForLeaderEpochReq{replica: -1,
				parts: []epochQuery{{p: p, currentEpoch: cur, leaderEpoch: q.LeaderEpoch}}})[0]
			err, out.LeaderEpoch, out.EndOffset = res.err, res.leaderEpoch, res.endOffset
		}
		out.Error = err
		resp.Partitions[i] = out
	}
	done(&Reply{OffsetForLeaderEpoch: resp})
}

type initPIDBody struct{ r *InitProducerIDRequest }

func (b initPIDBody) api() string    { return "InitProducerId" }
func (b initPIDBody) check() error   { return nil }
func (b initPIDBody) answered() bool { return true }
func (b initPIDBody) serve(x *extConns, cn *extConn, done func(*Reply)) {
	res := cn.broker.handleInitProducerId(initProducerIDReq{transactionalID: b.r.TransactionalID})
	done(&Reply{InitProducerID: &InitProducerIDResponse{Error: res.err, ProducerID: res.pid, ProducerEpoch: res.pepoch}})
}

type findCoordinatorBody struct{ r *FindCoordinatorRequest }

func (b findCoordinatorBody) api() string    { return "FindCoordinator" }
func (b findCoordinatorBody) check() error   { return checkPartitionCount(len(b.r.Keys)) }
func (b findCoordinatorBody) answered() bool { return true }
func (b findCoordinatorBody) serve(x *extConns, cn *extConn, done func(*Reply)) {
	if len(b.r.Keys) == 0 {
		err, id := b.find(x, cn, b.r.Key)
		done(&Reply{FindCoordinator: &FindCoordinatorResponse{Error: err, Coordinator: id}})
		return
	}
	resp := &FindCoordinatorResponse{Coordinator: -1, Coordinators: make([]FindCoordinatorKeyResponse, len(b.r.Keys))}
	for i, key := range b.r.Keys {
		err, id := b.find(x, cn, key)
		resp.Coordinators[i] = FindCoordinatorKeyResponse{Key: key, Error: err, Coordinator: id}
	}
	done(&Reply{FindCoordinator: resp})
}

// find looks one key up (KafkaApis.getCoordinator).
func (b findCoordinatorBody) find(x *extConns, cn *extConn, key string) (string, int) {
	if b.r.KeyType == 1 {
		return txnDenied, -1
	}
	if b.r.KeyType != 0 {
		return "COORDINATOR_NOT_AVAILABLE", -1
	}
	if x.c.preset.offsetsInZK {
		// 0.8: offsets and groups live in ZooKeeper; no broker coordinates.
		return "COORDINATOR_NOT_AVAILABLE", -1
	}
	res := cn.broker.handleFindCoordinator(findCoordinatorReq{key: key})
	return res.err, res.coordinator
}

type offsetCommitBody struct{ r *OffsetCommitRequest }

func (b offsetCommitBody) api() string    { return "OffsetCommit" }
func (b offsetCommitBody) check() error   { return checkPartitionCount(len(b.r.Partitions)) }
func (b offsetCommitBody) answered() bool { return true }
func (b offsetCommitBody) serve(x *extConns, cn *extConn, done func(*Reply)) {
	resp := &OffsetCommitResponse{Partitions: make([]OffsetCommitPartitionResponse, len(b.r.Partitions))}
	req := commitReq{group: b.r.Group, memberID: b.r.MemberID, generation: int(b.r.Generation), kip848: b.r.KIP848, offsets: map[*Partition]int64{}}
	var asked []*Partition // each answered partition's, for OFFSET_METADATA_TOO_LARGE
	var ok []int
	for i, op := range b.r.Partitions {
		resp.Partitions[i] = OffsetCommitPartitionResponse{Topic: op.Topic, Partition: op.Partition}
		p, err := x.partition(op.Topic, op.Partition)
		if err != "" {
			resp.Partitions[i].Error = err
			continue
		}
		if _, dup := req.offsets[p]; !dup {
			req.order = append(req.order, p)
		}
		req.offsets[p] = op.Offset
		if m := metaFromRequest(op.Metadata, op.LeaderEpoch); m != (commitMeta{}) {
			if req.meta == nil {
				req.meta = map[*Partition]commitMeta{}
			}
			req.meta[p] = m
		} else {
			delete(req.meta, p) // a later duplicate wins, as the offset does
		}
		ok = append(ok, i)
		asked = append(asked, p)
	}
	if len(ok) == 0 {
		// KafkaApis.handleOffsetCommitRequest: nothing left for the
		// coordinator, which is not asked (and makes no group).
		done(&Reply{OffsetCommit: resp})
		return
	}
	if b.r.Group == "" {
		for _, i := range ok {
			resp.Partitions[i].Error = "INVALID_GROUP_ID"
		}
		done(&Reply{OffsetCommit: resp})
		return
	}
	cn.broker.handleOffsetCommit(req, func(err string, tooLarge map[*Partition]bool) {
		for j, i := range ok {
			resp.Partitions[i].Error = err
			if tooLarge[asked[j]] {
				resp.Partitions[i].Error = "OFFSET_METADATA_TOO_LARGE"
			}
		}
		done(&Reply{OffsetCommit: resp})
	})
}

type offsetFetchBody struct{ r *OffsetFetchRequest }

func (b offsetFetchBody) api() string    { return "OffsetFetch" }
func (b offsetFetchBody) answered() bool { return true }
func (b offsetFetchBody) check() error {
	n := len(b.r.Partitions) + len(b.r.Groups)
	for _, g := range b.r.Groups {
		n += len(g.Partitions)
	}
	return checkPartitionCount(n)
}
func (b offsetFetchBody) serve(x *extConns, cn *extConn, done func(*Reply)) {
	if len(b.r.Groups) == 0 {
		// Every partition unless some or None are asked for, nil or empty
		// alike: the request must answer the same once its JSON is read
		// back (OffsetFetchRequest).
		want := b.r.Partitions
		switch {
		case b.r.None:
			want = []OffsetFetchPartition{}
		case len(want) == 0:
			want = nil
		}
		x.fetchGroupOffsets(cn, b.r.Group, want, b.r.RequireStable, func(resp *OffsetFetchResponse) {
			done(&Reply{OffsetFetch: resp})
		})
		return
	}
	// KafkaApis.handleOffsetFetchRequest (v8+): each group on its own,
	// one answer once all of them have theirs (CompletableFuture.allOf).
	resp := &OffsetFetchResponse{Partitions: []OffsetFetchPartitionResponse{}, Groups: make([]OffsetFetchGroupResponse, len(b.r.Groups))}
	left := len(b.r.Groups)
	for i, g := range b.r.Groups {
		want := g.Partitions
		switch {
		case g.All:
			want = nil
		case want == nil:
			want = []OffsetFetchPartition{}
		}
		x.fetchGroupOffsets(cn, g.Group, want, b.r.RequireStable, func(gr *OffsetFetchResponse) {
			resp.Groups[i] = OffsetFetchGroupResponse{Group: g.Group, Error: gr.Error, Partitions: gr.Partitions}
			if left--; left == 0 {
				done(&Reply{OffsetFetch: resp})
			}
		})
	}
}

// fetchGroupOffsets answers one group's OffsetFetch: its coordinator's
// committed offsets of partitions (nil: every partition it committed),
// or a group-level error with no partitions.
func (x *extConns) fetchGroupOffsets(cn *extConn, group string, want []OffsetFetchPartition, requireStable bool, respond func(*OffsetFetchResponse)) {
	resp := &OffsetFetchResponse{Partitions: []OffsetFetchPartitionResponse{}}
	var parts []*Partition
	var names []OffsetFetchPartition
	if want == nil {
		// Every partition the group committed: ask for all and keep those
		// with an offset.
		for _, t := range x.c.order {
			for _, p := range t.parts {
				parts = append(parts, p)
				names = append(names, OffsetFetchPartition{Topic: t.Name, Partition: int32(p.ID)})
			}
		}
	}
	known := make([]*Partition, len(want))
	for i, op := range want {
		if p, err := x.partition(op.Topic, op.Partition); err == "" {
			known[i] = p
			parts = append(parts, p)
		}
	}
	cn.broker.handleOffsetFetch(offsetFetchReq{group: group, parts: parts, requireStable: requireStable}, func(res offsetFetchResult) {
		if res.err != "" && res.err != "GROUP_ID_NOT_FOUND" {
			resp.Error = res.err
			respond(resp)
			return
		}
		answer := func(name OffsetFetchPartition, p *Partition) {
			out := OffsetFetchPartitionResponse{Topic: name.Topic, Partition: name.Partition, Offset: -1, LeaderEpoch: -1}
			if off, has := res.offsets[p]; has && p != nil {
				m := res.meta[p]
				out.Offset, out.Metadata, out.LeaderEpoch = off, m.metadata, m.leaderEpoch()
			}
			if p != nil && res.unstable[p] {
				out.Offset, out.Metadata, out.LeaderEpoch, out.Error = -1, "", -1, "UNSTABLE_OFFSET_COMMIT"
			}
			resp.Partitions = append(resp.Partitions, out)
		}
		if want == nil {
			for i, p := range parts {
				if off, has := res.offsets[p]; has && off >= 0 { // the group's committed partitions only (allOffsets)
					answer(names[i], p)
				}
			}
		}
		// A partition of no topic: the group has no offset there, -1
		// with no error (GroupMetadataManager.getOffsets; KafkaApis does
		// not look the topic up).
		for i, op := range want {
			answer(op, known[i])
		}
		respond(resp)
	})
}

type otherBody struct{ r *OtherRequest }

func (b otherBody) api() string {
	if b.r.API == "" {
		return "Request"
	}
	return b.r.API
}
func (b otherBody) check() error {
	if len(b.r.API) > 64 {
		return fmt.Errorf("API name of %d bytes", len(b.r.API))
	}
	return nil
}
func (b otherBody) answered() bool { return true }
func (b otherBody) serve(x *extConns, cn *extConn, done func(*Reply)) {
	done(&Reply{Other: &OtherResponse{}})
}
