// Package story tells one record's life from the core's events: who sent
// it, each attempt, where it was appended and at which offset, which
// followers replicated it, when it was acknowledged (with which acks) and
// committed (the leader's high watermark passed it), who consumed it, and,
// when it was lost, truncated, duplicated or reordered, exactly why, with
// the events that did it marked as causes. It reads events and the
// cluster's history; it changes nothing. Pure Go: the browser engine
// uses it, and so can any renderer.
package story

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kafkasim/kafkasim/core"
)

// Line kinds.
const (
	KindSend      = "send"      // handed to the producer (send())
	KindAttempt   = "attempt"   // a produce request carrying it
	KindError     = "error"     // an attempt failed
	KindRetry     = "retry"     // ... and the producer will try again
	KindAppend    = "append"    // appended to the leader's log
	KindReplicate = "replicate" // a follower fetched it
	KindAck       = "ack"       // the producer was told it succeeded
	KindCommit    = "commit"    // the leader's HW passed it
	KindConsume   = "consume"   // a poll returned it
	KindTruncate  = "truncate"  // a replica removed it
	KindLost      = "lost"      // a replica lost it with its page cache
	KindElection  = "election"  // the partition got a new leader
	KindBroker    = "broker"    // a broker holding it crashed, lost power, paused, ...
	KindNet       = "net"       // the network split or healed
	KindISR       = "isr"       // the ISR changed
	KindRebalance = "rebalance" // a consuming group rebalanced
	KindFate      = "fate"      // the conclusion
)

// Fates.
const (
	FateCommitted  = "committed"   // below the leader's HW, on every ISR replica
	FateAcked      = "acked"       // acknowledged, not (yet) committed
	FateLost       = "lost"        // acknowledged, then gone from the leader's log
	FateTruncated  = "truncated"   // never acknowledged, appended, then removed
	FateFailed     = "failed"      // the producer gave up
	FatePending    = "pending"     // still on its way
	FateDuplicated = "duplicated"  // stored more than once
	FateReordered  = "reordered"   // stored out of send order
	FateRedeliver  = "redelivered" // a group consumed it more than once
	FateUnknown    = "unknown"     // no record of that value was sent
)

// Line is one happening in a record's life. Seq is the core event's
// sequence number (a link into the event log); Cause marks the events
// that explain the record's fate (the election, truncation or retry that
// did it).
type Line struct {
	At        int64  `json:"at"`
	Seq       uint64 `json:"seq"`
	Kind      string `json:"kind"`
	Text      string `json:"text"`
	Broker    int    `json:"broker,omitempty"`
	Offset    int64  `json:"offset"`
	Cause     bool   `json:"cause,omitempty"`
	Partition string `json:"partition,omitempty"`
}

// Story is the life of the record(s) with one value.
type Story struct {
	Value     string   `json:"value"`
	Producer  string   `json:"producer,omitempty"`
	Partition string   `json:"partition,omitempty"`
	Acks      string   `json:"acks,omitempty"`
	Fates     []string `json:"fates"`   // most important first
	Summary   string   `json:"summary"` // one or two sentences a learner reads first
	Lines     []Line   `json:"lines"`
	// Causes are the Seq of the lines marked Cause, in time order.
	Causes []uint64 `json:"causes,omitempty"`
	// Forgotten is set when older events were dropped by the engine's
	// bound, so the beginning of the story may be missing.
	Forgotten bool `json:"forgotten,omitempty"`
}

// MaxLines bounds one story (a record consumed a million times).
const MaxLines = 500

func acksText(a int) string {
	switch a {
	case 0:
		return "0"
	case 1:
		return "1"
	}
	return "all"
}

// holds tracks which brokers hold the record and at which offset.
type holds map[int]int64

func (h holds) brokers() []int {
	var out []int
	for b := range h {
		out = append(out, b)
	}
	sort.Ints(out)
	return out
}

// holdText says which brokers have it.
func holdText(ids []int) string {
	if len(ids) == 1 {
		return fmt.Sprintf("broker %d has it", ids[0])
	}
	return joinInts(ids, "broker", "and") + " have it"
}

// joinInts writes "broker 2", "brokers 2 or 3", "brokers 1, 2 and 3".
func joinInts(ids []int, word, conj string) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	switch len(s) {
	case 0:
		return "no broker"
	case 1:
		return word + " " + s[0]
	}
	return word + "s " + strings.Join(s[:len(s)-1], ", ") + " " + conj + " " + s[len(s)-1]
}

// offsetsOf returns the offsets at which e's records hold value (e.Offset
// is the first record's offset).
func offsetsOf(e *core.Event, value string) []int64 {
	var out []int64
	for i, r := range e.Records {
		if r.Value == value {
			out = append(out, e.Offset+int64(i))
		}
	}
	return out
}

func hasValue(e *core.Event, value string) bool {
	for _, r := range e.Records {
		if r.Value == value {
			return true
		}
	}
	return false
}
