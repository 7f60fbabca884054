package kafka

import (
	"context"
	"sync/atomic"

	"github.com/kafkasim/kafkasim/core"
)

// topicIDs maps the topic ids Metadata advertises to their topics' names,
// for requests that name topics by id (Fetch v13+). The listener only
// guesses a name from it: the core checks, when the broker reads the
// request, that the topic of that name still has the id (a topic deleted
// and created again gets a new one), so an entry left from a deleted
// topic does no harm; an id not in the map refreshes it from the cluster
// once per request, which happens when a topic is new to this listener
// or a client asks for an id no topic has.
type topicIDs struct {
	names atomic.Pointer[map[[16]byte]string]
}

// idResolver resolves the ids of one request, refreshing the map at most
// once.
type idResolver struct {
	s         *Server
	refreshed bool
}

// name is the topic id's name, "" if no topic has it.
func (r *idResolver) name(id [16]byte) string {
	if m := r.s.topicIDs.names.Load(); m != nil {
		if n, ok := (*m)[id]; ok {
			return n
		}
	}
	if r.refreshed {
		return ""
	}
	r.refreshed = true
	return r.s.refreshTopicIDs()[id]
}

// refreshTopicIDs reads every topic's id from the cluster.
func (s *Server) refreshTopicIDs() map[[16]byte]string {
	m := map[[16]byte]string{}
	s.backend.Do(context.Background(), func(c *core.Cluster) {
		for _, t := range c.Topics() {
			if id, ok := c.TopicID(t.Name); ok {
				m[id] = t.Name
			}
		}
	})
	s.topicIDs.names.Store(&m)
	return m
}
