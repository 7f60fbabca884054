package room

import (
	"github.com/kafkasim/kafkasim/core/scenario"
	"github.com/kafkasim/kafkasim/server/protocol"
)

// A command a protocol listener applies (a real client's request, an
// outside ZooKeeper client's delete) while a script's settle, poll or
// commit is in progress is applied at once, as it came: a real client
// does not wait for a script. The history writes it as `during +D LINE`
// after the blocking command (D: the time since it started), so that a
// replay applies it at the same instant of the same operation
// (core/scenario/during.go) and pages in live mode keep following.

// duringLine is line as applied at virtual time at inside the blocking
// operation in progress, or why it cannot be written so.
func (s *loopState) duringLine(at int64, line string) (string, string) {
	for _, j := range s.jobs {
		if j.op == nil || j.opAt >= len(s.hist.entries) {
			continue
		}
		start := s.hist.entries[j.opAt].At
		out, err := scenario.FormatDuring(at-start, line)
		if err != nil {
			return "", err.Error()
		}
		return out, ""
	}
	return "", "a command came while an operation was in progress that no script of the room's history started"
}

// recordDuring records a `during` line like record does any other
// command.
func (s *loopState) recordDuring(at int64, line string) {
	if s.hist.incomplete {
		s.record(at, "", "")
		return
	}
	if s.hist.room() != nil {
		s.record(at, line, "")
		return
	}
	s.hist.entries = append(s.hist.entries, entry{At: at, End: at, Line: line, During: true})
	s.hist.bytes += len(line) + 1
	s.applied = append(s.applied, protocol.Applied{N: len(s.hist.entries), At: at, Line: line, Replayable: true})
}
