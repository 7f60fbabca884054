package core

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kafkasim/kafkasim/core/log"
)

// maxShownValues caps how many record values one trace line lists.
const maxShownValues = 12

// Verbose reports whether an event is wire-level detail (messages, flushes,
// ZooKeeper writes) that traces hide unless asked to show everything.
func (e *Event) Verbose() bool {
	if e.Minor {
		return true
	}
	switch e.Type {
	case EvMsgSend, EvMsgDrop, EvFlush, EvZK, EvProduce, EvConn, EvResponse:
		return true
	}
	return false
}

// Text renders the event as one trace line (without the timestamp).
func (e *Event) Text() string {
	switch e.Type {
	case EvMsgSend:
		return fmt.Sprintf("%s -> %s %s (arrives %s)", e.From, e.To, e.Msg, FormatTime(e.DeliverAt))
	case EvMsgDrop:
		return fmt.Sprintf("%s -> %s %s %s", e.From, e.To, e.Msg, e.Detail)
	case EvBrokerState:
		return fmt.Sprintf("broker %d %s", e.Broker, e.Detail)
	case EvNet:
		return "net " + e.Detail
	case EvTopic, EvTopicAlter:
		if len(e.Replicas) > 12 {
			return e.Detail
		}
		return fmt.Sprintf("%s, replicas %s", e.Detail, formatAssign(e.Replicas))
	case EvAppend:
		who := "follower"
		if e.IsLeader {
			who = "leader"
		}
		return fmt.Sprintf("%s@%d append %s at %s (epoch %d, %s)", e.Partition, e.Broker, Values(e.RecordList()), offRange(e.Offset, e.EndOffset), e.Epoch, who)
	case EvHW:
		return fmt.Sprintf("%s@%d hw %d", e.Partition, e.Broker, e.HW)
	case EvISR:
		if e.Error != "" {
			return e.Detail + " (" + e.Error + ")"
		}
		return fmt.Sprintf("%s isr [%s] (%s)", e.Partition, joinInts(e.ISR), e.Detail)
	case EvRole:
		if e.Role == RoleLeader {
			return fmt.Sprintf("%s@%d becomes leader (epoch %d, LEO %d, HW %d)", e.Partition, e.Broker, e.Epoch, e.LEO, e.HW)
		}
		return fmt.Sprintf("%s@%d becomes a follower of %d (epoch %d)", e.Partition, e.Broker, e.Leader, e.Epoch)
	case EvLeader:
		if e.Leader < 0 {
			return fmt.Sprintf("%s leader none, epoch %d, isr [%s] (%s)", e.Partition, e.Epoch, joinInts(e.ISR), e.Detail)
		}
		return fmt.Sprintf("%s leader %d, epoch %d, isr [%s] (%s)", e.Partition, e.Leader, e.Epoch, joinInts(e.ISR), e.Detail)
	case EvTruncate:
		return fmt.Sprintf("%s@%d truncate to %d, dropping %s (%s)", e.Partition, e.Broker, e.Offset, Values(e.RecordList()), e.Detail)
	case EvLost:
		return fmt.Sprintf("%s@%d lost %s at %d.. (%s)", e.Partition, e.Broker, Values(e.RecordList()), e.Offset, e.Detail)
	case EvFlush:
		return fmt.Sprintf("%s@%d flushed to %d (%s)", e.Partition, e.Broker, e.Offset, e.Detail)
	case EvRetention, EvClean:
		return fmt.Sprintf("%s@%d %s", e.Partition, e.Broker, e.Detail)
	case EvLogStart:
		return fmt.Sprintf("%s@%d log start %d (leader %d's log start offset)", e.Partition, e.Broker, e.Offset, e.Leader)
	case EvZK:
		return "zk " + e.Detail
	case EvConn:
		return e.Detail
	case EvController:
		return "controller: " + e.Detail
	case EvProduce:
		return fmt.Sprintf("%s %s to %s", e.Producer, e.Detail, e.Topic)
	case EvProduceSend:
		return fmt.Sprintf("%s sends %s to %s on broker %d (attempt %d)", e.Producer, Values(e.RecordList()), e.Partition, e.Broker, e.Attempt)
	case EvAck:
		if e.Offset < 0 {
			return fmt.Sprintf("%s acked %s on %s (acks=0: offset unknown)", e.Producer, Values(e.RecordList()), e.Partition)
		}
		return fmt.Sprintf("%s acked %s on %s at %s", e.Producer, Values(e.RecordList()), e.Partition, offRange(e.Offset, e.Offset+int64(len(e.Records))-1))
	case EvProduceError:
		next := "gives up"
		if e.Retry {
			next = "will retry"
		}
		var s string
		if e.Partition == "" {
			// send() gave up waiting for the topic's metadata (max.block.ms)
			s = fmt.Sprintf("%s %s failed on %s before it was sent: %s (%s)", e.Producer, Values(e.RecordList()), e.Topic, e.Error, next)
		} else {
			s = fmt.Sprintf("%s %s failed on %s: %s (attempt %d, %s)", e.Producer, Values(e.RecordList()), e.Partition, e.Error, e.Attempt, next)
		}
		if e.Detail != "" {
			s += ": " + e.Detail
		}
		return s
	case EvConsume:
		return fmt.Sprintf("%s polled %s from %s at %s", e.Consumer, Values(e.RecordList()), e.Partition, offRange(e.Offset, e.Offset+int64(len(e.Records))-1))
	case EvConsumerInfo:
		return e.Detail
	case EvGroup:
		return fmt.Sprintf("group %s %s", e.Group, e.Detail)
	case EvCommit:
		return fmt.Sprintf("group %s committed %s offset %d (%s)", e.Group, e.Partition, e.Offset, e.Detail)
	case EvConnOpen:
		return fmt.Sprintf("connection %s from %s to broker %d open", e.Conn, e.From, e.Broker)
	case EvConnClose:
		s := fmt.Sprintf("connection %s from %s to broker %d closed (%s)", e.Conn, e.From, e.Broker, e.Reason)
		if len(e.Pending) > 0 {
			s += fmt.Sprintf(", %d request(s) unanswered", len(e.Pending))
		}
		return s
	case EvResponse:
		if e.Reply == nil {
			return fmt.Sprintf("broker %d answers %s", e.Broker, e.Conn)
		}
		return fmt.Sprintf("broker %d answers %s #%d (%s)", e.Broker, e.Conn, e.Reply.Correlation, e.Reply.API)
	}
	s := e.Detail
	if e.Error != "" {
		s += " (" + e.Error + ")"
	}
	return s
}

// FormatTime renders virtual milliseconds as seconds, e.g. "12.345s".
func FormatTime(ms int64) string {
	return strconv.FormatInt(ms/1000, 10) + "." + fmt.Sprintf("%03d", ms%1000) + "s"
}

// Values lists record values, eliding the middle of long lists; a null
// value reads as log.NullText.
func Values(rs []log.Record) string {
	if len(rs) <= maxShownValues {
		v := make([]string, len(rs))
		for i := range rs {
			v[i] = rs[i].ValueText()
		}
		return strings.Join(v, ",")
	}
	head := make([]string, 0, maxShownValues)
	for i := range rs[:maxShownValues-2] {
		head = append(head, rs[i].ValueText())
	}
	return fmt.Sprintf("%s,...(%d more)...,%s", strings.Join(head, ","), len(rs)-maxShownValues+1, rs[len(rs)-1].ValueText())
}

func offRange(a, b int64) string {
	if a == b {
		return strconv.FormatInt(a, 10)
	}
	return fmt.Sprintf("%d..%d", a, b)
}

func formatAssign(a [][]int) string {
	parts := make([]string, len(a))
	for i, r := range a {
		parts[i] = joinInts(r)
	}
	return strings.Join(parts, " / ")
}
