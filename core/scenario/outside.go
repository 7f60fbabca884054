package scenario

import (
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

// outsideKinds are the commands `outside` carries: those of clients the
// core does not simulate (core/command_conn.go). Every other command has
// a verb of its own.
var outsideKinds = []string{core.OpenConn{}.Kind(), core.CloseConn{}.Kind(), core.BrokerRequest{}.Kind()}

// isOutsideLine reports whether line (comment not yet cut) is an
// `outside` line: its JSON is taken whole, so a '#' or a quote inside a
// JSON string is not a comment's start.
func isOutsideLine(line string) bool {
	rest, ok := strings.CutPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), outsideVerb)
	return ok && (rest == "" || unicode.IsSpace(rune(rest[0])))
}

// parseOutside parses `outside {JSON}` into an OpenConn, CloseConn or
// BrokerRequest. The JSON is strict (core.DecodeCommand's rules) and must
// be the rest of the line: no comment follows it.
func parseOutside(p *lineParser, st *Step) error {
	u := usage[outsideVerb]
	start := strings.Index(p.line, outsideVerb) + len(outsideVerb)
	raw := strings.TrimSpace(p.line[start:])
	at := word{s: raw, off: start + strings.Index(p.line[start:], raw)}
	if raw == "" {
		return p.errAt(word{off: start}, "outside needs a command as JSON: %s", u)
	}
	cmd, err := core.DecodeCommand([]byte(raw))
	if err != nil {
		return p.errAt(at, "outside: %v", err)
	}
	switch cmd.(type) {
	case core.OpenConn, core.CloseConn, core.BrokerRequest:
	default:
		return p.errAt(at, "outside carries an outside client's command (%s), not %s: write it with its own verb", strings.Join(outsideKinds, ", "), cmd.Kind())
	}
	st.Cmd = cmd
	return nil
}

// formatOutside writes an outside client's command as an `outside` line.
func formatOutside(cmd core.Command) (string, error) {
	b, err := core.EncodeCommand(cmd)
	if err != nil {
		return "", fmt.Errorf("format: %v", err)
	}
	line := outsideVerb + " " + string(b)
	if len(line) > MaxLineBytes {
		return "", fmt.Errorf("format: %s is %d bytes as a line, more than %d", cmd.Kind(), len(line), MaxLineBytes)
	}
	return line, nil
}
