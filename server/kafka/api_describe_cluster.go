package kafka

// DescribeCluster (key 60), v0-v1 (KIP-700, 2.8; v1 KIP-919, 3.7).
//
// Admin.describeCluster, kadm's BrokerMetadata's sibling, sarama's
// ClusterAdmin.DescribeCluster: the cluster id, the controller id and the
// live brokers, from the asked broker's metadata cache as a Metadata
// request with no topics has them (KafkaApis.handleDescribeCluster reads
// the same cache; its KRaft controller id is an alive broker's, as
// Metadata's), each broker at its listener's real address. v1's endpoint
// type must be 1 (brokers): 2 (controllers) is MISMATCHED_ENDPOINT_TYPE,
// any other UNSUPPORTED_ENDPOINT_TYPE, both INVALID_REQUEST at v0
// (AuthHelper.computeDescribeClusterResponse). With no authorizer, asked
// cluster authorized operations are every operation CLUSTER supports
// (AuthHelper.authorizedOperations, AclEntry.supportedOperations); a
// controller id the broker list lacks is -1. v2 (4.0, KIP-1073's fenced
// brokers) is not served: the broker's cache here lists only live brokers.

import (
	"fmt"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(60, 0, 1, handleDescribeCluster) }

// clusterOperations is the CLUSTER resource's supported operations
// (CREATE 5, ALTER 7, DESCRIBE 8, CLUSTER_ACTION 9, DESCRIBE_CONFIGS 10,
// ALTER_CONFIGS 11, IDEMPOTENT_WRITE 12) as Utils.to32BitField packs them.
const clusterOperations = 1<<5 | 1<<7 | 1<<8 | 1<<9 | 1<<10 | 1<<11 | 1<<12

func handleDescribeCluster(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.DescribeClusterRequest)
	resp := req.ResponseKind().(*kmsg.DescribeClusterResponse)
	if req.Version >= 1 && req.EndpointType != 1 {
		code, msg := int16(114), fmt.Sprintf("The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type %s", endpointName(req.EndpointType))
		if req.EndpointType != 2 {
			code, msg = 115, fmt.Sprintf("Unsupported endpoint type %d", req.EndpointType)
		}
		resp.ErrorCode, resp.ErrorMessage = code, &msg
		return local(cx, func() kmsg.Response { return resp }), nil
	}
	return &plan{req: core.BrokerRequest{Metadata: &core.MetadataRequest{Topics: []string{}}}, finish: func(rep *core.Reply) kmsg.Response {
		md := rep.Metadata
		if md == nil {
			return resp
		}
		resp.ClusterID, resp.ControllerID = md.ClusterID, -1
		for _, b := range md.Brokers {
			rb := kmsg.NewDescribeClusterResponseBroker()
			rb.NodeID = int32(b.ID)
			rb.Host, rb.Port, rb.Rack = advertised(cx, b)
			resp.Brokers = append(resp.Brokers, rb)
			if b.ID == md.Controller {
				resp.ControllerID = int32(b.ID)
			}
		}
		if req.IncludeClusterAuthorizedOperations {
			resp.ClusterAuthorizedOperations = clusterOperations
		}
		return resp
	}}, nil
}

// endpointName is EndpointType's name.
func endpointName(t int8) string {
	if t == 2 {
		return "CONTROLLER"
	}
	return "BROKER"
}
