package core

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits of the JSON command codec. A command is small: the websocket bridge
// reads one command per message, and nothing in a command needs more.
const (
	// MaxCommandBytes is the largest JSON command DecodeCommand accepts and
	// EncodeCommand produces.
	MaxCommandBytes = 64 << 10
	// MaxCommandItems is the most items in any one list or object inside a
	// command (an assign's partitions, a topic's configs, a split's groups,
	// one group's hosts, ...).
	MaxCommandItems = 10_000
	// MaxCommandString is the longest string (in bytes, after unescaping) in
	// a command. It equals MaxCommandBytes, so a decoded command never hits
	// it; EncodeCommand uses it to name the field that is too long.
	MaxCommandString = MaxCommandBytes
)

// commandKinds lists one zero value of every command, the codec's registry.
var commandKinds = []Command{
	CreateTopic{}, AlterTopic{}, Set{}, NewProducer{}, Produce{}, NewConsumer{},
	Assign{}, Poll{}, Commit{}, CloseConsumer{}, CrashConsumer{}, CrashBroker{},
	PowerOff{}, Restart{}, Pause{}, Resume{}, NetSplit{}, NetHeal{}, NetDelay{},
	NetDrop{}, Wait{}, Settle{},
}

// cmdField is one JSON field of a command struct.
type cmdField struct {
	name  string
	index int
	typ   reflect.Type
}

// cmdSchema describes one command kind.
type cmdSchema struct {
	kind   string
	typ    reflect.Type
	fields []cmdField
}

// field returns the field called name (case-sensitive), or nil.
func (s *cmdSchema) field(name string) *cmdField {
	for i := range s.fields {
		if s.fields[i].name == name {
			return &s.fields[i]
		}
	}
	return nil
}

// fieldNames returns the JSON names of s's fields, for error messages.
func (s *cmdSchema) fieldNames() string {
	if len(s.fields) == 0 {
		return "none"
	}
	names := make([]string, len(s.fields))
	for i, f := range s.fields {
		names[i] = f.name
	}
	return strings.Join(names, ", ")
}

var (
	schemaByKind = map[string]*cmdSchema{}
	schemaByType = map[reflect.Type]*cmdSchema{}
	kindList     string // the valid "type" values, sorted, for errors
)

// init fills the registry from commandKinds.
func init() {
	kinds := make([]string, 0, len(commandKinds))
	for _, c := range commandKinds {
		s := newSchema(c)
		schemaByKind[s.kind] = s
		schemaByType[s.typ] = s
		kinds = append(kinds, s.kind)
	}
	sort.Strings(kinds)
	kindList = strings.Join(kinds, ", ")
}

// newSchema reads a command struct's JSON field names from its tags.
func newSchema(c Command) *cmdSchema {
	t := reflect.TypeOf(c)
	s := &cmdSchema{kind: c.Kind(), typ: t}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		s.fields = append(s.fields, cmdField{name: name, index: i, typ: f.Type})
	}
	return s
}

// rawField is one top-level member of a command object, in input order.
type rawField struct {
	name  string
	value json.RawMessage
}

// DecodeCommand decodes one command from JSON: a single object whose "type"
// member is the command's Kind and whose other members are the command's
// fields by their JSON names, e.g.
//
//	{"type":"produce","producer":"p1","topic":"orders","value":"m1","count":3}
//
// It returns the command as the value type Cluster.Apply accepts (Produce,
// not *Produce). Decoding is strict and every failure is an error sentence,
// never a panic:
//
//   - the input is at most MaxCommandBytes of valid UTF-8 holding exactly one
//     JSON object (anything after it, even another object, is an error);
//   - "type" is required and must name a command; the error lists the kinds;
//   - member names are case-sensitive, unknown members are rejected by name,
//     and a member given twice (at the top level or inside configs) is
//     rejected rather than letting the last one win;
//   - each member must have its field's JSON type: strings are strings,
//     integers are integer literals in range (no fraction or exponent, so
//     1.0, 1e3 and 1e999 are rejected), lists are lists and configs are
//     objects of strings; null is allowed only for key, partition and the
//     lists and objects, and means "absent";
//   - no list or object has more than MaxCommandItems items, and no string
//     is longer than MaxCommandString bytes.
//
// Missing members take their zero value (Apply validates values such as
// counts and broker ids). An empty list or object decodes as nil, like an
// absent one. Escaped lone surrogates ("\ud800") become U+FFFD, as in
// encoding/json.
func DecodeCommand(data []byte) (Command, error) {
	if len(data) > MaxCommandBytes {
		return nil, fmt.Errorf("command is %d bytes, more than the limit of %d", len(data), MaxCommandBytes)
	}
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("command is not valid UTF-8 (at byte %d)", invalidUTF8At(data))
	}
	if bytes.HasPrefix(data, []byte("\uFEFF")) {
		return nil, fmt.Errorf("command starts with a byte order mark (U+FEFF); send plain JSON")
	}
	if err := checkSyntax(data); err != nil {
		return nil, err
	}
	fields, err := splitObject(data)
	if err != nil {
		return nil, err
	}
	s, err := commandSchema(fields)
	if err != nil {
		return nil, err
	}
	return s.decode(fields)
}

// invalidUTF8At returns the offset of the first invalid UTF-8 byte.
func invalidUTF8At(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(data)
}

// checkSyntax checks that data is exactly one JSON value, of any type.
func checkSyntax(data []byte) error {
	var whole json.RawMessage
	err := json.Unmarshal(data, &whole)
	if err == nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if dec.Decode(&whole) == nil {
		end := dec.InputOffset()
		end += int64(len(data[end:]) - len(bytes.TrimLeft(data[end:], " \t\r\n")))
		return fmt.Errorf("unexpected data after the first JSON value at offset %d: a command is exactly one JSON object", end)
	}
	return syntaxError(err, 0)
}

// splitObject checks that data is exactly one JSON object with no repeated
// member and returns its members in order.
func splitObject(data []byte) ([]rawField, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, syntaxError(err, dec.InputOffset())
	}
	if tok != json.Delim('{') {
		return nil, fmt.Errorf("command must be a JSON object, not %s", describeToken(tok))
	}
	fields, err := readMembers(dec)
	if err != nil {
		return nil, err
	}
	return fields, expectEOF(dec)
}

// readMembers reads the members of an object whose '{' was read, and its '}'.
func readMembers(dec *json.Decoder) ([]rawField, error) {
	var fields []rawField
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, syntaxError(err, dec.InputOffset())
		}
		name, _ := tok.(string)
		if seen[name] {
			return nil, fmt.Errorf("member %s is given twice", quoteShort(name))
		}
		seen[name] = true
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, syntaxError(err, dec.InputOffset())
		}
		fields = append(fields, rawField{name, raw})
	}
	if _, err := dec.Token(); err != nil {
		return nil, syntaxError(err, dec.InputOffset())
	}
	return fields, nil
}

// expectEOF checks that nothing but white space follows the object.
func expectEOF(dec *json.Decoder) error {
	off := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("unexpected data after the command object at offset %d: a command is exactly one JSON object", off)
	}
	return nil
}

// syntaxError turns an encoding/json error into a sentence. The offset is
// encoding/json's: the number of bytes read when the error was found.
// DecodeCommand checks the syntax of the whole input first, so the other
// passes only see syntax errors if encoding/json changes.
func syntaxError(err error, offset int64) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("command is not valid JSON at offset %d: %s", se.Offset, se.Error())
	}
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("command is not valid JSON at offset %d: unexpected end of input", offset)
	}
	return fmt.Errorf("command is not valid JSON: %v", err)
}

// commandSchema finds the command kind named by the "type" member.
func commandSchema(fields []rawField) (*cmdSchema, error) {
	for _, f := range fields {
		if f.name != "type" {
			continue
		}
		var kind string
		if err := decodeValue(f.value, "type", reflect.ValueOf(&kind).Elem()); err != nil {
			return nil, fmt.Errorf("command %v", err)
		}
		s := schemaByKind[kind]
		if s == nil {
			return nil, fmt.Errorf("unknown command type %s; valid types are %s", quoteShort(kind), kindList)
		}
		return s, nil
	}
	return nil, fmt.Errorf(`command has no "type" member; valid types are %s`, kindList)
}

// decode builds the command from its members ("type" already checked).
func (s *cmdSchema) decode(fields []rawField) (Command, error) {
	v := reflect.New(s.typ).Elem()
	for _, f := range fields {
		if f.name == "type" {
			continue
		}
		fd := s.field(f.name)
		if fd == nil {
			return nil, fmt.Errorf("%s: unknown member %s (members are type, %s)", s.kind, quoteShort(f.name), s.fieldNames())
		}
		if err := decodeValue(f.value, fd.name, v.Field(fd.index)); err != nil {
			return nil, fmt.Errorf("%s: %v", s.kind, err)
		}
	}
	return v.Interface().(Command), nil
}

// decodeValue decodes one member's JSON into dst by dst's Go type.
func decodeValue(raw json.RawMessage, path string, dst reflect.Value) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return decodeNext(dec, path, dst)
}

// decodeNext decodes the decoder's next value into dst.
func decodeNext(dec *json.Decoder, path string, dst reflect.Value) error {
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("field %s: %v", quoteShort(path), syntaxError(err, dec.InputOffset()))
	}
	if err := decodeToken(dec, tok, path, dst); err != nil {
		return err
	}
	return nil
}

// decodeToken decodes a value that starts with tok into dst.
func decodeToken(dec *json.Decoder, tok json.Token, path string, dst reflect.Value) error {
	if tok == nil && nullable(dst.Type()) {
		dst.SetZero()
		return nil
	}
	switch dst.Kind() {
	case reflect.String:
		return decodeString(tok, path, dst)
	case reflect.Int, reflect.Int64:
		return decodeInt(tok, path, dst)
	case reflect.Pointer:
		if !tokenFits(tok, dst.Type().Elem().Kind()) {
			return wrongType(path, dst.Type(), tok)
		}
		dst.Set(reflect.New(dst.Type().Elem()))
		return decodeToken(dec, tok, path, dst.Elem())
	case reflect.Slice:
		return decodeList(dec, tok, path, dst)
	case reflect.Map:
		return decodeMap(dec, tok, path, dst)
	}
	return fmt.Errorf("field %s has an unsupported Go type %s", quoteShort(path), dst.Type())
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
		return k == reflect.Int || k == reflect.Int64
	}
	return (tok == json.Delim('[') && k == reflect.Slice) || (tok == json.Delim('{') && k == reflect.Map)
}

// wrongType is the error for a JSON value of the wrong type.
func wrongType(path string, want reflect.Type, tok json.Token) error {
	return fmt.Errorf("field %s must be %s, not %s", quoteShort(path), describeType(want), describeToken(tok))
}

// decodeString decodes a JSON string token into dst.
func decodeString(tok json.Token, path string, dst reflect.Value) error {
	s, ok := tok.(string)
	if !ok {
		return wrongType(path, dst.Type(), tok)
	}
	if len(s) > MaxCommandString {
		return fmt.Errorf("field %s is %d bytes long, more than the limit of %d", quoteShort(path), len(s), MaxCommandString)
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
		return fmt.Errorf("field %s: %s is out of range for a %d-bit integer", quoteShort(path), shorten(string(n)), dst.Type().Bits())
	}
	if err != nil {
		return fmt.Errorf("field %s must be an integer without fraction or exponent, not %s", quoteShort(path), shorten(string(n)))
	}
	dst.SetInt(i)
	return nil
}

// decodeList decodes a JSON list starting at tok into slice dst.
func decodeList(dec *json.Decoder, tok json.Token, path string, dst reflect.Value) error {
	if tok != json.Delim('[') {
		return wrongType(path, dst.Type(), tok)
	}
	list := reflect.MakeSlice(dst.Type(), 0, 0)
	for dec.More() {
		if list.Len() >= MaxCommandItems {
			return tooMany(path, "items")
		}
		list = reflect.Append(list, reflect.Zero(dst.Type().Elem()))
		at := fmt.Sprintf("%s[%d]", path, list.Len()-1)
		if err := decodeNext(dec, at, list.Index(list.Len()-1)); err != nil {
			return err
		}
	}
	if list.Len() > 0 {
		dst.Set(list)
	} else {
		dst.SetZero()
	}
	return closeDelim(dec, path)
}

// decodeMap decodes a JSON object starting at tok into map dst.
func decodeMap(dec *json.Decoder, tok json.Token, path string, dst reflect.Value) error {
	if tok != json.Delim('{') {
		return wrongType(path, dst.Type(), tok)
	}
	m := reflect.MakeMap(dst.Type())
	for dec.More() {
		if m.Len() >= MaxCommandItems {
			return tooMany(path, "keys")
		}
		if err := decodeEntry(dec, path, m); err != nil {
			return err
		}
	}
	if m.Len() > 0 {
		dst.Set(m)
	} else {
		dst.SetZero()
	}
	return closeDelim(dec, path)
}

// decodeEntry decodes one key and value of a JSON object into map m.
func decodeEntry(dec *json.Decoder, path string, m reflect.Value) error {
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("field %s: %v", quoteShort(path), syntaxError(err, dec.InputOffset()))
	}
	key, _ := tok.(string)
	at := path + "." + key
	if len(key) > MaxCommandString {
		return fmt.Errorf("field %s has a key of %d bytes, more than the limit of %d", quoteShort(path), len(key), MaxCommandString)
	}
	k := reflect.ValueOf(key)
	if m.MapIndex(k).IsValid() {
		return fmt.Errorf("field %s has key %s twice", quoteShort(path), quoteShort(key))
	}
	val := reflect.New(m.Type().Elem()).Elem()
	if err := decodeNext(dec, at, val); err != nil {
		return err
	}
	m.SetMapIndex(k, val)
	return nil
}

// closeDelim reads the ']' or '}' that ends a list or object.
func closeDelim(dec *json.Decoder, path string) error {
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("field %s: %v", quoteShort(path), syntaxError(err, dec.InputOffset()))
	}
	return nil
}

// tooMany is the error for a list or object past MaxCommandItems.
func tooMany(path, what string) error {
	return fmt.Errorf("field %s has more than %d %s (the limit)", quoteShort(path), MaxCommandItems, what)
}

// describeType names the JSON shape of Go type t, e.g. "a list of integers".
func describeType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int64:
		return "an integer"
	case reflect.Pointer:
		return describeType(t.Elem()) + " or null"
	case reflect.Slice:
		return "a list of " + plural(t.Elem())
	case reflect.Map:
		return "an object with " + plural(t.Elem()) + " as values"
	}
	return t.String()
}

// plural names the JSON shape of t in the plural, e.g. "lists of strings".
func plural(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "strings"
	case reflect.Int, reflect.Int64:
		return "integers"
	case reflect.Slice:
		return "lists of " + plural(t.Elem())
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

// quoteShort quotes s for an error message, cut if long.
func quoteShort(s string) string {
	return strconv.Quote(shorten(s))
}

// EncodeCommand encodes cmd as DecodeCommand reads it: one JSON object with
// "type" first, then the fields by their JSON names (fields tagged
// omitempty are left out when empty; map keys are sorted). A pointer to a
// command is encoded as the command. It fails on a nil command, on a type
// that is not one of the commands, and on anything DecodeCommand would
// reject: strings that are not valid UTF-8 or longer than MaxCommandString,
// lists or maps of more than MaxCommandItems, or output longer than
// MaxCommandBytes. DecodeCommand(EncodeCommand(c)) equals c, except that
// empty lists and maps come back nil.
func EncodeCommand(cmd Command) ([]byte, error) {
	v, s, err := commandValue(cmd)
	if err != nil {
		return nil, err
	}
	if err := checkEncodable(v, ""); err != nil {
		return nil, fmt.Errorf("cannot encode %s: %v", s.kind, err)
	}
	body, err := marshalNoEscape(v.Interface())
	if err != nil {
		return nil, fmt.Errorf("cannot encode %s: %v", s.kind, err)
	}
	out := withType(s.kind, body)
	if len(out) > MaxCommandBytes {
		return nil, fmt.Errorf("cannot encode %s: it is %d bytes as JSON, more than the limit of %d", s.kind, len(out), MaxCommandBytes)
	}
	return out, nil
}

// commandValue returns the struct value of cmd and its schema.
func commandValue(cmd Command) (reflect.Value, *cmdSchema, error) {
	if cmd == nil {
		return reflect.Value{}, nil, fmt.Errorf("cannot encode a nil command")
	}
	v := reflect.ValueOf(cmd)
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return reflect.Value{}, nil, fmt.Errorf("cannot encode a nil %T", cmd)
		}
		v = v.Elem()
	}
	s := schemaByType[v.Type()]
	if s == nil {
		return reflect.Value{}, nil, fmt.Errorf("cannot encode %T: not a command type", cmd)
	}
	return v, s, nil
}

// checkEncodable applies DecodeCommand's limits to a Go value.
func checkEncodable(v reflect.Value, path string) error {
	switch v.Kind() {
	case reflect.String:
		return checkString(v.String(), path)
	case reflect.Pointer:
		if !v.IsNil() {
			return checkEncodable(v.Elem(), path)
		}
	case reflect.Struct:
		return checkStruct(v)
	case reflect.Slice:
		return checkSlice(v, path)
	case reflect.Map:
		return checkMap(v, path)
	}
	return nil
}

// checkStruct checks each JSON field of a command struct.
func checkStruct(v reflect.Value) error {
	for _, f := range schemaByType[v.Type()].fields {
		if err := checkEncodable(v.Field(f.index), f.name); err != nil {
			return err
		}
	}
	return nil
}

// checkString checks that s is valid UTF-8 and not too long.
func checkString(s, path string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("field %s is not valid UTF-8", quoteShort(path))
	}
	if len(s) > MaxCommandString {
		return fmt.Errorf("field %s is %d bytes long, more than the limit of %d", quoteShort(path), len(s), MaxCommandString)
	}
	return nil
}

// checkSlice checks a list's length and its items.
func checkSlice(v reflect.Value, path string) error {
	if v.Len() > MaxCommandItems {
		return tooMany(path, "items")
	}
	for i := 0; i < v.Len(); i++ {
		if err := checkEncodable(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
			return err
		}
	}
	return nil
}

// checkMap checks an object's size, keys and values.
func checkMap(v reflect.Value, path string) error {
	if v.Len() > MaxCommandItems {
		return tooMany(path, "keys")
	}
	iter := v.MapRange()
	for iter.Next() {
		k := iter.Key().String()
		if err := checkString(k, path+" key"); err != nil {
			return err
		}
		if err := checkEncodable(iter.Value(), path+"."+k); err != nil {
			return err
		}
	}
	return nil
}

// marshalNoEscape is json.Marshal without HTML escaping or a newline.
func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// withType puts "type":kind first into the JSON object body.
func withType(kind string, body []byte) []byte {
	out := fmt.Appendf(nil, `{"type":%q`, kind)
	rest := body[1:] // body is {...}
	if len(rest) > 1 {
		out = append(out, ',')
	}
	return append(out, rest...)
}
