package kafka

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestDescribeCluster: franz-go's DescribeCluster (Admin.describeCluster)
// answers the cluster id, controller id and brokers Metadata answers, each
// broker at its listener; cluster authorized operations, when asked, are
// every operation of CLUSTER (no authorizer); v1's endpoint type 2
// (controllers) is MISMATCHED_ENDPOINT_TYPE and an unknown one
// UNSUPPORTED_ENDPOINT_TYPE, on both a ZooKeeper and a KRaft cluster. The
// API was not served: franz-go failed with "broker is too old".
func TestDescribeCluster(t *testing.T) {
	for _, mode := range []string{"zk", "kraft"} {
		t.Run(mode, func(t *testing.T) {
			b := threeBrokers(t, "3.9", mode)
			_, addr := startServer(t, b, 3)
			cl := versionClient(t, addr, 3, 0, 0)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			md, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl)
			if err != nil {
				t.Fatal(err)
			}
			req := kmsg.NewPtrDescribeClusterRequest()
			req.IncludeClusterAuthorizedOperations = true
			dc, err := req.RequestWith(ctx, cl)
			if err != nil {
				t.Fatal(err)
			}
			if dc.ErrorCode != 0 || md.ClusterID == nil || dc.ClusterID != *md.ClusterID || dc.ControllerID != md.ControllerID || dc.ControllerID < 1 {
				t.Errorf("describe cluster %+v, metadata cluster %v controller %d", dc, md.ClusterID, md.ControllerID)
			}
			var got, want []string
			for _, br := range dc.Brokers {
				got = append(got, addrOf(br.NodeID, br.Host, br.Port))
			}
			for _, br := range md.Brokers {
				want = append(want, addrOf(br.NodeID, br.Host, br.Port))
			}
			slices.Sort(got)
			slices.Sort(want)
			if len(got) != 3 || !slices.Equal(got, want) {
				t.Errorf("brokers %v, metadata %v", got, want)
			}
			if dc.ClusterAuthorizedOperations != 0x1fa0 {
				t.Errorf("cluster authorized operations %#x, want CREATE, ALTER, DESCRIBE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE", dc.ClusterAuthorizedOperations)
			}
			for typ, code := range map[int8]int16{2: 114, 7: 115} {
				req := kmsg.NewPtrDescribeClusterRequest()
				req.EndpointType = typ
				dc, err := req.RequestWith(ctx, cl)
				if err != nil {
					t.Fatal(err)
				}
				if dc.ErrorCode != code || len(dc.Brokers) != 0 {
					t.Errorf("endpoint type %d: %d %v, want %d", typ, dc.ErrorCode, dc.ErrorMessage, code)
				}
			}
		})
	}
}

func addrOf(id int32, host string, port int32) string {
	return fmt.Sprintf("%d@%s:%d", id, host, port)
}
