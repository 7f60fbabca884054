// Package assign implements Kafka's classic client-side partition assignors
// (range, roundrobin, sticky, cooperative-sticky) as pure, deterministic
// functions of the group's subscriptions.
//
// Inputs are normalised the way Kafka's AbstractPartitionAssignor does:
// only topics subscribed by at least one member and with a positive
// partition count take part; a member's topic list and owned list are sets
// (duplicates are ignored); when two members share an ID the later one wins,
// as with a Java map put. Every result has an entry, possibly empty, for every
// member, and every list is sorted by topic then partition.
package assign

import (
	"errors"
	"strconv"
	"strings"
)

// TopicPartition names one partition of one topic.
type TopicPartition struct {
	Topic     string
	Partition int
}

// Member is one group member's subscription as the group leader sees it.
type Member struct {
	ID         string           // member.id
	InstanceID string           // group.instance.id, "" if dynamic
	Topics     []string         // subscription
	Owned      []TopicPartition // partitions owned before this rebalance (sticky / cooperative-sticky)
	Generation int              // generation in which Owned was assigned (-1 unknown), as in ConsumerProtocolSubscription v1+
}

// Assignment maps member id to its partitions; each list is sorted by topic
// then partition and no partition appears twice.
type Assignment map[string][]TopicPartition

// Assignor is one of Kafka's ConsumerPartitionAssignor strategies.
type Assignor interface {
	// Name is the protocol name sent in JoinGroup: "range", "roundrobin",
	// "sticky" or "cooperative-sticky".
	Name() string
	// Protocol is the rebalance protocol the assignor selects: "eager" or
	// "cooperative".
	Protocol() string
	// Assign computes the group assignment. It never modifies its arguments.
	Assign(partitionsPerTopic map[string]int, members []Member) Assignment
}

// Protocol names returned by Assignor.Protocol.
const (
	Eager       = "eager"
	Cooperative = "cooperative"
)

// all lists the assignors in the order ByName reports them.
var all = []Assignor{Range{}, RoundRobin{}, Sticky{}, CooperativeSticky{}}

// classNames maps Kafka's partition.assignment.strategy class names to the
// protocol names, so a consumer config value can be passed to ByName as is.
var classNames = map[string]string{
	"org.apache.kafka.clients.consumer.RangeAssignor":             "range",
	"org.apache.kafka.clients.consumer.RoundRobinAssignor":        "roundrobin",
	"org.apache.kafka.clients.consumer.StickyAssignor":            "sticky",
	"org.apache.kafka.clients.consumer.CooperativeStickyAssignor": "cooperative-sticky",
}

// Names returns the valid assignor names, in a fixed order.
func Names() []string {
	names := make([]string, len(all))
	for i, a := range all {
		names[i] = a.Name()
	}
	return names
}

// ByName returns the assignor with the given protocol name (or Kafka class
// name, e.g. org.apache.kafka.clients.consumer.RangeAssignor). The error for
// an unknown name lists the valid names.
func ByName(name string) (Assignor, error) {
	if short, ok := classNames[name]; ok {
		name = short
	}
	for _, a := range all {
		if a.Name() == name {
			return a, nil
		}
	}
	return nil, errors.New("assign: unknown assignor " + strconv.Quote(name) + "; valid names: " + strings.Join(Names(), ", "))
}
