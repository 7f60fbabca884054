package core

import (
	"reflect"

	"github.com/kafkasim/kafkasim/core/internal/strictjson"
)

// fastPlans are the commands' decoding plans (strictjson.Plan), made once.
var fastPlans = map[reflect.Type]*strictjson.Plan{}

func init() {
	for _, c := range commandKinds {
		t := reflect.TypeOf(c)
		fastPlans[t] = strictjson.NewPlan(t)
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
