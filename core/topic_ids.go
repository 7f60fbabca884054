package core

import (
	"fmt"
	"hash/fnv"
)

// Topic ids (KIP-516): every topic has a 16-byte id that Metadata
// advertises and Fetch v13+ names topics by, so a fetch by the id of a
// topic deleted and created again under the same name never reads the new
// topic's log.

// topicID is a stable 16-byte id for a topic: a hash of its name and its
// place in creation order, so a topic deleted and created again would
// get another (Kafka's topic ids are random UUIDs; drawing them from the
// PRNG would change every seeded run).
func topicID(name string, order int) [16]byte {
	var id [16]byte
	h := fnv.New128a()
	h.Write([]byte(name))
	h.Write([]byte{byte(order), byte(order >> 8), byte(order >> 16)})
	copy(id[:], h.Sum(nil))
	return id
}

// id is t's topic id (KIP-516): topicID of its name and its place in
// creation order over the cluster's life (Topic.seq), which a deleted
// topic does not give back, so a topic created again with the same name
// gets another id.
func (t *Topic) id() [16]byte { return t.idv }

// idPartKey is a partition of a topic named by id.
type idPartKey struct {
	id   [16]byte
	part int32
}

// checkFetchByID is checkFetch's duplicate check for a request naming
// its topics by id: the names are the listener's guesses, the ids
// identify.
func checkFetchByID(req *FetchRequest) error {
	if fp, dup := listedTwice(req.Partitions, func(fp FetchPartition) idPartKey { return idPartKey{fp.TopicID, fp.Partition} }); dup {
		return fmt.Errorf("partition %x-%d listed twice", fp.TopicID, fp.Partition)
	}
	return nil
}

// fetchPartition is the partition fp names: by topic id, only while the
// topic named fp.Topic still has that id (UNKNOWN_TOPIC_ID otherwise, as
// for an id the broker's metadata does not know).
func (x *extConns) fetchPartition(req *FetchRequest, fp *FetchPartition) (*Partition, string) {
	if req.ByTopicID {
		if t := x.c.topics[fp.Topic]; t == nil || t.id() != fp.TopicID {
			return nil, "UNKNOWN_TOPIC_ID"
		}
	}
	return x.partition(fp.Topic, fp.Partition)
}
