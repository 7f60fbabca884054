package core

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/kafkasim/kafkasim/core/internal/strictjson"
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
	CreateTopic{}, AlterTopic{}, AlterTopicConfigs{}, ElectLeaders{}, DeleteRecords{}, DeleteTopic{}, Set{}, NewProducer{}, Produce{}, NewConsumer{},
	Assign{}, Poll{}, Commit{}, CloseConsumer{}, CrashConsumer{}, CrashBroker{},
	PowerOff{}, Restart{}, Pause{}, Resume{}, NetSplit{}, NetHeal{}, NetDelay{},
	NetDrop{}, Wait{}, Settle{},
	OpenConn{}, CloseConn{}, BrokerRequest{}, // command_conn.go
}

// limits are the codec's limits for strictjson.
var limits = strictjson.Limits{Bytes: MaxCommandBytes, Items: MaxCommandItems, String: MaxCommandString, Name: "command"}

// cmdSchema describes one command kind.
type cmdSchema struct {
	kind   string
	typ    reflect.Type
	fields []strictjson.Field
}

// field returns the field called name (case-sensitive), or nil.
func (s *cmdSchema) field(name string) *strictjson.Field {
	for i := range s.fields {
		if s.fields[i].Name == name {
			return &s.fields[i]
		}
	}
	return nil
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
		t := reflect.TypeOf(c)
		s := &cmdSchema{kind: c.Kind(), typ: t, fields: strictjson.Fields(t)}
		schemaByKind[s.kind] = s
		schemaByType[s.typ] = s
		kinds = append(kinds, s.kind)
	}
	slices.Sort(kinds)
	kindList = strings.Join(kinds, ", ")
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
func DecodeCommand(data []byte) (Command, error) { return decodeCommand(data, limits) }

// decodeCommand is DecodeCommand within lim.
func decodeCommand(data []byte, lim strictjson.Limits) (Command, error) {
	if cmd, ok := fastDecode(data, lim); ok {
		return cmd, nil
	}
	return decodeExact(data, lim)
}

// decodeExact is decodeCommand without the fast path (cmdjson_fast.go).
func decodeExact(data []byte, lim strictjson.Limits) (Command, error) {
	members, err := strictjson.Object(data, lim)
	if err != nil {
		return nil, err
	}
	s, err := commandSchema(members)
	if err != nil {
		return nil, err
	}
	return s.decode(members, lim)
}

// commandSchema finds the command kind named by the "type" member.
func commandSchema(members []strictjson.Member) (*cmdSchema, error) {
	for _, m := range members {
		if m.Name != "type" {
			continue
		}
		var kind string
		if err := strictjson.Decode(m.Value, "type", reflect.ValueOf(&kind).Elem(), limits); err != nil {
			return nil, fmt.Errorf("command %v", err)
		}
		s := schemaByKind[kind]
		if s == nil {
			return nil, fmt.Errorf("unknown command type %s; valid types are %s", strictjson.Quote(kind), kindList)
		}
		return s, nil
	}
	return nil, fmt.Errorf(`command has no "type" member; valid types are %s`, kindList)
}

// decode builds the command from its members ("type" already checked).
func (s *cmdSchema) decode(members []strictjson.Member, lim strictjson.Limits) (Command, error) {
	v := reflect.New(s.typ).Elem()
	for _, m := range members {
		if m.Name == "type" {
			continue
		}
		fd := s.field(m.Name)
		if fd == nil {
			return nil, fmt.Errorf("%s: unknown member %s (members are type, %s)", s.kind, strictjson.Quote(m.Name), strictjson.FieldNames(s.fields))
		}
		if err := strictjson.Decode(m.Value, fd.Name, v.Field(fd.Index), lim); err != nil {
			return nil, fmt.Errorf("%s: %v", s.kind, err)
		}
	}
	return v.Interface().(Command), nil
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
func EncodeCommand(cmd Command) ([]byte, error) { return encodeCommand(cmd, limits) }

// encodeCommand is EncodeCommand within lim.
func encodeCommand(cmd Command, lim strictjson.Limits) ([]byte, error) {
	v, s, err := commandValue(withRecords(cmd))
	if err != nil {
		return nil, err
	}
	if err := strictjson.Check(v, "", lim); err != nil {
		return nil, fmt.Errorf("cannot encode %s: %v", s.kind, err)
	}
	body, err := strictjson.Marshal(v.Interface())
	if err != nil {
		return nil, fmt.Errorf("cannot encode %s: %v", s.kind, err)
	}
	out := withType(s.kind, body)
	if len(out) > lim.Bytes {
		return nil, fmt.Errorf("cannot encode %s: it is %d bytes as JSON, more than the limit of %d", s.kind, len(out), lim.Bytes)
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

// withType puts "type":kind first into the JSON object body.
func withType(kind string, body []byte) []byte {
	out := fmt.Appendf(nil, `{"type":%q`, kind)
	rest := body[1:] // body is {...}
	if len(rest) > 1 {
		out = append(out, ',')
	}
	return append(out, rest...)
}
