package kafka

import (
	"context"
	"slices"
	"strings"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// A CreateTopics naming one topic more than once creates none of its
// entries for that name and answers INVALID_REQUEST, each generation of
// Kafka in its own way:
//   - 0.11 (KafkaApis.handleCreateTopicsRequest, whose request is a map
//     by name): the name once, "Create topics request from client `ID`
//     contains multiple entries for the following topics: A,B";
//   - 2.x and 3.x ZooKeeper mode (KafkaApis.handleCreateTopicsRequest):
//     every entry of it, "Found multiple entries for this topic.";
//   - 3.9 and 4.0 KRaft (ControllerApis.createTopics): the other topics'
//     answers first, then the name once, "Duplicate topic name.".
//
// 2.8's KRaft controller checked nothing (ReplicationControlManager
// .createTopics): there the first entry is created and the next one is
// TOPIC_ALREADY_EXISTS, as before.

// dupStyle is how the cluster answers duplicate names.
type dupStyle int

const (
	dupNone  dupStyle = iota // 2.8 KRaft: no check
	dupMap                   // 0.11
	dupEach                  // ZooKeeper mode, 2.x and later
	dupAtEnd                 // KRaft, 3.x and later
)

// createDupStyle is the cluster's dupStyle.
func createDupStyle(cx *reqCtx) dupStyle {
	var mode, p string
	cx.s.backend.Do(context.Background(), func(c *core.Cluster) { mode, p = c.Mode(), c.Version() })
	switch {
	case p == "0.8" || p == "0.11":
		return dupMap
	case mode != "kraft":
		return dupEach
	case p == "2.8":
		return dupNone
	}
	return dupAtEnd
}

// duplicateNames is the names req.Topics holds more than once, in the
// order they first appear.
func duplicateNames(topics []kmsg.CreateTopicsRequestTopic) []string {
	seen := map[string]int{}
	var dups []string
	for _, t := range topics {
		seen[t.Topic]++
		if seen[t.Topic] == 2 {
			dups = append(dups, t.Topic)
		}
	}
	return dups
}

// invalidDuplicate is the INVALID_REQUEST answer for duplicate name.
func invalidDuplicate(name, msg string) kmsg.CreateTopicsResponseTopic {
	rt := kmsg.NewCreateTopicsResponseTopic()
	rt.Topic, rt.ErrorCode, rt.ErrorMessage = name, 42, &msg
	return rt
}

// createTopicsWithDuplicates answers a request that names dups more than
// once, creating (or checking) only the topics named once; create
// answers one of those.
func createTopicsWithDuplicates(cx *reqCtx, topics []kmsg.CreateTopicsRequestTopic, dups []string, style dupStyle,
	create func(kmsg.CreateTopicsRequestTopic) kmsg.CreateTopicsResponseTopic) []kmsg.CreateTopicsResponseTopic {
	var out []kmsg.CreateTopicsResponseTopic
	switch style {
	case dupEach:
		for _, t := range topics {
			if slices.Contains(dups, t.Topic) {
				out = append(out, invalidDuplicate(t.Topic, "Found multiple entries for this topic."))
			} else {
				out = append(out, create(t))
			}
		}
		return out
	case dupMap:
		sorted := slices.Sorted(slices.Values(dups))
		msg := "Create topics request from client `" + cx.h.clientID + "` contains multiple entries for the following topics: " + strings.Join(sorted, ",")
		answered := map[string]bool{}
		for _, t := range topics {
			switch {
			case answered[t.Topic]:
			case slices.Contains(dups, t.Topic):
				out = append(out, invalidDuplicate(t.Topic, msg))
			default:
				out = append(out, create(t))
			}
			answered[t.Topic] = true
		}
		return out
	}
	for _, t := range topics { // dupAtEnd
		if !slices.Contains(dups, t.Topic) {
			out = append(out, create(t))
		}
	}
	for _, d := range dups {
		out = append(out, invalidDuplicate(d, "Duplicate topic name."))
	}
	return out
}
