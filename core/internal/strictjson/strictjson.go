// Package strictjson decodes small JSON documents strictly into Go values
// by their Go types, with a limit on everything, and checks Go values
// against the same limits before they are encoded. Every failure is an
// error sentence naming the field, never a panic: the input is one JSON
// object of valid UTF-8 (no byte order mark), members and map keys appear
// once, member names are case-sensitive, integers are integer literals in
// the field's range, null only stands for an absent pointer, list or map,
// and no list, map or string is larger than its limit.
//
// It holds what core's command codec (core/cmdjson.go) needs beyond the
// commands themselves, so that other small strict JSON messages can use it.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// Limits bound a document.
type Limits struct {
	Bytes  int    // the whole document
	Items  int    // items in one list or keys in one object
	String int    // bytes in one string (after unescaping) or map key
	Name   string // what the document is called in errors ("command")
}

// Member is one member of a JSON object, in input order.
type Member struct {
	Name  string
	Value json.RawMessage
}

// Object checks that data is exactly one JSON object within lim, with no
// member given twice, and returns its members in order.
func Object(data []byte, lim Limits) ([]Member, error) {
	what := lim.Name
	if len(data) > lim.Bytes {
		return nil, fmt.Errorf("%s is %d bytes, more than the limit of %d", what, len(data), lim.Bytes)
	}
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("%s is not valid UTF-8 (at byte %d)", what, invalidUTF8At(data))
	}
	if bytes.HasPrefix(data, []byte("\uFEFF")) {
		return nil, fmt.Errorf("%s starts with a byte order mark (U+FEFF); send plain JSON", what)
	}
	if err := checkSyntax(data, what); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, syntaxError(err, what, dec.InputOffset())
	}
	if tok != json.Delim('{') {
		return nil, fmt.Errorf("%s must be a JSON object, not %s", what, describeToken(tok))
	}
	members, err := readMembers(dec, what)
	if err != nil {
		return nil, err
	}
	off := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("unexpected data after the %s object at offset %d: a %s is exactly one JSON object", what, off, what)
	}
	return members, nil
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
func checkSyntax(data []byte, what string) error {
	var whole json.RawMessage
	err := json.Unmarshal(data, &whole)
	if err == nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if dec.Decode(&whole) == nil {
		end := dec.InputOffset()
		end += int64(len(data[end:]) - len(bytes.TrimLeft(data[end:], " \t\r\n")))
		return fmt.Errorf("unexpected data after the first JSON value at offset %d: a %s is exactly one JSON object", end, what)
	}
	return syntaxError(err, what, 0)
}

// readMembers reads the members of an object whose '{' was read, and its '}'.
func readMembers(dec *json.Decoder, what string) ([]Member, error) {
	var members []Member
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, syntaxError(err, what, dec.InputOffset())
		}
		name, _ := tok.(string)
		if seen[name] {
			return nil, fmt.Errorf("member %s is given twice", Quote(name))
		}
		seen[name] = true
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, syntaxError(err, what, dec.InputOffset())
		}
		members = append(members, Member{name, raw})
	}
	if _, err := dec.Token(); err != nil {
		return nil, syntaxError(err, what, dec.InputOffset())
	}
	return members, nil
}

// syntaxError turns an encoding/json error into a sentence. The offset is
// encoding/json's: the number of bytes read when the error was found.
// Object checks the syntax of the whole input first, so the later passes
// only see syntax errors if encoding/json changes.
func syntaxError(err error, what string, offset int64) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("%s is not valid JSON at offset %d: %s", what, se.Offset, se.Error())
	}
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%s is not valid JSON at offset %d: unexpected end of input", what, offset)
	}
	return fmt.Errorf("%s is not valid JSON: %v", what, err)
}

// Marshal is json.Marshal without HTML escaping or a trailing newline.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
