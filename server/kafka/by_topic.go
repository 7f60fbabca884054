package kafka

// topicAt is the index in *ts of topic's entry, appending mk(topic) the
// first time the topic comes (seen maps topics to their index): how the
// response builders group the core's flat partition lists under their
// topics, in the order the topics first appear, as Kafka lists them.
func topicAt[T any](seen map[string]int, ts *[]T, topic string, mk func(topic string) T) int {
	i, ok := seen[topic]
	if !ok {
		i = len(*ts)
		seen[topic] = i
		*ts = append(*ts, mk(topic))
	}
	return i
}
