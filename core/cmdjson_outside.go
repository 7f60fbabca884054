package core

import (
	"fmt"
	"reflect"
	"unicode/utf8"

	"github.com/kafkasim/kafkasim/core/internal/strictjson"
)

// Limits of an outside client's command in its history form (the
// scenario's `outside` line): a real client's request is as large as
// Kafka lets it be, a produce request of a 1 MB batch (max.request.size,
// message.max.bytes) of small records included.
const (
	MaxOutsideCommandBytes = 1 << 20
	MaxOutsideCommandItems = 200_000
)

var outsideLimits = strictjson.Limits{Bytes: MaxOutsideCommandBytes, Items: MaxOutsideCommandItems, String: MaxOutsideCommandBytes, Name: "command"}

// IsOutsideCommand reports whether cmd is an outside client's command
// (OpenConn, CloseConn, BrokerRequest; command_conn.go).
func IsOutsideCommand(cmd Command) bool {
	switch cmd.(type) {
	case OpenConn, *OpenConn, CloseConn, *CloseConn, BrokerRequest, *BrokerRequest:
		return true
	}
	return false
}

// EncodeOutsideCommand encodes an outside client's command as
// EncodeCommand does, within the outside limits. A real client's bytes
// need not be UTF-8 (a protobuf or Avro value): when some string of cmd
// is not, every string is written byte by byte as the characters U+0000
// to U+00FF (Latin-1) and bytes is true; DecodeOutsideCommand with bytes
// true reads it back exactly.
func EncodeOutsideCommand(cmd Command) (data []byte, bytes bool, err error) {
	if !IsOutsideCommand(cmd) {
		return nil, false, fmt.Errorf("cannot encode %T as an outside client's command", cmd)
	}
	if data, bytes, ok, err := fastEncodeOutside(cmd, outsideLimits); ok {
		return data, bytes, err // the same, without reflection (cmdjson_outside_fast.go)
	}
	return encodeOutsideExact(cmd, outsideLimits)
}

// encodeOutsideExact is EncodeOutsideCommand without the fast path,
// within lim.
func encodeOutsideExact(cmd Command, lim strictjson.Limits) (data []byte, bytes bool, err error) {
	cmd = withRecords(cmd)
	v := reflect.ValueOf(cmd)
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil, false, fmt.Errorf("cannot encode a nil %T", cmd)
		}
		v = v.Elem()
	}
	if anyString(v, func(s string) bool { return !utf8.ValidString(s) }) {
		bytes = true
		m, err := mapStrings(v, func(s string) (string, error) { return toLatin1(s), nil })
		if err != nil {
			return nil, false, err
		}
		cmd = m.Interface().(Command)
	}
	data, err = encodeCommand(cmd, lim)
	return data, bytes, err
}

// DecodeOutsideCommand decodes what EncodeOutsideCommand wrote (bytes as
// it said): strictly, as DecodeCommand, within the outside limits, and
// only an outside client's command.
func DecodeOutsideCommand(data []byte, bytes bool) (Command, error) {
	cmd, err := decodeCommand(data, outsideLimits)
	if err != nil {
		return nil, err
	}
	if !IsOutsideCommand(cmd) {
		return nil, fmt.Errorf("%s is not an outside client's command (conn_open, conn_close, request): write it with its own verb", cmd.Kind())
	}
	if !bytes {
		return cmd, nil
	}
	m, err := mapStrings(reflect.ValueOf(cmd), fromLatin1)
	if err != nil {
		return nil, err
	}
	return m.Interface().(Command), nil
}

func toLatin1(s string) string {
	r := make([]rune, len(s))
	for i := 0; i < len(s); i++ {
		r[i] = rune(s[i])
	}
	return string(r)
}

func fromLatin1(s string) (string, error) {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		if r > 0xFF {
			return "", fmt.Errorf("character %U in a command written as bytes: only U+0000 to U+00FF stand for bytes", r)
		}
		b = append(b, byte(r))
	}
	return string(b), nil
}

// anyString reports whether some string inside v satisfies f.
func anyString(v reflect.Value, f func(string) bool) bool {
	switch v.Kind() {
	case reflect.String:
		return f(v.String())
	case reflect.Pointer, reflect.Interface:
		return !v.IsNil() && anyString(v.Elem(), f)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() && anyString(v.Field(i), f) {
				return true
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			if anyString(v.Index(i), f) {
				return true
			}
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			if anyString(it.Key(), f) || anyString(it.Value(), f) {
				return true
			}
		}
	}
	return false
}

// mapStrings returns a deep copy of v with every string s replaced by
// f(s) (exported fields only, as the codec sees them).
func mapStrings(v reflect.Value, f func(string) (string, error)) (reflect.Value, error) {
	out := reflect.New(v.Type()).Elem()
	switch v.Kind() {
	case reflect.String:
		s, err := f(v.String())
		if err != nil {
			return out, err
		}
		out.SetString(s)
	case reflect.Pointer:
		if v.IsNil() {
			return out, nil
		}
		e, err := mapStrings(v.Elem(), f)
		if err != nil {
			return out, err
		}
		p := reflect.New(v.Type().Elem())
		p.Elem().Set(e)
		out.Set(p)
	case reflect.Struct:
		out.Set(v)
		for i := 0; i < v.NumField(); i++ {
			if !v.Type().Field(i).IsExported() {
				continue
			}
			e, err := mapStrings(v.Field(i), f)
			if err != nil {
				return out, err
			}
			out.Field(i).Set(e)
		}
	case reflect.Slice:
		if v.IsNil() {
			return out, nil
		}
		out.Set(reflect.MakeSlice(v.Type(), v.Len(), v.Len()))
		for i := 0; i < v.Len(); i++ {
			e, err := mapStrings(v.Index(i), f)
			if err != nil {
				return out, err
			}
			out.Index(i).Set(e)
		}
	case reflect.Map:
		if v.IsNil() {
			return out, nil
		}
		out.Set(reflect.MakeMapWithSize(v.Type(), v.Len()))
		it := v.MapRange()
		for it.Next() {
			k, err := mapStrings(it.Key(), f)
			if err != nil {
				return out, err
			}
			e, err := mapStrings(it.Value(), f)
			if err != nil {
				return out, err
			}
			out.SetMapIndex(k, e)
		}
	default:
		out.Set(v)
	}
	return out, nil
}
