package session

import (
	"reflect"
	"testing"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/log"
)

func hashOf(e *core.Event) string {
	h := newTraceHash()
	h.event(e)
	return h.sum()
}

// Every field of core.Event but Seq changes the trace hash: a field
// added to the event and forgotten in traceHash.event fails here.
func TestTraceHashCoversEveryField(t *testing.T) {
	zero := hashOf(&core.Event{})
	typ := reflect.TypeOf(core.Event{})
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		if !f.IsExported() {
			continue // the packed records: hashed as RecordList, like Records
		}
		var e core.Event
		v := reflect.ValueOf(&e).Elem().Field(i)
		switch v.Kind() {
		case reflect.String:
			v.SetString("x")
		case reflect.Int, reflect.Int32, reflect.Int64:
			v.SetInt(7)
		case reflect.Uint64:
			v.SetUint(7)
		case reflect.Bool:
			v.SetBool(true)
		case reflect.Slice:
			s := reflect.MakeSlice(v.Type(), 1, 1)
			switch el := s.Index(0); el.Kind() {
			case reflect.Int, reflect.Int32:
				el.SetInt(3)
			case reflect.String:
				el.SetString("r")
			case reflect.Slice: // Replicas
				el.Set(reflect.ValueOf([]int{2}))
			case reflect.Struct: // Records
				el.Set(reflect.ValueOf(log.Record{Value: "v"}))
			default:
				t.Fatalf("field %s: no test value for a slice of %v", f.Name, el.Kind())
			}
			v.Set(s)
		case reflect.Pointer:
			v.Set(reflect.New(v.Type().Elem()))
		default:
			t.Fatalf("field %s: no test value for %v", f.Name, v.Kind())
		}
		got := hashOf(&e)
		if f.Name == "Seq" {
			if got != zero {
				t.Errorf("Seq changes the hash: the events' order already numbers them")
			}
			continue
		}
		if got == zero {
			t.Errorf("field %s does not change the trace hash", f.Name)
		}
	}
}

// Values that would run together in a plain concatenation hash apart,
// and so do a record's fields moved between records.
func TestTraceHashSeparatesFields(t *testing.T) {
	pairs := [][2]core.Event{
		{{From: "ab", To: "c"}, {From: "a", To: "bc"}},
		{{Records: []log.Record{{Value: "a"}, {Value: "b"}}}, {Records: []log.Record{{Value: "ab"}}}},
		{{Records: []log.Record{{Key: "k"}}}, {Records: []log.Record{{Value: "k"}}}},
		{{Records: []log.Record{{NullValue: true}}}, {Records: []log.Record{{}}}}, // a tombstone is no empty value
		{{ISR: []int{1, 2}}, {ISR: []int{12}}},
		{{Replicas: [][]int{{1}, {2}}}, {Replicas: [][]int{{1, 2}}}},
		{{Detail: "12345678abc"}, {Detail: "12345678abd"}},
	}
	for _, p := range pairs {
		if hashOf(&p[0]) == hashOf(&p[1]) {
			t.Errorf("%+v and %+v hash alike", p[0], p[1])
		}
	}
	// The order of events matters.
	a, b := core.Event{Type: core.EvHW, HW: 1}, core.Event{Type: core.EvHW, HW: 2}
	h1, h2 := newTraceHash(), newTraceHash()
	h1.event(&a)
	h1.event(&b)
	h2.event(&b)
	h2.event(&a)
	if h1.sum() == h2.sum() {
		t.Error("the same events in another order hash alike")
	}
}
