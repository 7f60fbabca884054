package core

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// DeleteTopicsRequest is an outside client's DeleteTopics (Admin
// .deleteTopics, kafka-topics.sh --delete) by topic names. TimeoutMs is
// how long the broker may wait for the deletion (simulated time; 0 or
// less: answer at once).
type DeleteTopicsRequest struct {
	Topics    []string `json:"topics"`
	TimeoutMs int32    `json:"timeoutMs"`
}

// DeleteTopicsResponse answers a DeleteTopicsRequest: one result per topic
// named, in request order (a duplicated name once, INVALID_REQUEST).
type DeleteTopicsResponse struct {
	Topics []DeleteTopicResult `json:"topics"`
}

// DeleteTopicResult is one topic's answer: Error is "" when the deletion
// happened (as far as the answering broker can tell), else Kafka's error
// name with Message: NOT_CONTROLLER (ZooKeeper mode, not the controller),
// TOPIC_DELETION_DISABLED, UNKNOWN_TOPIC_OR_PARTITION, INVALID_REQUEST
// (a duplicate, an internal topic) or REQUEST_TIMED_OUT (the deletion
// continues; the request's timeout passed first).
type DeleteTopicResult struct {
	Name    string `json:"name"`
	Error   string `json:"error,omitempty"`
	Message string `json:"message,omitempty"`
}

type deleteTopicsBody struct{ r *DeleteTopicsRequest }

func (b deleteTopicsBody) api() string    { return "DeleteTopics" }
func (b deleteTopicsBody) answered() bool { return true }
func (b deleteTopicsBody) check() error {
	if len(b.r.Topics) > MaxTopics {
		return errors.New("too many topics in one request")
	}
	for _, t := range b.r.Topics {
		if len(t) > 249 {
			return fmt.Errorf("topic name of %d bytes", len(t))
		}
	}
	return nil
}

// serve is KafkaApis.handleDeleteTopicsRequest (ZooKeeper mode) and
// ControllerApis.deleteTopics (KRaft, forwarded by any broker). In
// ZooKeeper mode only the controller takes it (NOT_CONTROLLER otherwise);
// a topic is known if the broker's metadata cache has it; the answer waits
// (DelayedDeleteTopics) until this broker's cache no longer has the topics,
// which happens when the controller starts the deletion (UpdateMetadata
// with LeaderDuringDelete), not when it completes: a deletion waiting for
// an offline replica is answered without error and goes on. In KRaft the
// RemoveTopicRecord is the deletion, and the answer follows it. Before
// 2.1 (KIP-322) delete.topic.enable=false was no error: the topic was
// marked and the controller dropped the mark, so the answer came at the
// request's timeout, REQUEST_TIMED_OUT (KAFKA-5975, "No response when
// deleting topics and delete.topic.enable=false"), or at once, also
// REQUEST_TIMED_OUT, for a timeout of 0 or less (AdminManager
// .deleteTopics returns every topic without an error so), the topic left
// as it was.
func (b deleteTopicsBody) serve(x *extConns, cn *extConn, done func(*Reply)) {
	c, br := x.c, cn.broker
	resp := &DeleteTopicsResponse{Topics: []DeleteTopicResult{}}
	counts := map[string]int{}
	for _, name := range b.r.Topics {
		counts[name]++
	}
	var wait []*Topic
	var waitIdx []int
	var stuck []int // before KIP-322: deletion disabled, the answer waits out the timeout
	seen := map[string]bool{}
	for _, name := range b.r.Topics {
		if seen[name] {
			continue
		}
		seen[name] = true
		res := DeleteTopicResult{Name: name}
		switch {
		case counts[name] > 1:
			res.Error, res.Message = "INVALID_REQUEST", "Duplicate topic name."
		case !c.md.kraft && c.md.controller != br.ID:
			res.Error = "NOT_CONTROLLER"
		case !c.md.kraft && !br.knowsTopic(c.topics[name]) && (c.bc.deleteTopicEnable || !c.preset.kip322):
			res.Error, res.Message = "UNKNOWN_TOPIC_OR_PARTITION", "This server does not host this topic-partition."
		case !c.bc.deleteTopicEnable && !c.preset.kip322:
			stuck = append(stuck, len(resp.Topics))
		default:
			t, err := c.deletable(name)
			if err != nil {
				res.Error, res.Message, _ = strings.Cut(err.Error(), ": ")
				break
			}
			if t.del == nil {
				c.markForDeletion(t)
			}
			if !t.deleted {
				wait, waitIdx = append(wait, t), append(waitIdx, len(resp.Topics))
			}
		}
		resp.Topics = append(resp.Topics, res)
	}
	if len(stuck) > 0 {
		// With deletion disabled nothing is waited on but these; a
		// timeout of 0 or less answers them at once, timed out too
		// (AdminManager.deleteTopics@0.11.0.2).
		for _, i := range stuck {
			resp.Topics[i].Error = "REQUEST_TIMED_OUT"
		}
		if b.r.TimeoutMs <= 0 {
			done(&Reply{DeleteTopics: resp})
			return
		}
		br.after(int64(b.r.TimeoutMs), func() { done(&Reply{DeleteTopics: resp}) })
		return
	}
	if len(wait) == 0 {
		done(&Reply{DeleteTopics: resp})
		return
	}
	if b.r.TimeoutMs <= 0 {
		for _, i := range waitIdx {
			resp.Topics[i].Error = "REQUEST_TIMED_OUT"
		}
		done(&Reply{DeleteTopics: resp})
		return
	}
	dw := &deleteWait{topics: wait, idx: waitIdx, resp: resp, done: done}
	br.deleteWaits = append(br.deleteWaits, dw)
	br.after(int64(b.r.TimeoutMs), func() { br.finishDeleteWait(dw, true) })
	br.checkDeleteWaits()
}

// deleteWait is a DelayedDeleteTopics in the broker's topic purgatory.
type deleteWait struct {
	topics   []*Topic
	idx      []int // their results in resp
	resp     *DeleteTopicsResponse
	done     func(*Reply)
	finished bool
}

// knowsTopic reports whether t has a partition in the broker's metadata
// cache (MetadataCache.contains(topic)).
func (b *Broker) knowsTopic(t *Topic) bool {
	if t == nil {
		return false
	}
	return slices.ContainsFunc(t.parts, func(p *Partition) bool { _, ok := b.cache[p]; return ok })
}

// checkDeleteWaits completes the waiting DeleteTopics whose topics are
// all gone from this broker's cache (DelayedDeleteTopics.tryComplete).
func (b *Broker) checkDeleteWaits() {
	for _, dw := range slices.Clone(b.deleteWaits) {
		if !slices.ContainsFunc(dw.topics, b.knowsTopic) {
			b.finishDeleteWait(dw, false)
		}
	}
}

// finishDeleteWait answers dw: at its timeout, the topics still in the
// cache get REQUEST_TIMED_OUT (DelayedDeleteTopics.onComplete).
func (b *Broker) finishDeleteWait(dw *deleteWait, timedOut bool) {
	if dw.finished {
		return
	}
	dw.finished = true
	b.deleteWaits = slices.DeleteFunc(b.deleteWaits, func(x *deleteWait) bool { return x == dw })
	if timedOut {
		for i, t := range dw.topics {
			if b.knowsTopic(t) {
				dw.resp.Topics[dw.idx[i]].Error = "REQUEST_TIMED_OUT"
			}
		}
	}
	dw.done(&Reply{DeleteTopics: dw.resp})
}
