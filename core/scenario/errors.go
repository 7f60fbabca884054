package scenario

import (
	"fmt"

	"github.com/kafkasim/kafkasim/core"
)

// Limits on what Parse and ParseLine accept; input beyond them is an *Error.
const (
	MaxLineBytes   = 64 << 10        // bytes in one line, without its line ending
	MaxScriptBytes = 16 << 20        // bytes in one script
	MaxLines       = 1_000_000       // lines in one script
	MaxBrokers     = core.MaxBrokers // highest broker id and largest cluster
)

// Internal bounds on values; the core applies its own limits too.
const (
	maxInt32    = 1<<31 - 1
	maxInt64    = 1<<63 - 1
	maxCount    = 1_000_000                 // records one produce line may send
	maxDuration = 365 * 24 * 60 * 60 * 1000 // ms: one year
	maxNameLen  = 249                       // Kafka's topic name limit, used for every name
)

// Error is a malformed scenario line. Line and Col are 1-based; Col counts
// characters (Unicode code points; a tab is one) and points at the offending
// word. Callers may prefix a file name: fmt.Sprintf("%s:%v", file, err).
type Error struct {
	Line int
	Col  int
	Msg  string
}

// Error formats the error as LINE:COL: message.
func (e *Error) Error() string {
	return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg)
}
