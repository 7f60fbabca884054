package kafka

// Metadata (key 3), v0-v13.
//
// Answered by the simulated broker from its own metadata cache, which lags
// the controller like a real broker's: a client asking a broker that has
// not heard of a leader change yet gets the old leader. Every live broker
// is advertised at the host:port its listener really has, so clients
// (kcat needs this) reach each one. v1+ carry the controller and the
// internal flag, v2 the cluster id, v5 offline replicas, v7 leader
// epochs, v10 topic ids; auto-creation follows the request's flag (v4+;
// older versions always allow it) and auto.create.topics.enable. Topic
// ids in requests (v10+, by id only) are answered UNKNOWN_TOPIC_ID. v13
// (4.0) adds a top-level error code, for a server to answer
// REBOOTSTRAP_REQUIRED (KIP-1102); Kafka's broker leaves it 0, as here.

import (
	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(3, 0, 13, handleMetadata) }

func handleMetadata(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.MetadataRequest)
	mr := &core.MetadataRequest{AllowAutoCreate: req.Version < 4 || req.AllowAutoTopicCreation}
	var byID []kmsg.MetadataRequestTopic
	if req.Topics != nil || req.Version == 0 {
		mr.Topics = []string{}
		for _, t := range req.Topics {
			if t.Topic == nil || *t.Topic == "" {
				byID = append(byID, t)
				continue
			}
			mr.Topics = append(mr.Topics, *t.Topic)
		}
		if req.Version == 0 && len(req.Topics) == 0 {
			mr.Topics = nil // v0: an empty list means every topic
		}
	}
	return &plan{req: core.BrokerRequest{Metadata: mr}, finish: func(rep *core.Reply) kmsg.Response {
		resp := req.ResponseKind().(*kmsg.MetadataResponse)
		md := rep.Metadata
		if md == nil {
			return resp
		}
		id := md.ClusterID
		resp.ClusterID = &id
		resp.ControllerID = int32(md.Controller)
		for _, b := range md.Brokers {
			mb := kmsg.NewMetadataResponseBroker()
			mb.NodeID = int32(b.ID)
			mb.Host, mb.Port, mb.Rack = advertised(cx, b)
			resp.Brokers = append(resp.Brokers, mb)
		}
		for _, t := range md.Topics {
			mt := kmsg.NewMetadataResponseTopic()
			name := t.Name
			mt.Topic, mt.TopicID, mt.IsInternal, mt.ErrorCode = &name, t.TopicID, t.Internal, errCode(t.Error)
			for _, p := range t.Partitions {
				mp := kmsg.NewMetadataResponseTopicPartition()
				mp.Partition, mp.Leader, mp.LeaderEpoch, mp.ErrorCode = p.Partition, int32(p.Leader), p.LeaderEpoch, errCode(p.Error)
				mp.Replicas, mp.ISR, mp.OfflineReplicas = int32s(p.Replicas), int32s(p.ISR), int32s(p.Offline)
				mt.Partitions = append(mt.Partitions, mp)
			}
			resp.Topics = append(resp.Topics, mt)
		}
		for _, t := range byID {
			mt := kmsg.NewMetadataResponseTopic()
			mt.TopicID, mt.ErrorCode = t.TopicID, 100 // UNKNOWN_TOPIC_ID
			resp.Topics = append(resp.Topics, mt)
		}
		return resp
	}}, nil
}

func int32s(v []int) []int32 {
	out := make([]int32, len(v))
	for i, x := range v {
		out[i] = int32(x)
	}
	return out
}

// advertised is where clients reach broker b and its rack (nil for none),
// as Metadata and DescribeCluster list it: the listener's advertised
// host and port (advertised.listeners).
func advertised(cx *reqCtx, b core.MetadataBroker) (host string, port int32, rack *string) {
	host, p := cx.s.Addr(b.ID)
	if b.Rack != "" {
		r := b.Rack
		rack = &r
	}
	return host, int32(p), rack
}
