package kafka

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestCreateTopicsDuplicateName: a CreateTopics naming topic d twice
// creates no d and answers it INVALID_REQUEST as each Kafka does
// (create_topics_dup.go), while a and b, named once, are created. It was
// answered by creating the first d and TOPIC_ALREADY_EXISTS for the
// second.
func TestCreateTopicsDuplicateName(t *testing.T) {
	for _, tc := range []struct {
		version, mode string
		want          string // each answer as topic:code:message
	}{
		{"3.9", "zk", "a:0: d:42:Found multiple entries for this topic. d:42:Found multiple entries for this topic. b:0:"},
		{"3.9", "kraft", "a:0: b:0: d:42:Duplicate topic name."},
		{"4.0", "kraft", "a:0: b:0: d:42:Duplicate topic name."},
		{"0.11", "zk", "a:0: d:42:Create topics request from client `dup-test` contains multiple entries for the following topics: d b:0:"},
	} {
		t.Run(tc.version+"-"+tc.mode, func(t *testing.T) {
			b := threeBrokers(t, tc.version, tc.mode)
			_, addr := startServer(t, b, 3)
			cl, err := kgo.NewClient(kgo.SeedBrokers(addrs(addr, 3)...), kgo.ClientID("dup-test"))
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			req := kmsg.NewPtrCreateTopicsRequest()
			req.TimeoutMillis = 5000
			for _, name := range []string{"a", "d", "d", "b"} {
				rt := kmsg.NewCreateTopicsRequestTopic()
				rt.Topic, rt.NumPartitions, rt.ReplicationFactor = name, 1, 3
				req.Topics = append(req.Topics, rt)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			resp, err := req.RequestWith(ctx, cl)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, rt := range resp.Topics {
				msg := ""
				if rt.ErrorMessage != nil && rt.ErrorCode != 0 {
					msg = *rt.ErrorMessage
				}
				got = append(got, fmt.Sprintf("%s:%d:%s", rt.Topic, rt.ErrorCode, msg))
			}
			if g := strings.Join(got, " "); g != tc.want {
				t.Errorf("answers\n got %s\nwant %s", g, tc.want)
			}
			var made []string
			b.Do(context.Background(), func(c *core.Cluster) {
				for _, name := range []string{"a", "b", "d"} {
					if c.Topic(name) != nil {
						made = append(made, name)
					}
				}
			})
			if strings.Join(made, ",") != "a,b" {
				t.Errorf("topics made: %v, want a,b (no d)", made)
			}
		})
	}
}
