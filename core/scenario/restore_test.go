package scenario

import (
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core"
)

// TestRestoreLine: a restore part is written as one line and read back
// as the same command; bad lines say what is wrong.
func TestRestoreLine(t *testing.T) {
	x := core.RestoreChunk{Part: 2, Of: 3, Data: "q83v+/A="}
	line, err := FormatCommand(x)
	if err != nil || line != "restore 2/3 q83v+/A=" {
		t.Fatalf("%q, %v", line, err)
	}
	st, err := ParseLine(line, 1)
	if err != nil || st.Cmd != x {
		t.Fatalf("%+v, %v", st, err)
	}
	for _, tc := range []struct{ line, want string }{
		{"restore", "missing PART/OF"},
		{"restore 2 AA", "want PART/OF"},
		{"restore 0/3 AA", "bad part"},
		{"restore 3/2 AA", "bad part count"},
		{"restore 1/2", "missing DATA"},
		{"restore 1/2 AA BB", `unexpected "BB"`},
		{"restore 1/1 " + strings.Repeat("A", core.MaxRestoreChunkBytes+1), "at most"},
	} {
		if _, err := ParseLine(tc.line, 1); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.40q: %v, want %q", tc.line, err, tc.want)
		}
	}
}
