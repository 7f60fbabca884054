package scenario

import (
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/log"
)

// formatOutsideAsBefore is formatOutside as it was before hasRawControls:
// every line through escapeControls.
func formatOutsideAsBefore(t *testing.T, cmd core.Command) string {
	b, bytes, err := core.EncodeOutsideCommand(cmd)
	if err != nil {
		t.Fatal(err)
	}
	verb := outsideVerb + " "
	if bytes {
		verb += outsideBytes + " "
	}
	return verb + escapeControls(b)
}

// sameOutsideLine checks formatOutside against escapeControls on every
// line for a Produce request of records with key and value s.
func sameOutsideLine(t *testing.T, s string) {
	t.Helper()
	cmd := core.BrokerRequest{Conn: s, Correlation: 1, Label: s, Produce: &core.ProduceRequest{Acks: -1,
		Partitions: []core.ProducePartition{{Topic: "t", Records: []log.Record{{Key: s, Value: s + "x", Headers: []log.Header{{Key: s, Value: s}}}, {Value: s}}}}}}
	got, err := formatOutside(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if want := formatOutsideAsBefore(t, cmd); got != want {
		t.Fatalf("formatOutside writes\n  %q\nescapeControls\n  %q", got, want)
	}
}

// TestOutsideLineControls: a line holding DEL or a C1 control (in a
// UTF-8 value or as a byte of an `outside bytes` one) is escaped as
// before, and one without is the JSON as it is.
func TestOutsideLineControls(t *testing.T) {
	for _, s := range []string{"", "plain", "\x7f", "a\u0080b", "\u009f", "\u00a0\u00c2", "\xc2", "\xc2\x85", "\xc2\x7f", "\x85\xc2", "é中\u2028",
		"\xff\xc2", "\x00\t\n", strings.Repeat("\xc2", 100), strings.Repeat("v", 100) + "\u0085"} {
		sameOutsideLine(t, s)
	}
	line, err := formatOutside(core.CloseConn{Conn: "a\u0085"})
	if err != nil || line != `outside {"type":"conn_close","conn":"a\u0085"}` {
		t.Fatalf("got %s, %v", line, err)
	}
}

// FuzzOutsideLine: formatOutside writes what escapeControls did.
func FuzzOutsideLine(f *testing.F) {
	for _, s := range []string{"", "\x7f", "\u0085", "\xc2\x85", "é", "\xc2"} {
		f.Add(s)
	}
	f.Fuzz(sameOutsideLine)
}
