package strictjson

import (
	"reflect"
	"strconv"
	"unicode/utf8"
)

// The fast path. Object and Decode are exact about every error, but they
// read a document several times over (a syntax check, the members, then
// each member again token by token, building a field path and the
// struct's field list for every value) and cost what a page in live mode
// can least afford: a real client's Produce request is a list of
// thousands of records. A Plan decodes a document in one pass with the
// type's shape worked out once. It only ever succeeds on a document the
// exact decoder accepts, with the same result; on anything else (an
// error of any kind, or a form it does not take on: an escaped
// surrogate, a member before "type") it gives up, and the caller runs
// the exact decoder, which says what is wrong. TestPlanMatchesDecode and
// FuzzPlan hold it to that.

// Plan is how to decode one Go type. Plans are built once (NewPlan) and
// never change, so one may be used from any goroutine.
type Plan struct {
	custom Custom // decodes the type itself (NewPlanWith)
	kind   reflect.Kind
	typ    reflect.Type
	bits   int      // integers
	elem   *Plan    // pointers, slices, map values
	fields []fplan  // structs
	names  []string // structs: field names, for lookups
}

type fplan struct {
	name  string
	index int
	plan  *Plan
}

// NewPlan makes the plan of t (the Go types Decode takes). Unsupported
// types get a plan that always gives up.
func NewPlan(t reflect.Type) *Plan { return NewPlanWith(t, nil) }

// Custom decodes one value of its type into dst (addressable) from s,
// with the exact decoder's rules: false gives up, as a Plan does. It is
// for the types a document holds thousands of (a request's records),
// where reflection per field is most of the cost.
type Custom func(s *Scanner, dst reflect.Value) bool

// NewPlanWith is NewPlan with custom decoders for some types.
func NewPlanWith(t reflect.Type, custom map[reflect.Type]Custom) *Plan {
	return newPlan(t, map[reflect.Type]*Plan{}, custom)
}

func newPlan(t reflect.Type, seen map[reflect.Type]*Plan, custom map[reflect.Type]Custom) *Plan {
	if p := seen[t]; p != nil {
		return p
	}
	p := &Plan{kind: t.Kind(), typ: t, custom: custom[t]}
	seen[t] = p
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		p.bits = t.Bits()
	case reflect.Pointer, reflect.Slice:
		p.elem = newPlan(t.Elem(), seen, custom)
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			p.kind = reflect.Invalid
			break
		}
		p.elem = newPlan(t.Elem(), seen, custom)
	case reflect.Struct:
		for _, f := range Fields(t) {
			p.fields = append(p.fields, fplan{name: f.Name, index: f.Index, plan: newPlan(f.Type, seen, custom)})
			p.names = append(p.names, f.Name)
		}
	case reflect.String, reflect.Bool:
	default:
		p.kind = reflect.Invalid
	}
	return p
}

// Field returns the plan of the struct field called name, or nil.
func (p *Plan) Field(name string) (index int, fp *Plan) {
	for i := range p.fields {
		if p.fields[i].name == name {
			return p.fields[i].index, p.fields[i].plan
		}
	}
	return -1, nil
}

// Scanner reads one document for a Plan. A zero Scanner is not usable:
// Start makes one.
type Scanner struct {
	data []byte
	text string // data as a string: strings without escapes are slices of it, not copies
	pos  int
	lim  Limits
	buf  []byte // unescaping
}

// Start checks what Object checks of the whole document (its size, valid
// UTF-8, no byte order mark) and that it opens an object; false means the
// fast path gives up.
func Start(data []byte, lim Limits) (*Scanner, bool) {
	if len(data) > lim.Bytes || !utf8.Valid(data) {
		return nil, false
	}
	s := &Scanner{data: data, text: string(data), lim: lim}
	s.space()
	if !s.eat('{') {
		return nil, false
	}
	return s, true
}

// Member reads the next member's name of the object Start opened: ok
// false gives up; end true means the object closed. first says whether
// this is the object's first member.
func (s *Scanner) Member(first bool) (name string, end, ok bool) {
	s.space()
	if s.eat('}') {
		return "", true, true
	}
	if !first && !s.eat(',') {
		return "", false, false
	}
	s.space()
	name, ok = s.str()
	if !ok {
		return "", false, false
	}
	s.space()
	if !s.eat(':') {
		return "", false, false
	}
	return name, false, true
}

// String reads a string value.
func (s *Scanner) String() (string, bool) {
	s.space()
	return s.str()
}

// Value decodes the next value into dst by p.
func (s *Scanner) Value(p *Plan, dst reflect.Value) bool {
	s.space()
	if s.pos >= len(s.data) {
		return false
	}
	if p.custom != nil {
		return p.custom(s, dst)
	}
	c := s.data[s.pos]
	if c == 'n' {
		switch p.kind {
		case reflect.Pointer, reflect.Slice, reflect.Map:
			if !s.lit("null") {
				return false
			}
			dst.SetZero()
			return true
		}
		return false
	}
	switch p.kind {
	case reflect.String:
		str, ok := s.str()
		if !ok || len(str) > s.lim.String {
			return false
		}
		dst.SetString(str)
		return true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := s.integer(p.bits)
		if ok {
			dst.SetInt(n)
		}
		return ok
	case reflect.Bool:
		switch {
		case s.lit("true"):
			dst.SetBool(true)
		case s.lit("false"):
			dst.SetBool(false)
		default:
			return false
		}
		return true
	case reflect.Pointer:
		if !fits(c, p.elem.kind) {
			return false
		}
		v := reflect.New(p.typ.Elem())
		if !s.Value(p.elem, v.Elem()) {
			return false
		}
		dst.Set(v)
		return true
	case reflect.Slice:
		return s.list(p, dst)
	case reflect.Map:
		return s.object(p, dst)
	case reflect.Struct:
		return s.structure(p, dst)
	}
	return false
}

// Open reads the '{' that starts an object value (for a Custom decoder;
// then Member reads its members).
func (s *Scanner) Open() bool {
	s.space()
	return s.eat('{')
}

// Str reads a string value within the string limit.
func (s *Scanner) Str() (string, bool) {
	s.space()
	str, ok := s.str()
	return str, ok && len(str) <= s.lim.String
}

// Int reads an integer value of bits bits.
func (s *Scanner) Int(bits int) (int64, bool) {
	s.space()
	return s.integer(bits)
}

// Bool reads a boolean value.
func (s *Scanner) Bool() (bool, bool) {
	s.space()
	switch {
	case s.lit("true"):
		return true, true
	case s.lit("false"):
		return false, true
	}
	return false, false
}

// End checks that nothing but white space follows the object.
func (s *Scanner) End() bool {
	s.space()
	return s.pos == len(s.data)
}

// fits is tokenFits for the first byte of a value.
func fits(c byte, k reflect.Kind) bool {
	switch {
	case c == '"':
		return k == reflect.String
	case c == '-' || c >= '0' && c <= '9':
		return isInt(k)
	case c == 't' || c == 'f':
		return k == reflect.Bool
	case c == '[':
		return k == reflect.Slice
	case c == '{':
		return k == reflect.Map || k == reflect.Struct
	}
	return false
}

func (s *Scanner) list(p *Plan, dst reflect.Value) bool {
	if !s.eat('[') {
		return false
	}
	s.space()
	if s.eat(']') {
		dst.SetZero()
		return true
	}
	list := reflect.New(p.typ).Elem() // addressable: SetLen grows it in place
	list.Set(reflect.MakeSlice(p.typ, 0, 4))
	for n := 0; ; n++ {
		if n >= s.lim.Items {
			return false
		}
		if n == list.Cap() {
			grown := reflect.MakeSlice(p.typ, n, 2*n)
			reflect.Copy(grown, list)
			list.Set(grown)
		}
		list.SetLen(n + 1)
		if !s.Value(p.elem, list.Index(n)) {
			return false
		}
		s.space()
		if s.eat(']') {
			dst.Set(list)
			return true
		}
		if !s.eat(',') {
			return false
		}
	}
}

func (s *Scanner) object(p *Plan, dst reflect.Value) bool {
	if !s.eat('{') {
		return false
	}
	m := reflect.MakeMap(p.typ)
	for first := true; ; first = false {
		key, end, ok := s.Member(first)
		if !ok {
			return false
		}
		if end {
			break
		}
		if m.Len() >= s.lim.Items || len(key) > s.lim.String {
			return false
		}
		k := reflect.ValueOf(key)
		if m.MapIndex(k).IsValid() {
			return false
		}
		v := reflect.New(p.typ.Elem()).Elem()
		if !s.Value(p.elem, v) {
			return false
		}
		m.SetMapIndex(k, v)
	}
	if m.Len() > 0 {
		dst.Set(m)
	} else {
		dst.SetZero()
	}
	return true
}

func (s *Scanner) structure(p *Plan, dst reflect.Value) bool {
	if !s.eat('{') {
		return false
	}
	var seen uint64
	for first := true; ; first = false {
		name, end, ok := s.Member(first)
		if !ok {
			return false
		}
		if end {
			return true
		}
		if len(name) > s.lim.String {
			return false
		}
		i := -1
		for j := range p.names {
			if p.names[j] == name {
				i = j
				break
			}
		}
		if i < 0 || i >= 64 || seen&(1<<i) != 0 {
			return false
		}
		seen |= 1 << i
		f := &p.fields[i]
		if !s.Value(f.plan, dst.Field(f.index)) {
			return false
		}
	}
}

func (s *Scanner) space() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *Scanner) eat(c byte) bool {
	if s.pos < len(s.data) && s.data[s.pos] == c {
		s.pos++
		return true
	}
	return false
}

func (s *Scanner) lit(w string) bool {
	if len(s.data)-s.pos >= len(w) && string(s.data[s.pos:s.pos+len(w)]) == w {
		s.pos += len(w)
		return true
	}
	return false
}

// integer reads an integer literal (no fraction, no exponent) in range.
func (s *Scanner) integer(bits int) (int64, bool) {
	start := s.pos
	s.eat('-')
	if s.pos >= len(s.data) {
		return 0, false
	}
	if s.data[s.pos] == '0' {
		s.pos++
	} else {
		d := s.pos
		for s.pos < len(s.data) && s.data[s.pos] >= '0' && s.data[s.pos] <= '9' {
			s.pos++
		}
		if s.pos == d {
			return 0, false
		}
	}
	if s.pos < len(s.data) {
		switch s.data[s.pos] {
		case '.', 'e', 'E':
			return 0, false
		case '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			return 0, false // a leading zero: not JSON
		}
	}
	n, err := strconv.ParseInt(string(s.data[start:s.pos]), 10, bits)
	return n, err == nil
}

// str reads a string; the document is valid UTF-8 (Start).
func (s *Scanner) str() (string, bool) {
	if !s.eat('"') {
		return "", false
	}
	start := s.pos
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c == '"':
			out := s.text[start:s.pos]
			s.pos++
			return out, true
		case c == '\\':
			return s.escaped(start)
		case c < 0x20:
			return "", false
		}
		s.pos++
	}
	return "", false
}

// escaped reads the rest of a string that has escapes, from start.
func (s *Scanner) escaped(start int) (string, bool) {
	b := append(s.buf[:0], s.data[start:s.pos]...)
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c == '"':
			s.pos++
			s.buf = b
			return string(b), true
		case c < 0x20:
			return "", false
		case c != '\\':
			b = append(b, c)
			s.pos++
			continue
		}
		if s.pos+1 >= len(s.data) {
			return "", false
		}
		e := s.data[s.pos+1]
		s.pos += 2
		switch e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			if s.pos+4 > len(s.data) {
				return "", false
			}
			r, err := strconv.ParseUint(string(s.data[s.pos:s.pos+4]), 16, 32)
			if err != nil || r >= 0xD800 && r < 0xE000 { // surrogates: the exact decoder
				return "", false
			}
			s.pos += 4
			b = utf8.AppendRune(b, rune(r))
		default:
			return "", false
		}
	}
	return "", false
}
