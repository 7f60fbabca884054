package kafka

// CreatePartitions (key 37), v0-v3.
//
// Raises a topic's partition count (Kafka never lowers it:
// INVALID_PARTITIONS); the new partitions are placed by the cluster's
// replica placement (explicit assignments are not taken). Consumer groups
// subscribed to the topic rebalance when their metadata shows the new
// partitions. validate_only (v0+, KIP-195) runs the same checks and
// creates nothing (core.ValidateAlterTopic). In ZooKeeper mode the
// request must reach the controller.

import (
	"context"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(37, 0, 3, handleCreatePartitions) }

func handleCreatePartitions(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.CreatePartitionsRequest)
	return local(cx, func() kmsg.Response {
		resp := req.ResponseKind().(*kmsg.CreatePartitionsResponse)
		notCtrl := controllerCheck(cx)
		for _, t := range req.Topics {
			rt := kmsg.NewCreatePartitionsResponseTopic()
			rt.Topic = t.Topic
			switch {
			case notCtrl != 0:
				rt.ErrorCode = notCtrl
			case req.ValidateOnly:
				var err error
				cx.s.backend.Do(context.Background(), func(c *core.Cluster) {
					err = c.ValidateAlterTopic(core.AlterTopic{Topic: t.Topic, Partitions: int(t.Count)})
				})
				rt.ErrorCode, rt.ErrorMessage = coreError(err)
			default:
				rt.ErrorCode, rt.ErrorMessage = coreError(cx.s.backend.Apply(context.Background(), core.AlterTopic{Topic: t.Topic, Partitions: int(t.Count)}))
			}
			resp.Topics = append(resp.Topics, rt)
		}
		return resp
	}), nil
}
