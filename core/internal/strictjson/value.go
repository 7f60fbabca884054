package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Fields lists the JSON fields of struct type t: exported fields with a
// json tag name other than "-", in declaration order.
func Fields(t reflect.Type) []Field {
	var out []Field
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		out = append(out, Field{Name: name, Index: i, Type: f.Type})
	}
	return out
}

// Field is one JSON field of a struct.
type Field struct {
	Name  string
	Index int
	Type  reflect.Type
}

// Decode decodes one JSON value into dst by dst's Go type (string, int,
// int32, int64, bool, pointers, slices, maps with string keys, and structs
// by their json tags); path names the value in errors.
func Decode(raw json.RawMessage, path string, dst reflect.Value, lim Limits) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	d := decoder{dec: dec, lim: lim}
	return d.next(path, dst)
}

type decoder struct {
	dec *json.Decoder
	lim Limits
}

// next decodes the decoder's next value into dst.
func (d decoder) next(path string, dst reflect.Value) error {
	tok, err := d.dec.Token()
	if err != nil {
		return fmt.Errorf("field %s: %v", Quote(path), syntaxError(err, d.lim.Name, d.dec.InputOffset()))
	}
	return d.token(tok, path, dst)
}

// token decodes a value that starts with tok into dst.
func (d decoder) token(tok json.Token, path string, dst reflect.Value) error {
	if tok == nil && nullable(dst.Type()) {
		dst.SetZero()
		return nil
	}
	switch dst.Kind() {
	case reflect.String:
		return d.str(tok, path, dst)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return decodeInt(tok, path, dst)
	case reflect.Bool:
		b, ok := tok.(bool)
		if !ok {
			return wrongType(path, dst.Type(), tok)
		}
		dst.SetBool(b)
		return nil
	case reflect.Pointer:
		if !tokenFits(tok, dst.Type().Elem().Kind()) {
			return wrongType(path, dst.Type(), tok)
		}
		dst.Set(reflect.New(dst.Type().Elem()))
		return d.token(tok, path, dst.Elem())
	case reflect.Slice:
		return d.list(tok, path, dst)
	case reflect.Array:
		return d.byteArray(tok, path, dst)
	case reflect.Map:
		return d.object(tok, path, dst)
	case reflect.Struct:
		return d.structure(tok, path, dst)
	}
	return fmt.Errorf("field %s has an unsupported Go type %s", Quote(path), dst.Type())
}

// nullable reports whether JSON null is allowed for t (meaning absent).
func nullable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map:
		return true
	}
	return false
}

// tokenFits reports whether a value starting with tok can be of kind k.
func tokenFits(tok json.Token, k reflect.Kind) bool {
	switch tok.(type) {
	case string:
		return k == reflect.String
	case json.Number:
		return isInt(k)
	case bool:
		return k == reflect.Bool
	}
	return (tok == json.Delim('[') && k == reflect.Slice) || (tok == json.Delim('{') && (k == reflect.Map || k == reflect.Struct))
}

func isInt(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return true
	}
	return false
}

// wrongType is the error for a JSON value of the wrong type.
func wrongType(path string, want reflect.Type, tok json.Token) error {
	return fmt.Errorf("field %s must be %s, not %s", Quote(path), describeType(want), describeToken(tok))
}

func (d decoder) str(tok json.Token, path string, dst reflect.Value) error {
	s, ok := tok.(string)
	if !ok {
		return wrongType(path, dst.Type(), tok)
	}
	if len(s) > d.lim.String {
		return fmt.Errorf("field %s is %d bytes long, more than the limit of %d", Quote(path), len(s), d.lim.String)
	}
	dst.SetString(s)
	return nil
}

// decodeInt decodes a JSON integer token into dst, in dst's range.
func decodeInt(tok json.Token, path string, dst reflect.Value) error {
	n, ok := tok.(json.Number)
	if !ok {
		return wrongType(path, dst.Type(), tok)
	}
	i, err := strconv.ParseInt(string(n), 10, dst.Type().Bits())
	if errors.Is(err, strconv.ErrRange) {
		return fmt.Errorf("field %s: %s is out of range for a %d-bit integer", Quote(path), shorten(string(n)), dst.Type().Bits())
	}
	if err != nil {
		return fmt.Errorf("field %s must be an integer without fraction or exponent, not %s", Quote(path), shorten(string(n)))
	}
	dst.SetInt(i)
	return nil
}

// list decodes a JSON list starting at tok into slice dst.
func (d decoder) list(tok json.Token, path string, dst reflect.Value) error {
	if tok != json.Delim('[') {
		return wrongType(path, dst.Type(), tok)
	}
	list := reflect.MakeSlice(dst.Type(), 0, 0)
	for d.dec.More() {
		if list.Len() >= d.lim.Items {
			return d.tooMany(path, "items")
		}
		list = reflect.Append(list, reflect.Zero(dst.Type().Elem()))
		at := fmt.Sprintf("%s[%d]", path, list.Len()-1)
		if err := d.next(at, list.Index(list.Len()-1)); err != nil {
			return err
		}
	}
	if list.Len() > 0 {
		dst.Set(list)
	} else {
		dst.SetZero()
	}
	return d.closeDelim(path)
}

// byteArray decodes a JSON array of exactly len(dst) numbers 0 to 255
// into a byte array (encoding/json's form of a [16]byte topic id); other
// arrays are not supported.
func (d decoder) byteArray(tok json.Token, path string, dst reflect.Value) error {
	if dst.Type().Elem().Kind() != reflect.Uint8 {
		return fmt.Errorf("field %s has an unsupported Go type %s", Quote(path), dst.Type())
	}
	if tok != json.Delim('[') {
		return wrongType(path, dst.Type(), tok)
	}
	for i := 0; d.dec.More(); i++ {
		t, err := d.dec.Token()
		if err != nil {
			return fmt.Errorf("field %s: %v", Quote(path), syntaxError(err, d.lim.Name, d.dec.InputOffset()))
		}
		n, ok := t.(json.Number)
		v, perr := strconv.ParseUint(string(n), 10, 8)
		if !ok || perr != nil || i >= dst.Len() {
			return fmt.Errorf("field %s must be %d numbers 0 to 255", Quote(path), dst.Len())
		}
		dst.Index(i).SetUint(v)
		if i == dst.Len()-1 && d.dec.More() {
			return fmt.Errorf("field %s must be %d numbers 0 to 255", Quote(path), dst.Len())
		}
	}
	return d.closeDelim(path)
}

// object decodes a JSON object starting at tok into map dst.
func (d decoder) object(tok json.Token, path string, dst reflect.Value) error {
	if tok != json.Delim('{') {
		return wrongType(path, dst.Type(), tok)
	}
	m := reflect.MakeMap(dst.Type())
	for d.dec.More() {
		if m.Len() >= d.lim.Items {
			return d.tooMany(path, "keys")
		}
		if err := d.entry(path, m); err != nil {
			return err
		}
	}
	if m.Len() > 0 {
		dst.Set(m)
	} else {
		dst.SetZero()
	}
	return d.closeDelim(path)
}

// entry decodes one key and value of a JSON object into map m.
func (d decoder) entry(path string, m reflect.Value) error {
	key, err := d.key(path)
	if err != nil {
		return err
	}
	k := reflect.ValueOf(key)
	if m.MapIndex(k).IsValid() {
		return fmt.Errorf("field %s has key %s twice", Quote(path), Quote(key))
	}
	val := reflect.New(m.Type().Elem()).Elem()
	if err := d.next(path+"."+key, val); err != nil {
		return err
	}
	m.SetMapIndex(k, val)
	return nil
}

// key reads an object's next key.
func (d decoder) key(path string) (string, error) {
	tok, err := d.dec.Token()
	if err != nil {
		return "", fmt.Errorf("field %s: %v", Quote(path), syntaxError(err, d.lim.Name, d.dec.InputOffset()))
	}
	key, _ := tok.(string)
	if len(key) > d.lim.String {
		return "", fmt.Errorf("field %s has a key of %d bytes, more than the limit of %d", Quote(path), len(key), d.lim.String)
	}
	return key, nil
}

// structure decodes a JSON object starting at tok into struct dst by its
// json tags; unknown and repeated members are errors.
func (d decoder) structure(tok json.Token, path string, dst reflect.Value) error {
	if tok != json.Delim('{') {
		return wrongType(path, dst.Type(), tok)
	}
	fields := Fields(dst.Type())
	seen := map[string]bool{}
	for d.dec.More() {
		name, err := d.key(path)
		if err != nil {
			return err
		}
		i := fieldIndex(fields, name)
		if i < 0 {
			return fmt.Errorf("field %s: unknown member %s (members are %s)", Quote(path), Quote(name), FieldNames(fields))
		}
		if seen[name] {
			return fmt.Errorf("field %s has member %s twice", Quote(path), Quote(name))
		}
		seen[name] = true
		if err := d.next(path+"."+name, dst.Field(fields[i].Index)); err != nil {
			return err
		}
	}
	return d.closeDelim(path)
}

func fieldIndex(fields []Field, name string) int {
	for i, f := range fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// FieldNames returns the JSON names of fields, for error messages.
func FieldNames(fields []Field) string {
	if len(fields) == 0 {
		return "none"
	}
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

// closeDelim reads the ']' or '}' that ends a list or object.
func (d decoder) closeDelim(path string) error {
	if _, err := d.dec.Token(); err != nil {
		return fmt.Errorf("field %s: %v", Quote(path), syntaxError(err, d.lim.Name, d.dec.InputOffset()))
	}
	return nil
}

// tooMany is the error for a list or object past the item limit.
func (d decoder) tooMany(path, what string) error {
	return tooMany(path, what, d.lim.Items)
}

func tooMany(path, what string, limit int) error {
	return fmt.Errorf("field %s has more than %d %s (the limit)", Quote(path), limit, what)
}

// describeType names the JSON shape of Go type t, e.g. "a list of integers".
func describeType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Bool:
		return "a boolean"
	case reflect.Pointer:
		return describeType(t.Elem()) + " or null"
	case reflect.Slice:
		return "a list of " + plural(t.Elem())
	case reflect.Map:
		return "an object with " + plural(t.Elem()) + " as values"
	case reflect.Struct:
		return "an object"
	}
	return t.String()
}

// plural names the JSON shape of t in the plural, e.g. "lists of strings".
func plural(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "strings"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "integers"
	case reflect.Slice:
		return "lists of " + plural(t.Elem())
	case reflect.Struct:
		return "objects"
	}
	return describeType(t) + " values"
}

// describeToken names the JSON type of a token, e.g. "a string".
func describeToken(tok json.Token) string {
	switch x := tok.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number:
		return "a number (" + shorten(string(x)) + ")"
	case bool:
		return "a boolean"
	case json.Delim:
		if x == '[' {
			return "a list"
		}
		if x == '{' {
			return "an object"
		}
	}
	return fmt.Sprintf("%v", tok)
}

// shorten cuts s for an error message.
func shorten(s string) string {
	const max = 40
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// Quote quotes s for an error message, cut if long.
func Quote(s string) string {
	return strconv.Quote(shorten(s))
}

// Check applies the limits to a Go value about to be encoded: what Decode
// would refuse (strings that are not valid UTF-8 or too long, lists and
// maps with too many items) is an error naming the field. A value within
// the limits (the usual case: a real client's produce request of
// thousands of records, command after command) is walked once without
// building field paths; only a value that breaks one is walked again to
// name the field.
func Check(v reflect.Value, path string, lim Limits) error {
	c := checker{lim: lim}
	if c.within(v) {
		return nil
	}
	return check(v, path, lim)
}

// checker walks a value as check does, with no paths: each struct type's
// fields are listed once per walk.
type checker struct {
	lim    Limits
	fields map[reflect.Type][]Field
}

// within reports whether check would find v within the limits: the same
// values visited, the same tests.
func (c *checker) within(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		s := v.String()
		return utf8.ValidString(s) && len(s) <= c.lim.String
	case reflect.Pointer:
		return v.IsNil() || c.within(v.Elem())
	case reflect.Struct:
		t := v.Type()
		fs, ok := c.fields[t]
		if !ok {
			if c.fields == nil {
				c.fields = map[reflect.Type][]Field{}
			}
			fs = Fields(t)
			c.fields[t] = fs
		}
		for _, f := range fs {
			if !c.within(v.Field(f.Index)) {
				return false
			}
		}
	case reflect.Slice:
		if v.Len() > c.lim.Items {
			return false
		}
		for i := 0; i < v.Len(); i++ {
			if !c.within(v.Index(i)) {
				return false
			}
		}
	case reflect.Map:
		if v.Len() > c.lim.Items {
			return false
		}
		iter := v.MapRange()
		for iter.Next() {
			k := iter.Key().String()
			if !utf8.ValidString(k) || len(k) > c.lim.String || !c.within(iter.Value()) {
				return false
			}
		}
	}
	return true
}

// check is Check's walk that names the field at fault.
func check(v reflect.Value, path string, lim Limits) error {
	switch v.Kind() {
	case reflect.String:
		return checkString(v.String(), path, lim)
	case reflect.Pointer:
		if !v.IsNil() {
			return check(v.Elem(), path, lim)
		}
	case reflect.Struct:
		for _, f := range Fields(v.Type()) {
			at := f.Name
			if path != "" {
				at = path + "." + f.Name
			}
			if err := check(v.Field(f.Index), at, lim); err != nil {
				return err
			}
		}
	case reflect.Slice:
		if v.Len() > lim.Items {
			return tooMany(path, "items", lim.Items)
		}
		for i := 0; i < v.Len(); i++ {
			if err := check(v.Index(i), fmt.Sprintf("%s[%d]", path, i), lim); err != nil {
				return err
			}
		}
	case reflect.Map:
		if v.Len() > lim.Items {
			return tooMany(path, "keys", lim.Items)
		}
		iter := v.MapRange()
		for iter.Next() {
			k := iter.Key().String()
			if err := checkString(k, path+" key", lim); err != nil {
				return err
			}
			if err := check(iter.Value(), path+"."+k, lim); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkString checks that s is valid UTF-8 and not too long.
func checkString(s, path string, lim Limits) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("field %s is not valid UTF-8", Quote(path))
	}
	if len(s) > lim.String {
		return fmt.Errorf("field %s is %d bytes long, more than the limit of %d", Quote(path), len(s), lim.String)
	}
	return nil
}
