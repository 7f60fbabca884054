package kafka

// DeleteTopics (key 20), v0-v5.
//
// Topic deletion is not simulated: every topic is answered
// TOPIC_DELETION_DISABLED (73), what a Kafka broker with
// delete.topic.enable=false answers, with a message saying so. A topic
// that does not exist is UNKNOWN_TOPIC_OR_PARTITION, as in Kafka.

import (
	"context"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(20, 0, 5, handleDeleteTopics) }

func handleDeleteTopics(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.DeleteTopicsRequest)
	return local(cx, func() kmsg.Response {
		resp := req.ResponseKind().(*kmsg.DeleteTopicsResponse)
		known := map[string]bool{}
		cx.s.backend.Do(context.Background(), func(c *core.Cluster) {
			for _, t := range c.Snapshot().Topics {
				known[t.Name] = true
			}
		})
		names := req.TopicNames
		for _, t := range req.Topics {
			if t.Topic != nil {
				names = append(names, *t.Topic)
			}
		}
		for _, n := range names {
			rt := kmsg.NewDeleteTopicsResponseTopic()
			name := n
			rt.Topic = &name
			if known[n] {
				msg := "kafkasim does not simulate topic deletion"
				rt.ErrorCode, rt.ErrorMessage = 73, &msg
			} else {
				rt.ErrorCode = 3
			}
			resp.Topics = append(resp.Topics, rt)
		}
		return resp
	}), nil
}
