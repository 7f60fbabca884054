package room

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/scenario"
	"github.com/kafkasim/kafkasim/server/protocol"
)

// ErrHistoryFull is the error for a command past the history's limits.
type ErrHistoryFull struct{ N, Bytes int }

func (e *ErrHistoryFull) Error() string {
	return fmt.Sprintf("the room's history is full (%d commands, %d bytes): export it, then reset or load", e.N, e.Bytes)
}

// entry is one command that worked: applied at virtual At, done at End
// (later than At for the commands that run time themselves: settle, a
// blocking poll).
type entry struct {
	At, End int64
	Line    string
	During  bool // a `during` line: applied inside the blocking operation before it (during.go)
}

// history is the room's timed command log since its cluster was made. The
// cluster line plus, before each command, a wait for the virtual time
// that passed, replays to the same cluster (same seed, same commands at
// the same times: the core is deterministic).
type history struct {
	opts       core.Options
	entries    []entry
	bytes      int
	max        int
	maxBytes   int
	incomplete bool   // a command could not be replayed: a replay differs
	why        string // what made it incomplete first
	stop       int64  // when (virtual ms)
}

// Stopped says why and from when the history no longer replays the room
// ("" while it does).
func (h *history) Stopped() (string, int64) { return h.why, h.stop }

// oneLine is s on one line, for a comment.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// room says whether one more command fits.
func (h *history) room() error {
	if len(h.entries) >= h.max || h.bytes >= h.maxBytes {
		return &ErrHistoryFull{N: len(h.entries), Bytes: h.bytes}
	}
	return nil
}

func (h *history) add(at, end int64, line string) {
	h.entries = append(h.entries, entry{At: at, End: end, Line: line})
	h.bytes += len(line) + 1
}

// record adds a command that worked to the history; the next events
// batch tells every subscriber (pages in live mode replay it). why is ""
// for a command the history replays exactly, else what keeps it from
// doing so (no scenario form, applied inside a blocking operation, the
// history full): from then on the history is incomplete and the rest of
// the generation is not announced, since a copy can no longer follow. A
// command past the history's limits is applied but not kept.
func (s *loopState) record(at int64, line, why string) {
	was := s.hist.incomplete
	full := s.hist.room() != nil
	if why == "" && full {
		why = s.hist.room().Error()
	}
	if why != "" && !was {
		s.hist.incomplete, s.hist.why, s.hist.stop = true, why, at
	}
	if !full {
		s.hist.add(at, at, line)
	}
	if was {
		return
	}
	s.applied = append(s.applied, protocol.Applied{N: len(s.hist.entries), At: at, Line: line, Replayable: why == "", Why: why})
}

// ksim renders the history up to virtual time now as a scenario.
func (h *history) ksim(name string, now int64) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "# kafkasim room history: %s, %d command(s), up to %s of virtual time.\n", name, len(h.entries), core.FormatTime(now))
	b.WriteString("# Replaying it (kafkasim run, or the page's fork) gives the room's state at that time.\n")
	if h.incomplete {
		b.WriteString("# WARNING: this history does not replay the room exactly from " + core.FormatTime(h.stop) + " on: a command could not be kept (" + oneLine(h.why) + ").\n")
	}
	cl, err := scenario.Format(scenario.Step{Cluster: &h.opts})
	if err != nil {
		return "", err
	}
	b.WriteString(cl + "\n")
	t := int64(0)
	for _, e := range h.entries {
		if e.During {
			b.WriteString(e.Line + "\n") // its time is in it
			continue
		}
		writeWait(&b, e.At-t)
		if e.Line != "" {
			b.WriteString(e.Line + "\n")
		}
		t = e.End
	}
	writeWait(&b, now-t)
	return b.String(), nil
}

// writeWait writes `wait` lines for d ms (none for 0), each within the
// scenario's 24 h limit.
func writeWait(b *strings.Builder, d int64) {
	for d > 0 {
		n := min(d, core.MaxWait)
		b.WriteString("wait " + formatMs(n) + "\n")
		d -= n
	}
}

// formatMs writes ms in the largest unit that divides it exactly.
func formatMs(ms int64) string {
	switch {
	case ms%60000 == 0:
		return strconv.FormatInt(ms/60000, 10) + "m"
	case ms%1000 == 0:
		return strconv.FormatInt(ms/1000, 10) + "s"
	}
	return strconv.FormatInt(ms, 10) + "ms"
}
