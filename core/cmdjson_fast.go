package core

import (
	"reflect"

	"github.com/kafkasim/kafkasim/core/internal/strictjson"
	"github.com/kafkasim/kafkasim/core/log"
)

// fastPlans are the commands' decoding plans (strictjson.Plan), made once.
var fastPlans = map[reflect.Type]*strictjson.Plan{}

func init() {
	custom := map[reflect.Type]strictjson.Custom{reflect.TypeOf(log.Record{}): decodeRecord}
	for _, c := range commandKinds {
		t := reflect.TypeOf(c)
		fastPlans[t] = strictjson.NewPlanWith(t, custom)
	}
}

// headersPlan decodes a record's headers (rare: by reflection).
var headersPlan = strictjson.NewPlan(reflect.TypeOf([]log.Header(nil)))

// decodeRecord is a real client's record without reflection: a Produce
// request holds thousands. Its members are log.Record's JSON fields.
func decodeRecord(s *strictjson.Scanner, dst reflect.Value) bool {
	r := dst.Addr().Interface().(*log.Record)
	if !s.Open() {
		return false
	}
	var seen uint8
	for first := true; ; first = false {
		name, end, ok := s.Member(first)
		if !ok {
			return false
		}
		if end {
			return true
		}
		var bit uint8
		switch name {
		case "key":
			bit = 1
			r.Key, ok = s.Str()
		case "value":
			bit = 2
			r.Value, ok = s.Str()
		case "hasKey":
			bit = 4
			r.HasKey, ok = s.Bool()
		case "timestampDelta":
			bit = 8
			r.TimestampDelta, ok = s.Int(64)
		case "headers":
			bit = 16
			ok = s.Value(headersPlan, reflect.ValueOf(&r.Headers).Elem())
		case "nullValue":
			bit = 32
			r.NullValue, ok = s.Bool()
		}
		if bit == 0 || seen&bit != 0 || !ok {
			return false
		}
		seen |= bit
	}
}

// fastDecode is decodeCommand's one pass (strictjson's fast path) for a
// command whose "type" comes first, as EncodeCommand writes it: ok false
// when it gives up, and decodeCommand then reads data exactly (and says
// what is wrong, if anything). When ok, the command is the one
// decodeCommand's exact path gives.
func fastDecode(data []byte, lim strictjson.Limits) (Command, bool) {
	s, ok := strictjson.Start(data, lim)
	if !ok {
		return nil, false
	}
	name, end, ok := s.Member(true)
	if !ok || end || name != "type" {
		return nil, false
	}
	kind, ok := s.String()
	sc := schemaByKind[kind]
	if !ok || sc == nil {
		return nil, false
	}
	p := fastPlans[sc.typ]
	v := reflect.New(sc.typ).Elem()
	var seen uint64
	for {
		name, end, ok := s.Member(false)
		if !ok {
			return nil, false
		}
		if end {
			break
		}
		i := -1
		for j := range sc.fields {
			if sc.fields[j].Name == name {
				i = j
				break
			}
		}
		if i < 0 || i >= 64 || seen&(1<<i) != 0 {
			return nil, false // unknown, given twice, or "type" again
		}
		seen |= 1 << i
		idx, fp := p.Field(name)
		if fp == nil || !s.Value(fp, v.Field(idx)) {
			return nil, false
		}
	}
	if !s.End() {
		return nil, false
	}
	return v.Interface().(Command), true
}
