package core

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core/log"
)

func TestEventJSONZeroFields(t *testing.T) {
	cases := []struct {
		e          Event
		has, hasnt []string
	}{
		{Event{Type: EvMsgSend, From: "p1", To: "1", Msg: "Produce", MsgID: 3, DeliverAt: 2},
			[]string{`"sentAt":0`, `"deliverAt":2`}, []string{`"offset"`, `"epoch"`}},
		{Event{Type: EvAppend, Broker: 1, Partition: "t-0", Records: []log.Record{{Value: "m1"}}},
			[]string{`"offset":0`, `"endOffset":0`, `"epoch":0`}, []string{`"sentAt"`, `"hw"`}},
		{Event{Type: EvLeader, Partition: "t-0", Leader: -1}, []string{`"leader":-1`, `"epoch":0`}, []string{`"offset"`}},
		{Event{Type: EvGroup, Group: "g"}, []string{`"generation":0`}, []string{`"offset"`}},
		{Event{Type: EvZK, Detail: "create /brokers/ids"}, nil, []string{`"offset"`, `"sentAt"`, `"epoch"`, `"leader"`}},
		{Event{Type: EvInfo, Offset: 7}, []string{`"offset":7`}, nil},
		{Event{Type: EvRole, Partition: "t-0", Broker: 1, Role: RoleLeader, Leader: 1}, []string{`"leo":0`, `"hw":0`, `"epoch":0`, `"role":"leader"`}, []string{`"offset"`}},
		{Event{Type: EvTruncate, Partition: "t-0", Broker: 2, Records: []log.Record{{Value: "m1"}}, Reason: TruncateLeaderEpoch, Fate: FateTruncated},
			[]string{`"offset":0`, `"endOffset":0`, `"fate":"truncated"`}, []string{`"leo"`}},
	}
	for _, c := range cases {
		b, err := json.Marshal(c.e)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		for _, w := range c.has {
			if !strings.Contains(s, w) {
				t.Errorf("%s: %s lacks %s", c.e.Type, s, w)
			}
		}
		for _, w := range c.hasnt {
			if strings.Contains(s, w) {
				t.Errorf("%s: %s has %s", c.e.Type, s, w)
			}
		}
		if strings.Count(s, `"offset"`) > 1 || strings.Count(s, `"epoch"`) > 1 {
			t.Errorf("%s: a field written twice: %s", c.e.Type, s)
		}
		var back Event
		if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, c.e) {
			t.Errorf("%s: round trip gave %+v (%v), want %+v", c.e.Type, back, err, c.e)
		}
	}
}

// TestEventsEncode: every event a real run emits encodes to JSON and back.
func TestEventsEncode(t *testing.T) {
	c, err := New(Options{Brokers: 3, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []Command{
		CreateTopic{Topic: "t", Partitions: 2, RF: 3},
		NewProducer{Name: "p1"},
		Produce{Producer: "p1", Topic: "t", Value: "m", Count: 5},
		Wait{Duration: 1000},
		CrashBroker{Broker: 1},
		Wait{Duration: 30000},
	} {
		if err := c.Exec(cmd); err != nil {
			t.Fatalf("%T: %v", cmd, err)
		}
	}
	n := 0
	for _, e := range c.Events() {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("event %d: %v", e.Seq, err)
		}
		var back Event
		if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, e) {
			t.Fatalf("event %d round trip: %s gave %+v", e.Seq, b, back)
		}
		n++
	}
	if n < 50 {
		t.Errorf("only %d events", n)
	}
}
