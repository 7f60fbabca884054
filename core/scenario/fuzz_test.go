package scenario

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse checks that Parse never panics, that its errors are *Error
// pointing into the input, and that a step parses the same from its Text.
func FuzzParse(f *testing.F) {
	f.Add("cluster brokers=3 seed=42\ntopic create orders partitions=1 rf=3\nwait 1s\n")
	f.Add(`expect znode /brokers/topics/orders/partitions/0/state contains "isr":[1,2] # x`)
	f.Fuzz(func(t *testing.T, src string) {
		s, err := Parse(src)
		lines := strings.Split(strings.TrimPrefix(src, "\uFEFF"), "\n")
		if err != nil {
			checkErr(t, err, lines)
			return
		}
		for _, st := range s.Steps {
			checkStep(t, st, len(lines))
		}
	})
}

// checkErr checks that err is an *Error within lines.
func checkErr(t *testing.T, err error, lines []string) {
	var pe *Error
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not an *Error", err, err)
	}
	if pe.Line < 1 || pe.Line > len(lines) || pe.Col < 1 || pe.Msg == "" {
		t.Fatalf("error %v out of range (%d lines)", err, len(lines))
	}
	if line := lines[pe.Line-1]; pe.Col > utf8.RuneCountInString(line)+1 {
		t.Fatalf("error %v: column past the end of %q", err, line)
	}
}

// checkStep checks one parsed step and that its Text parses the same.
func checkStep(t *testing.T, st Step, lines int) {
	if st.Line < 1 || st.Line > lines || st.Text == "" {
		t.Fatalf("step %+v out of range (%d lines)", st, lines)
	}
	set := 0
	for _, ok := range []bool{st.Cluster != nil, st.Cmd != nil, st.Expect != nil, st.Print != nil} {
		if ok {
			set++
		}
	}
	if set != 1 {
		t.Fatalf("step %+v sets %d fields, want 1", st, set)
	}
	again, err := ParseLine(st.Text, st.Line)
	if err != nil {
		t.Fatalf("Text %q of a good step fails: %v", st.Text, err)
	}
	if again.Expect != nil {
		again.Expect.Col = st.Expect.Col
	}
	if !reflect.DeepEqual(*again, st) {
		t.Fatalf("Text %q parses to %+v, want %+v", st.Text, *again, st)
	}
}
