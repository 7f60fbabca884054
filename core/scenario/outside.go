package scenario

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"

	"github.com/kafkasim/kafkasim/core"
)

// outsideVerb is the verb of an outside client's command: `outside` then
// one JSON object in the core's command codec (core.DecodeCommand), e.g.
//
//	outside {"type":"conn_open","conn":"kafka-1","host":"kclient@127.0.0.1:50412","broker":1}
//	outside {"type":"request","conn":"kafka-1","correlation":3,"label":"Produce v9 franz-go/1.22.3","produce":{...}}
//
// kafkasim serve's room writes one in its history for every connection
// and request of a real Kafka client (server/kafka), so that a replay (a
// page following the room, an exported .ksim, `kafkasim run`) applies the
// same typed request at the same virtual time and the deterministic core
// does the same thing; the replies go nowhere.
const outsideVerb = "outside"

// isOutsideLine reports whether line (comment not yet cut) is an
// `outside` line: its JSON is taken whole, so a '#' or a quote inside a
// JSON string is not a comment's start.
func isOutsideLine(line string) bool {
	if r := duringRest(line); r != "" {
		line = r
	}
	rest, ok := strings.CutPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), outsideVerb)
	return ok && (rest == "" || unicode.IsSpace(rune(rest[0])))
}

// MaxOutsideLineBytes bounds an `outside` line: a real client's request
// may be as large as Kafka lets it be (core.MaxOutsideCommandBytes), more
// than the MaxLineBytes of every other line.
const MaxOutsideLineBytes = core.MaxOutsideCommandBytes + 64

// maxLine is the longest line may be.
func maxLine(line string) int {
	if len(line) > MaxLineBytes && isOutsideLine(line) {
		return MaxOutsideLineBytes
	}
	return MaxLineBytes
}

// outsideBytes is the word after `outside` saying that every string of
// the JSON stands for bytes, one character U+0000-U+00FF each (a real
// client's key, value or header that is not UTF-8).
const outsideBytes = "bytes"

// parseOutside parses `outside [bytes] {JSON}` into an OpenConn,
// CloseConn or BrokerRequest. The JSON is strict (core.DecodeCommand's
// rules, within core.MaxOutsideCommandBytes) and must be the rest of the
// line: no comment follows it.
func parseOutside(p *lineParser, st *Step) error {
	u := usage[outsideVerb]
	start := p.words[0].end()
	bytes := len(p.words) > 1 && p.words[1].s == outsideBytes
	if bytes {
		start = p.words[1].end()
	}
	raw := strings.TrimSpace(p.line[start:])
	at := word{s: raw, off: start + strings.Index(p.line[start:], raw)}
	if raw == "" {
		return p.errAt(word{off: start}, "outside needs a command as JSON: %s", u)
	}
	cmd, err := core.DecodeOutsideCommand([]byte(raw), bytes)
	if err != nil {
		return p.errAt(at, "outside: %v", err)
	}
	st.Cmd = cmd
	return nil
}

// formatOutside writes an outside client's command as an `outside` line
// (`outside bytes` when a string of it is not UTF-8).
//
// A Produce request whose records alone are past the limit as JSON
// (core.MinOutsideJSON) fails before it is encoded: a served room formats
// every request a real client sends for its history on its one
// goroutine, and writing 2 MB of JSON to throw it away held up the whole
// simulation for 7.5-60 ms.
func formatOutside(cmd core.Command) (string, error) {
	if n := core.MinOutsideJSON(cmd); n > core.MaxOutsideCommandBytes {
		return "", fmt.Errorf("format: cannot encode %s: its records alone are at least %d bytes as JSON, more than the limit of %d", cmd.Kind(), n, core.MaxOutsideCommandBytes)
	}
	b, bytes, err := core.EncodeOutsideCommand(cmd)
	if err != nil {
		return "", fmt.Errorf("format: %v", err)
	}
	verb := outsideVerb + " "
	if bytes {
		verb += outsideBytes + " "
	}
	var line string
	if hasRawControls(b) {
		line = verb + escapeControls(b)
	} else {
		// The usual case: the line is the verb and the JSON, copied once.
		var sb strings.Builder
		sb.Grow(len(verb) + len(b))
		sb.WriteString(verb)
		sb.Write(b)
		line = sb.String()
	}
	if len(line) > MaxOutsideLineBytes {
		return "", fmt.Errorf("format: %s is %d bytes as a line, more than %d", cmd.Kind(), len(line), MaxOutsideLineBytes)
	}
	return line, nil
}

// hasRawControls reports whether the encoder's JSON b (valid UTF-8,
// controls below U+0020 escaped: encoding/json and core's fast encoder
// write no other) holds a character escapeControls rewrites: DEL or one
// of U+0080-U+009F (0xC2 0x80 to 0xC2 0x9F in UTF-8). Two searches of
// a byte each, instead of escapeControls' rune by rune copy.
func hasRawControls(b []byte) bool {
	if bytes.IndexByte(b, 0x7F) >= 0 {
		return true
	}
	for i := 0; ; i++ {
		j := bytes.IndexByte(b[i:], 0xC2)
		if j < 0 {
			return false
		}
		i += j
		if i+1 < len(b) && b[i+1] >= 0x80 && b[i+1] <= 0x9F {
			return true
		}
	}
}

// escapeControls writes the JSON's control characters the encoder left
// as they are (DEL and U+0080-U+009F, which a scenario line may not hold)
// as \u escapes. They can only be inside strings: JSON's structure is
// ASCII.
func escapeControls(b []byte) string {
	var sb strings.Builder
	sb.Grow(len(b))
	for _, r := range string(b) {
		if unicode.IsControl(r) && r != '\t' {
			fmt.Fprintf(&sb, "\\u%04x", r)
			continue
		}
		sb.WriteRune(r)
	}
	return sb.String()
}
