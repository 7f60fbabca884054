package strictjson

import (
	"reflect"
	"strings"
	"testing"
)

type inner struct {
	N    int32    `json:"n"`
	Tags []string `json:"tags,omitempty"`
}

type outer struct {
	Name string            `json:"name"`
	On   bool              `json:"on"`
	In   *inner            `json:"in,omitempty"`
	List []inner           `json:"list,omitempty"`
	Conf map[string]string `json:"conf,omitempty"`
	skip int
}

var lim = Limits{Bytes: 1 << 10, Items: 3, String: 16, Name: "message"}

func decode(t *testing.T, src string) (outer, error) {
	t.Helper()
	var o outer
	members, err := Object([]byte(src), lim)
	if err != nil {
		return o, err
	}
	v := reflect.ValueOf(&o).Elem()
	fields := Fields(v.Type())
	for _, m := range members {
		i := fieldIndex(fields, m.Name)
		if i < 0 {
			return o, &unknown{m.Name}
		}
		if err := Decode(m.Value, m.Name, v.Field(fields[i].Index), lim); err != nil {
			return o, err
		}
	}
	return o, nil
}

type unknown struct{ name string }

func (u *unknown) Error() string { return "unknown " + u.name }

func TestDecodeNested(t *testing.T) {
	o, err := decode(t, `{"name":"a","on":true,"in":{"n":7,"tags":["x"]},"list":[{"n":1},{"n":2}],"conf":{"k":"v"}}`)
	if err != nil {
		t.Fatal(err)
	}
	want := outer{Name: "a", On: true, In: &inner{N: 7, Tags: []string{"x"}}, List: []inner{{N: 1}, {N: 2}}, Conf: map[string]string{"k": "v"}}
	if !reflect.DeepEqual(o, want) {
		t.Fatalf("got %+v", o)
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`[]`, "message must be a JSON object, not a list"},
		{`{"name":"a"} x`, "unexpected data after the first JSON value"},
		{`{"name":"a","name":"b"}`, `member "name" is given twice`},
		{`{"in":{"n":1,"m":2}}`, `field "in": unknown member "m" (members are n, tags)`},
		{`{"in":{"n":1,"n":2}}`, `field "in" has member "n" twice`},
		{`{"in":{"n":3000000000}}`, `out of range for a 32-bit integer`},
		{`{"in":{"n":1.5}}`, `must be an integer without fraction or exponent`},
		{`{"on":"yes"}`, `field "on" must be a boolean, not a string`},
		{`{"list":[{},{},{},{}]}`, `field "list" has more than 3 items (the limit)`},
		{`{"name":"12345678901234567"}`, `more than the limit of 16`},
		{`{"in":[1]}`, `field "in" must be an object or null, not a list`},
		{"\xff", "message is not valid UTF-8"},
		{"\uFEFF{}", "byte order mark"},
	} {
		_, err := decode(t, tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestCheck(t *testing.T) {
	ok := outer{Name: "a", In: &inner{Tags: []string{"x"}}}
	if err := Check(reflect.ValueOf(ok), "", lim); err != nil {
		t.Fatal(err)
	}
	bad := outer{In: &inner{Tags: []string{"\xff"}}}
	if err := Check(reflect.ValueOf(bad), "", lim); err == nil || !strings.Contains(err.Error(), `"in.tags[0]" is not valid UTF-8`) {
		t.Fatalf("got %v", err)
	}
	many := outer{Conf: map[string]string{"a": "", "b": "", "c": "", "d": ""}}
	if err := Check(reflect.ValueOf(many), "", lim); err == nil || !strings.Contains(err.Error(), "more than 3 keys") {
		t.Fatalf("got %v", err)
	}
}

// TestCheckWalksAgree: Check's walk without paths finds a value within
// the limits exactly when the walk that names the field does, for a
// fault in each place a value can hold one.
func TestCheckWalksAgree(t *testing.T) {
	long := strings.Repeat("x", 17)
	cases := []outer{
		{}, {Name: "a", In: &inner{Tags: []string{"x", "y"}}, List: []inner{{N: 1}, {Tags: []string{"z"}}}, Conf: map[string]string{"k": "v"}},
		{Name: long}, {Name: "\xff"}, {In: &inner{Tags: []string{"a", "b", "c", "d"}}}, {In: &inner{Tags: []string{long}}},
		{List: []inner{{}, {}, {}, {}}}, {List: []inner{{}, {Tags: []string{"\xfe"}}}},
		{Conf: map[string]string{long: ""}}, {Conf: map[string]string{"\xff": ""}}, {Conf: map[string]string{"k": long}},
		{Conf: map[string]string{"a": "", "b": "", "c": "", "d": ""}}, {skip: 1, Name: "ok"},
	}
	for i, o := range cases {
		v := reflect.ValueOf(o)
		c := checker{lim: lim}
		if within, err := c.within(v), check(v, "", lim); within != (err == nil) {
			t.Errorf("case %d: within %v, check %v", i, within, err)
		}
		if err, want := Check(v, "", lim), check(v, "", lim); (err == nil) != (want == nil) || (err != nil && err.Error() != want.Error()) {
			t.Errorf("case %d: Check %v, want %v", i, err, want)
		}
	}
}
