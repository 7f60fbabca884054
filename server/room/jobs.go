package room

import (
	"fmt"
	"strings"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/scenario"
	"github.com/kafkasim/kafkasim/server/protocol"
)

// job is a script in progress: its steps run in order. A `wait` blocks
// it until the room's virtual clock reaches the wait's end, so a script's
// waits follow the wall clock (× speed); a settle, poll or commit is the
// core's blocking operation, in progress until the room's clock reaches
// the instant it completes. Jobs run side by side (a command sent while a
// lesson's script waits runs at once), except that while one job's
// blocking operation is in progress the other jobs' commands wait for it:
// the cluster takes one at a time, and so the room's history stays a
// script that replays exactly.
type job struct {
	name  string
	steps []scenario.Step
	i     int
	until int64          // virtual time the current wait ends; 0 when not waiting
	op    *scenario.Step // the step whose blocking operation is in progress
	opAt  int            // its history entry
	res   protocol.Result
	done  func(protocol.Result) // called once, on the loop goroutine
}

func (j *job) cancel(why string) {
	if j.done == nil {
		return
	}
	j.res.OK = false
	j.res.Lines = append(j.res.Lines, protocol.LineResult{Error: "cancelled: " + why})
	j.done(j.res)
	j.done = nil
}

func (j *job) line(lr protocol.LineResult) {
	if lr.Error != "" || lr.Failed != "" {
		j.res.OK = false
	}
	if lr.Error != "" || lr.Failed != "" || lr.Output != "" {
		j.res.Lines = append(j.res.Lines, lr)
	}
}

// nextWake is the earliest end of a job's wait.
func (s *loopState) nextWake() (int64, bool) {
	var t int64
	ok := false
	for _, j := range s.jobs {
		if j.until > 0 && (!ok || j.until < t) {
			t, ok = j.until, true
		}
	}
	return t, ok
}

// runJobs runs every job's steps until each waits or ends. A job that
// ends can let another go on (its operation completed), so it loops until
// nothing moves.
func (s *loopState) runJobs() {
	for moved := true; moved; {
		moved = false
		kept := s.jobs[:0]
		for _, j := range s.jobs {
			before := j.i
			if s.step(j) {
				kept = append(kept, j)
			} else {
				moved = true
				if j.done != nil {
					j.res.At = s.c.Now()
					j.done(j.res)
					j.done = nil
				}
			}
			moved = moved || j.i != before
		}
		for i := len(kept); i < len(s.jobs); i++ {
			s.jobs[i] = nil
		}
		s.jobs = kept
	}
}

// step runs j's steps from where it stopped; false when j has ended.
func (s *loopState) step(j *job) bool {
	if j.until > 0 {
		if s.c.Now() < j.until {
			return true
		}
		j.until = 0
	}
	if j.op != nil {
		return true // completes in opDone
	}
	for j.i < len(j.steps) {
		st := &j.steps[j.i]
		if s.faulted {
			j.line(protocol.LineResult{Line: st.Line, At: s.c.Now(), Error: "the cluster stopped"})
			return false
		}
		if w, ok := st.Cmd.(core.Wait); ok {
			j.i++
			if w.Duration > 0 {
				j.until = s.c.Now() + w.Duration
				return true
			}
			continue
		}
		if st.Cmd != nil && s.c.Pending() != nil {
			return true // another job's operation is in progress
		}
		j.i++
		if s.runStep(j, st) {
			return true // its operation is in progress
		}
	}
	return false
}

// runStep runs one step that is not a wait: a command (recorded in the
// history when it is applied), an expect or a print. It reports true when
// the command started a blocking operation that j now owns.
func (s *loopState) runStep(j *job, st *scenario.Step) bool {
	lr := protocol.LineResult{Line: st.Line, At: s.c.Now()}
	switch {
	case st.Cmd != nil:
		if err := s.hist.room(); err != nil {
			lr.Error = err.Error()
			break
		}
		at := s.c.Now()
		if err := s.c.Apply(st.Cmd); err != nil {
			lr.Error = err.Error()
			s.lastErr = lr.Error
			break
		}
		s.lastErr = ""
		s.record(at, st.Text, "")
		if s.c.Pending() != nil {
			j.op, j.opAt = st, len(s.hist.entries)-1
			return true
		}
	case st.Expect != nil && st.Expect.Kind == "error":
		lr.Failed = s.expectError(st.Expect)
	case st.Expect != nil:
		n := len(s.runner.Failures())
		if err := s.runner.Begin(st); err != nil {
			lr.Error = err.Error()
		} else if f := s.runner.Failures(); len(f) > n {
			lr.Failed = f[len(f)-1].Msg
		}
	case st.Print != nil:
		text, err := s.c.Describe(st.Print.Target)
		if st.Print.Offset >= 0 {
			text, err = s.c.DescribeRead(st.Print.Target, st.Print.Offset)
		}
		if err != nil {
			lr.Error = err.Error()
		} else {
			lr.Output = strings.TrimRight(text, "\n")
		}
	}
	j.line(lr)
	return false
}

// opDone hands a completed blocking operation to the job that owns it.
func (s *loopState) opDone(d *core.Done) {
	for _, j := range s.jobs {
		if j.op == nil {
			continue
		}
		if s.hist.entries != nil && j.opAt < len(s.hist.entries) {
			s.hist.entries[j.opAt].End = d.At
		}
		lr := protocol.LineResult{Line: j.op.Line, At: d.At}
		if d.Err != nil {
			lr.Error = d.Err.Error()
			s.lastErr = lr.Error
		}
		j.line(lr)
		j.op = nil
		return
	}
}

// expectError checks `expect error` against the last command's error
// (as the scenario runner does); "" when it holds.
func (s *loopState) expectError(e *scenario.Expect) string {
	got := s.lastErr
	if got == "" {
		got = "none"
	}
	s.lastErr = ""
	ok := got == e.Want
	switch {
	case e.None:
		ok = got == "none"
	case e.Op == "contains":
		ok = strings.Contains(got, e.Want)
	}
	if ok {
		return ""
	}
	return fmt.Sprintf("expected error %s %s, got %s", e.Op, e.Want, got)
}

// applyCmd applies a command that did not come as a scenario line (a
// protocol listener's), recording it in its scenario form (an outside
// client's connection or request as an `outside` line). Past the
// history's limits an outside client's command is still applied, so a
// real client is never refused for the history's sake; the history then
// stops replaying the room (record), and says so.
func (s *loopState) applyCmd(cmd core.Command) error {
	if err := s.hist.room(); err != nil && !isOutside(cmd) {
		return err
	}
	switch cmd.(type) {
	case core.Wait, core.Settle, core.Poll, core.Commit:
		return fmt.Errorf("%s blocks in virtual time: send it as a scenario line (Exec)", cmd.Kind())
	}
	at := s.c.Now()
	if err := s.c.Apply(cmd); err != nil {
		return err
	}
	if err := s.hist.room(); err != nil {
		s.record(at, "", err.Error()) // full: not worth writing out
		return nil
	}
	if isOutside(cmd) && s.hist.incomplete {
		// The history no longer replays the room and nobody follows it:
		// a real client's traffic (a Produce's records) is not encoded
		// as lines for nothing, request after request.
		s.record(at, "", "")
		return nil
	}
	line, err := scenario.FormatCommand(cmd)
	why := ""
	switch {
	case err != nil:
		why = cmd.Kind() + " has no scenario form: " + err.Error()
		line = ""
	case s.c.Pending() != nil:
		// In the middle of a script's settle, poll or commit: the line
		// says when in it (during.go).
		if line, why = s.duringLine(at, line); why == "" {
			s.recordDuring(at, line)
			return nil
		}
	}
	s.record(at, line, why)
	return nil
}

// isOutside reports whether cmd is an outside client's (core/command_conn.go).
func isOutside(cmd core.Command) bool { return core.IsOutsideCommand(cmd) }

// ParseCommands parses scenario lines sent as one command message: any
// lines but `cluster` (a new cluster is Load's). Errors are *scenario.Error.
func ParseCommands(text string) ([]scenario.Step, error) {
	sc, err := scenario.Parse(text)
	if err != nil {
		return nil, err
	}
	for _, st := range sc.Steps {
		if st.Cluster != nil {
			return nil, &scenario.Error{Line: st.Line, Col: 1, Msg: "a cluster line makes a new cluster: load a scenario (or reset) instead"}
		}
	}
	if len(sc.Steps) == 0 {
		return nil, &scenario.Error{Line: 1, Col: 1, Msg: "no command"}
	}
	return sc.Steps, nil
}
