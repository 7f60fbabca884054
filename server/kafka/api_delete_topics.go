package kafka

// DeleteTopics (key 20), v0-v6 (v4+ flexible, v5 error messages, v6
// topics by name or by topic id, KIP-516).
//
// Deletes topics on the simulated cluster (core.DeleteTopicsRequest): in
// ZooKeeper mode the controller's TopicDeletionManager deletes it, and only
// the controller takes the request (NOT_CONTROLLER otherwise, as
// KafkaApis.handleDeleteTopicsRequest); the answer comes once the
// answering broker's metadata no longer has the topic, or at timeout_ms
// with REQUEST_TIMED_OUT (the deletion goes on). In KRaft mode any broker
// forwards it and the RemoveTopicRecord deletes the topic at once. Errors:
// UNKNOWN_TOPIC_OR_PARTITION, UNKNOWN_TOPIC_ID (v6, an id no topic has),
// TOPIC_DELETION_DISABLED when delete.topic.enable=false (INVALID_REQUEST
// below v3, which has no such code; from 2.1, KIP-322: the 0.11 preset
// answers REQUEST_TIMED_OUT at timeout_ms and keeps the topic, as 0.11's
// DelayedDeleteTopics did), INVALID_REQUEST for a name given twice or a
// topic named both by name and id, and for __consumer_offsets.

import (
	"context"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(20, 0, 6, handleDeleteTopics) }

// deleteTarget is one topic of the request as the client named it, and
// the name the core gets ("" when it cannot be resolved).
type deleteTarget struct {
	name string
	id   [16]byte
	err  string // answered without asking the core
}

func handleDeleteTopics(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.DeleteTopicsRequest)
	targets := deleteTargets(cx, req)
	dr := &core.DeleteTopicsRequest{TimeoutMs: req.TimeoutMillis, Topics: []string{}}
	for _, t := range targets {
		if t.err == "" {
			dr.Topics = append(dr.Topics, t.name)
		}
	}
	return &plan{req: core.BrokerRequest{DeleteTopics: dr}, finish: func(rep *core.Reply) kmsg.Response {
		resp := req.ResponseKind().(*kmsg.DeleteTopicsResponse)
		byName := map[string]core.DeleteTopicResult{}
		if rep.DeleteTopics != nil {
			for _, res := range rep.DeleteTopics.Topics {
				byName[res.Name] = res
			}
		}
		emitted := map[string]bool{}
		for _, t := range targets {
			if t.name != "" && emitted[t.name] {
				continue // one answer per name, as Kafka's result collection
			}
			emitted[t.name] = true
			rt := kmsg.NewDeleteTopicsResponseTopic()
			if t.name != "" {
				name := t.name
				rt.Topic = &name
			}
			rt.TopicID = t.id
			errName, msg := t.err, ""
			if errName == "" {
				res := byName[t.name]
				errName, msg = res.Error, res.Message
			}
			if errName == "TOPIC_DELETION_DISABLED" && req.Version < 3 {
				errName = "INVALID_REQUEST"
			}
			rt.ErrorCode = errCode(errName)
			if errName != "" && msg != "" && req.Version >= 5 {
				rt.ErrorMessage = &msg
			}
			resp.Topics = append(resp.Topics, rt)
		}
		return resp
	}}, nil
}

// deleteTargets lists the request's topics: by name (v0-v5, and v6 topics
// with a name), or by id (v6), resolved against the cluster's topic ids.
func deleteTargets(cx *reqCtx, req *kmsg.DeleteTopicsRequest) []deleteTarget {
	var out []deleteTarget
	for _, n := range req.TopicNames {
		out = append(out, deleteTarget{name: n})
	}
	if len(req.Topics) == 0 {
		return out
	}
	ids := map[[16]byte]string{}
	names := map[string][16]byte{}
	cx.s.backend.Do(context.Background(), func(c *core.Cluster) {
		for _, t := range c.Topics() {
			if id, ok := c.TopicID(t.Name); ok {
				ids[id], names[t.Name] = t.Name, id
			}
		}
	})
	for _, t := range req.Topics {
		var dt deleteTarget
		switch {
		case t.Topic != nil && t.TopicID != [16]byte{}:
			dt = deleteTarget{name: *t.Topic, id: t.TopicID, err: "INVALID_REQUEST"} // "Topic name and topic ID can not both be specified."
		case t.Topic != nil:
			dt = deleteTarget{name: *t.Topic, id: names[*t.Topic]}
		default:
			dt = deleteTarget{id: t.TopicID, name: ids[t.TopicID]}
			if dt.name == "" {
				dt.err = "UNKNOWN_TOPIC_ID"
			}
		}
		out = append(out, dt)
	}
	return out
}
